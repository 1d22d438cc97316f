# A root caller's workdir, second round: the ways around the covers of
# idmap-covers.md that an attacker's review found. Run as root with -w (and
# rw mounts), the sandbox (uid 65534) must still not be able to:
#   1. write a set-uid root file, or a hard link to a file it cannot see,
#      inside a btrfs subvolume below the workdir (the scan skipped the
#      subvolume: its st_dev is not the workdir's, yet it is on the same,
#      idmapped, mount);
#   2. snapshot a subvolume (the workdir itself, or a read-only mount of
#      one) into the workdir, or make a new subvolume there: the snapshot
#      arrives after the scan, holds root's set-uid file and is on the
#      idmapped mount (BTRFS_IOC_SNAP_CREATE, _V2, BTRFS_IOC_SUBVOL_CREATE,
#      _V2 fail with EPERM under both backends); nor make root's read-only
#      snapshot in the workdir writable (BTRFS_IOC_SUBVOL_SETFLAGS needs
#      only to own the subvolume, which the idmapping gives; it fails with
#      EPERM under both backends);
#   3. write a set-uid root file in a protected path (.vscode) given again
#      as a read-write mount, directly or through a mount of the workdir's
#      parent (the protected paths were left out of every tree's scan);
#   4. write to a root 0600 fifo or connect to a root 0600 socket inside a
#      protected path (.vscode, .git/hooks), which the scan left out;
#   5. write a hard link to a file outside the workdir; while hard links
#      whose every name is inside the workdir are not covered: the sandbox
#      may rewrite and remove them (a cp -al backup keeps working), and
#      4097 of them made by one run do not refuse the next;
#   6. slip a set-uid root file past the scan by exchanging two directories
#      (renameat2 RENAME_EXCHANGE) while it runs: the namespaces backend
#      notices (each directory's sorted names and inodes, read again after
#      covering) and refuses with 125 when the tree keeps changing; also on
#      ext4 with 128-byte inodes, whose whole-second ctimes stay the same
#      through every rename in one second (a ctime recheck saw nothing);
#   7. leave uncovered a set-uid root file in a protected path (.vscode) or
#      on the secret list: the scan once skipped those by name, trusting
#      the jail to freeze or hide them, which it does only for what existed
#      when the plan was made; now they are scanned like the rest (the
#      diagnostics' warning counts them).
# Every verdict is read on the host: cmp, stat, ls, find, the listener's
# log, what the fifo's reader got, the run's status. Under the landlock
# backend the lend never hands these over; the same attacks run there
# (with --allow-degraded where a -m is needed: that backend refuses a -m
# without it, and then the attack would prove nothing). The btrfs cases
# need a loop device and mkfs.btrfs, the whole-second ext4 case one and
# mkfs.ext4; each is skipped without them.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"
. "$(dirname "$0")/rootwd-lib.sh"

N_BTRFS=19
N_EXT4=6
N_TESTS=$((N_BTRFS + N_EXT4 + 30))
rootwd_begin "$N_TESTS" "the mmap writes, the ioctls, the socket and the fifo" || exit 0

DEGRADED=
[ "$SBX_BACKEND" = landlock ] && DEGRADED=--allow-degraded

LOOPDEVS=
RENAMER_PID=
rootwd_pre_cleanup() { [ -n "$RENAMER_PID" ] && : >"$JT/ren.stop" 2>/dev/null; }
# After the unmounts (a device still busy is detached once freed).
rootwd_post_cleanup() {
	for _l in $LOOPDEVS; do
		losetup -d "$_l" 2>/dev/null
	done
}

# loop_mount IMG DIR TYPE: the image IMG on a new loop device, mounted
# (type TYPE) on DIR; both undone by the EXIT trap. False when either
# fails.
loop_mount() {
	_l=$(losetup -f --show "$1" 2>/dev/null) || return 1
	LOOPDEVS="$_l $LOOPDEVS"
	mount -t "$3" "$_l" "$2" 2>/dev/null || return 1
	MOUNTED="$2 $MOUNTED"
}

cp /bin/true "$JT/true.orig"

# In the jail: t (R:NAME:STATUS), mm FILE (b"EVIL" at offset 100 through
# a shared mapping: the write that keeps set-id bits), btrfs_ioctl KIND
# SRC NAME (KIND snap1, snap2: snapshot SRC as NAME in the current
# directory; sub1, sub2: a new subvolume NAME), which prints E:KIND:ERRNO,
# and setflags SUBVOL (BTRFS_IOC_SUBVOL_SETFLAGS with flags 0: read-only
# off), which prints E:setflags:ERRNO.
PRELUDE=$SBX_T_PRELUDE$(cat <<'EOF'

mm() {
	python3 -c "import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
o = min(100, len(m) - 4)
m[o:o + 4] = b\"EVIL\"
m.flush()" "$1"
}
btrfs_ioctl() {
	python3 -c "import fcntl, os, struct, sys
kind, src, name = sys.argv[1], sys.argv[2], sys.argv[3].encode()
d = os.open(\".\", os.O_RDONLY)
s = os.open(src, os.O_RDONLY) if kind.startswith(\"snap\") else 0
# struct btrfs_ioctl_vol_args: __s64 fd; char name[4088]. _v2: __s64 fd;
# __u64 transid, flags, unused[4]; char name[4040]. Both 4096 bytes.
if kind.endswith(\"1\"):
    arg = struct.pack(\"q4088s\", s, name)
else:
    arg = struct.pack(\"qQQ32s4040s\", s, 0, 0, b\"\", name)
req = {\"snap1\": 0x50009401, \"snap2\": 0x50009417, \"sub1\": 0x5000940e, \"sub2\": 0x50009418}[kind]
try:
    fcntl.ioctl(d, req, bytearray(arg))
    e = 0
except OSError as x:
    e = x.errno
print(\"E:%s:%d\" % (kind, e))" "$@"
}
setflags() {
	python3 -c "import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
try:
    fcntl.ioctl(fd, 0x4008941a, struct.pack(\"Q\", 0))
    e = 0
except OSError as x:
    e = x.errno
print(\"E:setflags:%d\" % e)" "$1"
}
EOF
)

# ---------------------------------------------------------------------
# 1 and 2: btrfs, on a loop device.
btrfs_cases() {
	B=$T/btrfs
	mkdir "$B" && truncate -s 300M "$T/btrfs.img" && mkfs.btrfs -q "$T/btrfs.img" >/dev/null 2>&1 ||
	    return 1
	loop_mount "$T/btrfs.img" "$B" btrfs || return 1
	# Shared, so that a mount a run left behind would show on the host.
	mount --make-shared "$B" && chmod 755 "$B" || setup_failed "the btrfs mount"
	below_b() { cut -d' ' -f5 /proc/self/mountinfo | grep -F "$B" | sort | tr '\n' ' '; }

	# 1. A subvolume below the workdir: a set-uid root program, a root
	# file, and a hard link whose other name the sandbox cannot see (a
	# link cannot leave its subvolume, so the other name is in sv/priv,
	# which a tmpfs then hides: from the workdir it is as far away as a
	# file outside).
	mkdir "$B/wd" && chmod 755 "$B/wd" && btrfs -q subvolume create "$B/wd/sv" >/dev/null ||
	    setup_failed "the subvolume wd/sv"
	chmod 755 "$B/wd/sv"
	cp /bin/true "$B/wd/sv/suid" && chmod 4755 "$B/wd/sv/suid" || setup_failed "sv/suid"
	echo orig >"$B/wd/sv/plain" && chmod 644 "$B/wd/sv/plain"
	mkdir "$B/wd/sv/priv" && uniq_tag hidden >"$B/wd/sv/priv/outside" &&
	    chmod 644 "$B/wd/sv/priv/outside" && ln "$B/wd/sv/priv/outside" "$B/wd/sv/hl" ||
	    setup_failed "the hard link sv/hl"
	hl_before=$(fsum "$B/wd/sv/hl")
	mount -t tmpfs -o mode=755 sbxrootwd2 "$B/wd/sv/priv" && MOUNTED="$B/wd/sv/priv $MOUNTED" ||
	    setup_failed "a tmpfs on sv/priv"
	# 2. The workdir wd2 a subvolume holding a set-uid root program; the
	# read-only mount's source sys another; wd3 a plain directory.
	btrfs -q subvolume create "$B/wd2" >/dev/null && chmod 755 "$B/wd2" &&
	    cp /bin/true "$B/wd2/suid" && chmod 4755 "$B/wd2/suid" || setup_failed "the subvolume wd2"
	btrfs -q subvolume create "$B/sys" >/dev/null && chmod 755 "$B/sys" &&
	    cp /bin/true "$B/sys/suid" && chmod 4755 "$B/sys/suid" || setup_failed "the subvolume sys"
	mkdir "$B/wd3" && chmod 755 "$B/wd3"
	mounts_before=$(below_b)

	jail_sh "$PRELUDE"'
t run-suid sv/suid
t mmap-suid mm sv/suid
t chmod-suid chmod 666 sv/suid
t rw-hl sh -c "echo EVIL >sv/hl"
t mmap-hl mm sv/hl
t plain sh -c "echo changed >sv/plain"
exit 0' -w "$B/wd"
	is_status 0 "subvolume below the workdir: the run's status is its script's"
	is "$(rc_of run-suid)" 0 "... the set-uid program in the subvolume still runs inside"
	left1=$(below_b)
	umount "$B/wd/sv/priv" && MOUNTED=$(echo "$MOUNTED" | sed "s|$B/wd/sv/priv ||")
	ok "... the set-uid root program in it is unchanged" cmp -s "$JT/true.orig" "$B/wd/sv/suid"
	is "$(stat -c '%a %u %g' "$B/wd/sv/suid")" "4755 0 0" "... and so are its mode and owner"
	is "$(fsum "$B/wd/sv/priv/outside")" "$hl_before" \
	    "... the file hard-linked into it from where the sandbox cannot see is unchanged"
	is "$(stat -c '%a %u %g %h' "$B/wd/sv/priv/outside")" "644 0 0 2" "... and so are its mode, owner and links"
	# (The lend never enters another filesystem: under landlock the
	# subvolume's files all stay root's.)
	if ns_only "landlock lends the workdir's own filesystem only" 1; then
		is "$(cat "$B/wd/sv/plain")" changed "control: root's ordinary file in the subvolume was changed"
	fi
	mounts_before2=$(below_b)

	# 2. Snapshots and new subvolumes. The ioctls' own report is a second
	# opinion; what the host's ls and find show is the verdict.
	jail_sh "$PRELUDE"'
btrfs_ioctl snap1 . snap
btrfs_ioctl snap2 . snap2
btrfs_ioctl sub1 . newsv
btrfs_ioctl sub2 . newsv2
for s in snap snap2; do
	t "mmap-$s" mm "$s/suid"
done
exit 0' -w "$B/wd2"
	is "$(ls -A "$B/wd2" | tr '\n' ' ')" "suid " \
	    "no snapshot or subvolume appeared in a workdir that is a subvolume (ls)"
	is "$(find "$B/wd2" -perm /6000 | tr '\n' ' ')" "$B/wd2/suid " \
	    "... and no set-id file but the original is below it"
	ok "... the set-uid root program there is unchanged" cmp -s "$JT/true.orig" "$B/wd2/suid"
	is "$(stat -c '%a %u %g' "$B/wd2/suid")" "4755 0 0" "... and so are its mode and owner"
	is "$(grep '^E:' "$T/out" | tr '\n' ' ')" "E:snap1:1 E:snap2:1 E:sub1:1 E:sub2:1 " \
	    "... every snapshot and subvolume ioctl failed with EPERM (the sandbox's report)"

	jail_sh "$PRELUDE"'
btrfs_ioctl snap1 sys snap
btrfs_ioctl snap2 sys snap2
for s in snap snap2; do
	t "mmap-$s" mm "$s/suid"
done
exit 0' $DEGRADED -m "$B/sys:sys" -w "$B/wd3"
	is "$(ls -A "$B/wd3" | tr '\n' ' ')" "" \
	    "no snapshot of a read-only mount's subvolume appeared in the workdir (ls)"
	is "$(find "$B/wd3" -perm /6000 | tr '\n' ' ')" "" "... and no set-id file is below it"
	ok "... the set-uid root program in the mounted subvolume is unchanged" \
	    cmp -s "$JT/true.orig" "$B/sys/suid"

	# A root read-only snapshot in the workdir: read-only off, then a file
	# made in it.
	mkdir "$B/wd4" && chmod 755 "$B/wd4" && btrfs -q subvolume create "$B/wd4/sv" >/dev/null &&
	    chmod 755 "$B/wd4/sv" && echo orig >"$B/wd4/sv/plain" &&
	    btrfs -q subvolume snapshot -r "$B/wd4/sv" "$B/wd4/snap" >/dev/null ||
	    setup_failed "the read-only snapshot wd4/snap"
	jail_sh "$PRELUDE"'
setflags snap
t new sh -c "echo EVIL >snap/new"
exit 0' -w "$B/wd4"
	is "$(btrfs property get "$B/wd4/snap" ro 2>&1)" ro=true \
	    "root's read-only snapshot in the workdir is still read-only (btrfs property get)"
	absent "... and nothing was made in it" "$B/wd4/snap/new"
	is "$(grep '^E:setflags:' "$T/out")" E:setflags:1 \
	    "... BTRFS_IOC_SUBVOL_SETFLAGS failed with EPERM (the sandbox's report)"

	is "$left1 | $(below_b)" "$mounts_before | $mounts_before2" "no mount is left below the btrfs mount but the test's own"
	return 0
}
if ! command -v mkfs.btrfs >/dev/null 2>&1 || ! command -v btrfs >/dev/null 2>&1; then
	skip "btrfs: mkfs.btrfs and btrfs (btrfs-progs) are needed" "$N_BTRFS"
else
	_n=$TAP_N
	if ! btrfs_cases; then
		[ "$TAP_N" = "$_n" ] || setup_failed "btrfs"
		skip "btrfs: no btrfs on a loop device here (loop or btrfs module missing)" "$N_BTRFS"
	fi
fi
[ "$TAP_FAILED" -gt 0 ] && diag "what the sandbox reported:" "$(grep '^[RE]:' "$T/out" | tr '\n' ' ')"

# ---------------------------------------------------------------------
# 3. A protected directory given again as a read-write mount, and the
# workdir's parent given as one: both refused (125) before anything runs;
# read-only, the parent is taken and its files stay unwritable.
P=$T/p3
mkdir "$P" "$P/w" "$P/w/.vscode" && chmod 755 "$P" "$P/w" "$P/w/.vscode" &&
    cp /bin/true "$P/w/.vscode/suid" && chmod 4755 "$P/w/.vscode/suid" ||
    setup_failed "the protected directory's set-uid program"
echo orig >"$P/ctl" && chmod 644 "$P/ctl"
jail_sh "$PRELUDE"'
t mmap mm vs/suid
exit 0' $DEGRADED -m "$P/w/.vscode:vs:rw" -w "$P/w"
is_status 125 "a protected directory given as a read-write mount: refused (125)"
like "$(jget error)" "lies in the protected path .vscode" "... the error names the protected path"
jail_sh "$PRELUDE"'
t mmap mm up/w/.vscode/suid
t ctl sh -c "echo changed >up/ctl"
exit 0' $DEGRADED -m "$P:up:rw" -w "$P/w"
is_status 125 "the workdir's parent given as a read-write mount: refused (125)"
like "$(jget error)" "it holds the workdir" "... the error says why"
is "$(cat "$P/ctl")" orig "... nothing ran: the parent's file is unchanged"
jail_sh "$PRELUDE"'
t mmap mm up/w/.vscode/suid
t ctl sh -c "echo changed >up/ctl"
exit 0' $DEGRADED -m "$P:up:ro" -w "$P/w"
is_status 0 "the workdir's parent given read-only: the run is taken"
is "$(cat "$P/ctl")" orig "... and the parent's file is not writable"
ok "... the set-uid root program in .vscode is unchanged" \
    cmp -s "$JT/true.orig" "$P/w/.vscode/suid"
is "$(stat -c '%a %u %g' "$P/w/.vscode/suid")" "4755 0 0" "... and so are its mode and owner"

# ---------------------------------------------------------------------
# 4. A root 0600 fifo in .vscode and a root 0600 socket in .git/hooks.
new_wd
mkdir -p "$WD/.vscode" "$WD/.git/hooks" && chmod 755 "$WD/.vscode" "$WD/.git" "$WD/.git/hooks" ||
    setup_failed ".vscode and .git/hooks"
unix_listen "$WD/.git/hooks/sock:sock:600"
host_conns() { grep -c "data b'host'" "$JT/sock.log"; }
host_connect "$WD/.git/hooks/sock" && wait_for "[ \"\$(host_conns)\" = 1 ]" 20 || setup_failed "the host's connection to its socket"

mkfifo -m 600 "$WD/.vscode/fifo" || setup_failed "fifo"
fifo_read "$WD/.vscode/fifo"

# The reader holds the fifo open, so an open the jail allowed would not
# block: the timeout is only a hang guard, long enough that a busy machine
# does not kill the writer before it tried (124 is checked for).
jail_sh "$PRELUDE"'
t fifo timeout 30 sh -c "echo EVIL >.vscode/fifo"
t sock python3 -c "import socket
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
s.connect(\".git/hooks/sock\")
s.sendall(b\"evil\")"
exit 0' --network on -w "$WD"
is_status 0 "fifo and socket in protected paths: the run's status is its script's"
# The fence: the listener logs connections in the order they came, so
# once the host's own, made after the run, is logged, so is the sandbox's.
host_connect "$WD/.git/hooks/sock" && wait_for "[ \"\$(host_conns)\" = 2 ]" 20 ||
    setup_failed "the host's connection to its socket after the run (the listener's fence)"
is "$(grep -v "data b'host'" "$JT/sock.log")" "" "the sandbox did not reach root's 0600 socket in .git/hooks"
is "$(host_conns)" 2 "control: the host's own connections to it, before and after the run, are logged"
: >"$JT/sock.stop"
wait "$LSN_PID"
timeout 30 sh -c 'echo host >"$1"' sh "$WD/.vscode/fifo"
: >"$JT/fifo.stop"
wait "$FIFO_PID"
is "$(grep -v '^host$' "$JT/fifo.got")" "" "nothing the sandbox wrote to root's 0600 fifo in .vscode reached the reader"
# (0: the write went through; 124: the hang guard ended it, before or in
# its open: then the check above saw no attempt.)
r=$(rc_of fifo)
ok "... the sandbox's write to it was refused (status ${r:-none}: neither 0 nor 124)" \
    test -n "$r" -a "$r" != 0 -a "$r" != 124
is "$(grep -c '^host$' "$JT/fifo.got")" 1 "control: the host's own line through that fifo reached the reader"
[ "$TAP_FAILED" -gt 0 ] && diag "what the sandbox reported:" "$(grep '^R:' "$T/out" | tr '\n' ' ')"

# ---------------------------------------------------------------------
# 5. Hard links: both names inside the workdir, and one outside.
new_wd
mkdir "$WD/a" "$WD/b" "$WD/c" && echo orig >"$WD/a/f" && chmod 644 "$WD/a/f" &&
    ln "$WD/a/f" "$WD/b/f" || setup_failed "the links a/f and b/f"
uniq_tag outside >"$JT/outside" && chmod 644 "$JT/outside" && ln "$JT/outside" "$WD/c/hl" ||
    setup_failed "the hard link c/hl to a file outside"
out_before=$(fsum "$JT/outside")
jail_sh "$PRELUDE"'
t inside sh -c "echo new >a/f && rm b/f"
t rw-out sh -c "echo EVIL >c/hl"
t mmap-out mm c/hl
exit 0' -w "$WD"
is "$(fsum "$JT/outside")" "$out_before" "the file outside the workdir, hard-linked into it, is unchanged"
# (The lend leaves a file with two links root's.)
if ns_only "the landlock lend leaves root's multi-link files alone" 2; then
	is "$(cat "$WD/a/f")" new "a root file whose two links are both in the workdir was rewritten by the sandbox"
	absent "... and its other link removed" "$WD/b/f"
fi

# The sandbox's own 4098 links to one file must not refuse the next run.
new_wd
jail_sh 'python3 -c "import os
open(\"x\", \"w\").close()
[os.link(\"x\", \"l%d\" % i) for i in range(4097)]"' -w "$WD"
is_status 0 "a run making 4097 hard links of one file in the workdir succeeds"
is "$(stat -c '%h' "$WD/x" 2>&1)" 4098 "... and they are on the host"
jail_sh 'echo ran >marker' -w "$WD"
is_status 0 "... and the next run in that workdir is not refused"
is "$(cat "$WD/marker" 2>&1)" ran "... and its script ran"

# ---------------------------------------------------------------------
# 6. Two directories exchanged over and over during the scan: on the
# test's own filesystem, then on ext4 with whole-second ctimes.
case $(uname -m) in
x86_64) NR_RENAMEAT2=316 ;;
aarch64) NR_RENAMEAT2=276 ;;
*) NR_RENAMEAT2= ;;
esac

HOLDCALL=${HOLDCALL:-$(dirname "$SBXRUN")/tests/holdcall}
# (A sanitized build's leak check cannot run under ptrace.)
NOLEAK="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# exchange DIR: a and z in DIR exchanged once.
exchange() {
	"$PY" -c 'import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
d = os.fsencode(sys.argv[1])
if libc.syscall(int(sys.argv[2]), -100, d + b"/a", -100, d + b"/z", 2) != 0:
    sys.exit("renameat2: " + os.strerror(ctypes.get_errno()))' "$1" "$NR_RENAMEAT2"
}

# held_exchange DIR: one run in DIR whose scan tests/holdcall pauses in
# the directory without the set-uid program (at its statx of f0000);
# meanwhile a and z are exchanged once, then the scan goes on. Were the
# change missed, a scan that had entered that directory first would take
# the other name for it again and never see the set-uid program; the
# covers of a fresh scan name it where the exchange moved it. A pause the
# test ends, not a clock: whatever the load, the exchange lands mid-scan.
# Sets HX_STATUS (holdcall's: the run's, 3 when nothing was held), HX_HELD
# (the call held), HX_TO (where the program is now).
held_exchange() {
	[ -x "$HOLDCALL" ] || setup_failed "tests/holdcall is missing at $HOLDCALL (make check builds it)"
	if [ -e "$1/a/suid" ]; then HX_TO=z; else HX_TO=a; fi
	rm -f "$T/held" "$T/go"
	printf '%s\n' "$PRELUDE" 't mmap-a mm a/suid' 't mmap-z mm z/suid' 'exit 0' >"$T/script"
	ASAN_OPTIONS=$NOLEAK "$HOLDCALL" -s statx -m "$(cd "$1" && pwd -P)/$HX_TO|f0000|*" \
	    -H "$T/held" -g "$T/go" -t 60 -- \
	    "$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 -w "$1" <"$T/script" \
	    >"$T/out" 2>"$T/err" 3>"$T/diag" &
	_hx=$!
	JAIL_PIDS="$JAIL_PIDS $_hx"
	wait_for "[ -e '$T/held' ]" 60 && exchange "$1"
	: >"$T/go"
	wait "$_hx"
	HX_STATUS=$?
	HX_HELD=$(cut -d'|' -f2 "$T/held" 2>/dev/null)
}

# rename_race DIR WHERE: in the workdir DIR two directories a and z of
# 2000 empty files each, root's set-uid program in a; the two exchanged
# every 0.5 ms while five runs start there, then (namespaces) one run with
# an exchange held mid-scan, then a run once that stops. WHERE (" on ..."
# or empty) goes in the first test's name. 6 tests.
rename_race() {
	"$PY" - "$1" <<'PY' || setup_failed "the directories a and z$2"
import os, sys
wd = sys.argv[1]
for d in ("a", "z"):
    os.mkdir(os.path.join(wd, d), 0o755)
    for i in range(2000):
        open(os.path.join(wd, d, "f%04d" % i), "w").close()
PY
	cp /bin/true "$1/a/suid" && chmod 4755 "$1/a/suid" || setup_failed "a/suid$2"
	rm -f "$JT/ren.ready" "$JT/ren.stop"
	"$PY" - "$1" "$NR_RENAMEAT2" "$JT/ren.ready" "$JT/ren.stop" <<'PY' &
import ctypes, os, sys, time
wd, nr, ready, stop = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
libc = ctypes.CDLL(None, use_errno=True)
os.chdir(wd)
AT_FDCWD, RENAME_EXCHANGE = -100, 2
if libc.syscall(nr, AT_FDCWD, b"a", AT_FDCWD, b"z", RENAME_EXCHANGE) != 0:
    sys.exit("renameat2: errno %d" % ctypes.get_errno())
open(ready, "w").close()
end = time.time() + 120
while time.time() < end and not os.path.exists(stop):
    libc.syscall(nr, AT_FDCWD, b"a", AT_FDCWD, b"z", RENAME_EXCHANGE)
    time.sleep(0.0005)
PY
	RENAMER_PID=$!
	JAIL_PIDS="$JAIL_PIDS $RENAMER_PID"
	wait_for "[ -e '$JT/ren.ready' ]" 10 || setup_failed "the renamer$2"
	statuses=
	held=0
	runs=
	i=0
	while [ "$i" -lt 5 ]; do
		jail_sh "$PRELUDE"'
t mmap-a mm a/suid
t mmap-z mm z/suid
exit 0' -w "$1"
		statuses="$statuses $SBX_STATUS"
		if grep -q "changed during the scan" "$T/err"; then
			held=$((held + 1))
		elif [ "$SBX_STATUS" = 0 ] && [ "$(rc_of mmap-a)" != 0 ] && [ "$(rc_of mmap-z)" != 0 ]; then
			held=$((held + 1))
		fi
		runs="$runs
run $i: status $SBX_STATUS, $(grep '^R:' "$T/out" | tr '\n' ' ')$(head -c 200 "$T/err")"
		i=$((i + 1))
	done
	: >"$JT/ren.stop"
	wait "$RENAMER_PID"
	RENAMER_PID=
	# (Only the namespaces backend scans: landlock lends by chown.)
	if [ "$SBX_BACKEND" = namespaces ]; then
		held_exchange "$1"
		runs="$runs
held run: held ${HX_HELD:-nothing}, status $HX_STATUS, $(grep '^R:' "$T/out" | tr '\n' ' ')$(head -c 200 "$T/err")"
	fi
	if [ -e "$1/a/suid" ]; then s=$1/a/suid; else s=$1/z/suid; fi
	ok "a set-uid root program in directories exchanged during the scan$2 is unchanged" \
	    cmp -s "$JT/true.orig" "$s"
	is "$(stat -c '%a %u %g' "$s")" "4755 0 0" "... and so are its mode and owner"
	_f=$TAP_FAILED
	if ns_only "only the namespaces backend scans the workdir before the run" 3; then
		# A scan that happened to see one consistent state is right
		# to go on (then the file it covered refuses the write); the
		# others must be refused, saying why.
		is "$held" 5 "... every run while the renames went on was refused as changed, or met the file covered"
		# (How many of those the renames reached depends on the
		# machine's load; the held run's exchange always does.)
		is "$HX_STATUS:$HX_HELD" 0:f0000 \
		    "... a run whose scan was held in the directory without it while a and z were exchanged ran (status 0)"
		like "$(cat "$T/diag")" "$1/$HX_TO/suid among them" \
		    "... and the exchange did not slip past the scan: the program is covered where it moved to"
	fi
	[ "$TAP_FAILED" -gt "$_f" ] || ! cmp -s "$JT/true.orig" "$s" && diag "the runs:$runs"
	jail_sh 'echo ran >marker' -w "$1"
	is_status 0 "control: once the renames stop, a run in that workdir succeeds"
}

# A workdir on ext4 with 128-byte inodes, which have no room for
# sub-second timestamps: $E/wd. False when there is no such mount here.
ext4_wd() {
	E=$T/ext4
	mkdir "$E" && truncate -s 200M "$T/ext4.img" &&
	    mkfs.ext4 -q -I 128 "$T/ext4.img" >/dev/null 2>&1 || return 1
	loop_mount "$T/ext4.img" "$E" ext4 || return 1
	mkdir "$E/wd" && chmod 755 "$E" "$E/wd" || setup_failed "the workdir on ext4"
	# Else the case would prove no more than the first one.
	case $(stat -c %z "$E/wd") in
	*.000000000\ *) ;;
	*) setup_failed "whole-second ctimes on ext4 -I 128 (got $(stat -c %z "$E/wd"))" ;;
	esac
}

if [ -z "$NR_RENAMEAT2" ]; then
	skip "renameat2: no syscall number known for $(uname -m)" $((6 + N_EXT4))
else
	new_wd
	rename_race "$WD" ""
	if ! command -v mkfs.ext4 >/dev/null 2>&1; then
		skip "ext4: mkfs.ext4 (e2fsprogs) is needed" "$N_EXT4"
	elif ! ext4_wd; then
		skip "ext4: no ext4 on a loop device here (loop or ext4 module missing)" "$N_EXT4"
	else
		rename_race "$E/wd" " on ext4 with whole-second ctimes"
	fi
fi

# ---------------------------------------------------------------------
# 7. A set-uid root program in a protected path, and one in a directory
# on the secret list: covered like any other, so the warning counts it.
# covered: "COUNT PATH" from the last run's warning on root's entries
# that stay read-only (how many, and the one it names).
covered() {
	sed -n "s/.*\"\([0-9]*\) of root's entries in [^\"]* stay read-only and root's in the sandbox ([^)]*), \([^\"]*\) among them\".*/\1 \2/p" "$T/diag"
}
if ns_only "only the namespaces backend covers root's files" 2; then
	new_wd
	mkdir "$WD/.vscode" && chmod 755 "$WD/.vscode" && cp /bin/true "$WD/.vscode/suid" &&
	    chmod 4755 "$WD/.vscode/suid" || setup_failed ".vscode/suid"
	jail_sh 'exit 0' -w "$WD"
	is "$(covered)" "1 $WD/.vscode/suid" \
	    "a set-uid root program in .vscode is covered (the diagnostics' warning counts and names it)" ||
	    diag "$(tail -n 3 "$T/err")"
	new_wd
	mkdir "$WD/sec" && chmod 755 "$WD/sec" && cp /bin/true "$WD/sec/suid" &&
	    chmod 4755 "$WD/sec/suid" || setup_failed "sec/suid"
	jail_sh 'exit 0' --deny-read "$WD/sec" -w "$WD"
	is "$(covered)" "1 $WD/sec/suid" "... and so is one in a directory on the secret list (--deny-read)" ||
	    diag "$(tail -n 3 "$T/err")"
fi
done_testing
