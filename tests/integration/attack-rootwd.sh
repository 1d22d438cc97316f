# A root caller's workdir gives the sandbox only what the lend would give
# it (sbxrun(1), FILES): run as root with -w, the sandbox (uid 65534) may
# change root's ordinary files in the workdir, but not, whatever it tries
# (a shared-mmap write, write(2) through 1<>, chmod then dd, >, >>):
#   1. a set-uid or set-gid root file (the mmap write keeps the set-id
#      bit: a trojaned set-uid root program);
#   2. a root file carrying a security.capability attribute;
#   3. a hard link to a root file outside the workdir;
#   4. a submount below the workdir (a tmpfs, a bind mount from outside,
#      a root file of the same filesystem bound onto a file's name, which
#      a look by name alone takes for the workdir's own file): its files
#      keep their real owners there;
#   5. a root 0600 unix socket (a host service) by connecting to it;
#   6. a root 0600 fifo (a host reader) by writing to it.
# The namespaces backend gave the workdir through an idmapped mount that
# made every root-owned entry, at any depth and across submounts, the
# sandbox's; the landlock backend lends by chown and leaves these alone.
# Where a cover cannot help (more than 4096 of them, a set-uid file given
# as a read-write mount) the namespaces backend refuses with 125.
# Controls show the sandbox really could write the workdir and that the
# host's listener and reader see what reaches them; the covered files stay
# readable and runnable inside, and no mount is left below the workdir,
# which sits on a shared mount (systemd makes / shared) for the run.
# Every verdict is read on the host: cmp, stat, the attribute read by
# root, the listener's log, what the fifo's reader got, mountinfo.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"
. "$(dirname "$0")/rootwd-lib.sh"

N_TESTS=37
rootwd_begin "$N_TESTS" "the mmap writes, the socket and the fifo" || exit 0

# Mount points at or below the workdir, as the host sees them.
below_wd() { cut -d' ' -f5 /proc/self/mountinfo | grep -F "$WD" | sort | tr '\n' ' '; }

new_wd
cp /bin/true "$JT/true.orig"
# 1. set-uid and set-gid root programs.
cp /bin/true "$WD/suid" && chmod 4755 "$WD/suid" || setup_failed "suid"
cp /bin/true "$WD/sgid" && chmod 2755 "$WD/sgid" || setup_failed "sgid"
# 2. a root file with file capabilities (v2: cap_net_raw, permitted and
# effective), set by root on the host.
cp /bin/true "$WD/capf" && chmod 755 "$WD/capf" || setup_failed "capf"
python3 - "$WD/capf" <<'PY' || setup_failed "security.capability"
import os, struct, sys
os.setxattr(sys.argv[1], "security.capability", struct.pack("<IIIII", 0x02000001, 1 << 13, 0, 0, 0))
PY
cap_attr() { python3 -c 'import os, sys; print(os.getxattr(sys.argv[1], "security.capability").hex())' "$1" 2>&1; }
cap_before=$(cap_attr "$WD/capf")
# 3. a hard link to a root file outside the workdir (made before the
# workdir's filesystem is bind-mounted below: link(2) stays on one mount).
uniq_tag outside >"$JT/outside-file"
chmod 644 "$JT/outside-file"
ln "$JT/outside-file" "$WD/hl" || setup_failed "hard link"
out_before=$(fsum "$JT/outside-file")
# A control: root's ordinary file, which the sandbox may change.
echo orig >"$WD/plain"
chmod 644 "$WD/plain"
# The workdir on a shared mount, so that a mount the jail leaked over it
# would show in the host's mount table.
mount --bind "$T" "$T" && MOUNTED="$T $MOUNTED" && mount --make-shared "$T" ||
    setup_failed "a shared bind mount of $T"
# 4. a tmpfs and a bind mount of a root directory from outside.
mkdir "$WD/sub" "$WD/bsub" "$JT/bsrc"
chmod 755 "$JT/bsrc"
mount -t tmpfs -o mode=755 sbxrootwd "$WD/sub" && MOUNTED="$WD/sub $MOUNTED" ||
    setup_failed "a tmpfs on sub"
echo orig >"$WD/sub/g"
chmod 644 "$WD/sub/g"
echo orig >"$JT/bsrc/g"
chmod 644 "$JT/bsrc/g"
mount --bind "$JT/bsrc" "$WD/bsub" && MOUNTED="$WD/bsub $MOUNTED" ||
    setup_failed "a bind mount on bsub"
echo orig >"$JT/bfsrc"
chmod 644 "$JT/bfsrc"
: >"$WD/bfile"
mount --bind "$JT/bfsrc" "$WD/bfile" && MOUNTED="$WD/bfile $MOUNTED" ||
    setup_failed "a file bind-mounted on bfile"
sub_before=$(fsum "$WD/sub/g")
bsrc_before=$(fsum "$JT/bsrc/g")
bfsrc_before=$(fsum "$JT/bfsrc")

# 5. a host service on a root 0600 socket in the workdir, and (the
# control) one on a 0666 socket there: each accepted connection is a line
# in sock.log with the socket, the peer and what it sent.
unix_listen "$WD/sock:sock:600" "$WD/open.sock:open:666"
host_conns() { grep -c "^sock .* data b'host'" "$JT/sock.log"; }
host_connect "$WD/sock" && wait_for "[ \"\$(host_conns)\" = 1 ]" 20 || setup_failed "the host's connection to its socket"

# 6. a host reader on a root 0600 fifo in the workdir, opened before the
# run (so that a writer's open does not block) and read until fifo.stop.
mkfifo -m 600 "$WD/fifo" || setup_failed "fifo"
fifo_read "$WD/fifo"

mounts_before=$(below_wd)

# Inside: first what must keep working, then every attack (each may be
# refused: its status is only reported), then the controls.
script=$SBX_T_PRELUDE'
mm() {
	python3 -c "import mmap, os, sys
fd = os.open(sys.argv[1], os.O_RDWR)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
o = min(100, len(m) - 4)
m[o:o + 4] = b\"EVIL\"
m.flush()" "$1"
}
t run-suid ./suid
t run-sgid ./sgid
t read sh -c "cat suid sgid capf hl sub/g bsub/g bfile >/dev/null"
for f in suid sgid capf hl sub/g bsub/g bfile; do
	n=$(echo "$f" | tr / _)
	t "mmap-$n" mm "$f"
	t "rw-$n" sh -c "printf EVIL 1<>$f"
	t "dd-$n" sh -c "chmod u+w $f; dd if=/dev/zero of=$f bs=1 count=4 seek=8 conv=notrunc"
	t "chmod-$n" chmod 666 "$f"
	t "append-$n" sh -c "echo evil >>$f"
	t "trunc-$n" sh -c "echo evil >$f"
done
t new-sub sh -c "echo evil >sub/new"
t new-bsub sh -c "echo evil >bsub/new"
t sock python3 -c "import socket
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
s.connect(\"sock\")
s.sendall(b\"evil\")"
# The reader holds the fifo open, so an open the jail allowed would not
# block: the timeout is only a hang guard, long enough that a busy machine
# does not kill the writer before it tried (124 is checked for).
t fifo timeout 30 sh -c "echo evil >fifo"
t plain sh -c "echo changed >plain"
t create sh -c "echo new >created"
exit 0'
jail_sh "$script" -w "$WD"
cp "$T/out" "$T/out.main"
cp "$T/diag" "$T/diag.main"
status_main=$SBX_STATUS
# With the network fully off a unix connect to a socket the jail did not
# bind is refused whatever the socket's owner; with network rules only the
# socket file's permissions stand in the way (sbxrun(1), Network). The
# sandbox tries both sockets; it may reach the 0666 one (the control).
jail_sh "$SBX_T_PRELUDE"'
for s in sock open.sock; do
	t "net-$s" python3 -c "import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
s.connect(sys.argv[1])
s.sendall(b\"evil\")" "$s"
done
exit 0' --network on -w "$WD"
cat "$T/out" >>"$T/out.main"
mv "$T/out.main" "$T/out"

# What keeps working (the sandbox's own report).
is "$(rc_of run-suid) $(rc_of run-sgid)" "0 0" "the set-uid and set-gid programs still run inside"
is "$(rc_of read)" 0 "every covered file is still readable inside"
SBX_STATUS=$status_main
is_status 0 "the run's status is its script's (exit 0)"

if ns_only "only the namespaces backend covers root's files" 1; then
	like "$(cat "$T/diag.main")" "stay read-only and root's in the sandbox" \
	    "the diagnostics' warnings say which of root's files stayed read-only"
fi

# The controls.
is "$(cat "$WD/plain")" changed "control: root's ordinary 0644 file in the workdir was changed by the sandbox"
is "$(stat -c %u "$WD/created" 2>&1)" 0 "control: a file the sandbox made belongs to root on the host"

# 1. set-id programs.
ok "the set-uid root program is unchanged" cmp -s "$JT/true.orig" "$WD/suid"
is "$(stat -c '%a %u %g' "$WD/suid")" "4755 0 0" "... and so are its mode and owner"
ok "the set-gid root program is unchanged" cmp -s "$JT/true.orig" "$WD/sgid"
is "$(stat -c '%a %u %g' "$WD/sgid")" "2755 0 0" "... and so are its mode and owner"
# 2. file capabilities.
ok "the root file with file capabilities is unchanged" cmp -s "$JT/true.orig" "$WD/capf"
is "$(cap_attr "$WD/capf")" "$cap_before" "... and its security.capability is still there"
# 3. the hard link.
is "$(fsum "$JT/outside-file")" "$out_before" "the file outside the workdir, hard-linked into it, is unchanged"
is "$(stat -c '%a %u %g' "$JT/outside-file")" "644 0 0" "... and so are its mode and owner"
# 4. the submounts.
is "$(fsum "$WD/sub/g")" "$sub_before" "root's file on a tmpfs mounted below the workdir is unchanged"
absent "nothing was made on that tmpfs" "$WD/sub/new"
is "$(fsum "$JT/bsrc/g")" "$bsrc_before" "root's file in a directory bind-mounted below the workdir is unchanged"
absent "nothing was made in that directory" "$JT/bsrc/new"
is "$(fsum "$JT/bfsrc")" "$bfsrc_before" "root's file bind-mounted onto a file in the workdir is unchanged"
is "$(stat -c '%a %u %g' "$JT/bfsrc")" "644 0 0" "... and so are its mode and owner"
# 5. the socket. The listener serves one connection at a time, each
# socket's in the order they came: once the host's own connection, made
# after the runs, is logged, so is every earlier one of the sandbox's
# (to either socket: one select sees both). Without that fence a late
# listener would make the first check pass without having looked.
host_connect "$WD/sock" && wait_for "[ \"\$(host_conns)\" = 2 ]" 20 ||
    setup_failed "the host's connection to its socket after the runs (the listener's fence)"
is "$(grep -v "data b'host'" "$JT/sock.log" | grep '^sock ')" "" "the sandbox did not reach root's 0600 unix socket"
like "$(grep '^open ' "$JT/sock.log")" "data b'evil'" "control: the sandbox reached a 0666 socket of the host's in the workdir"
is "$(host_conns)" 2 "control: the host's own connections to the 0600 socket, before and after the runs, are logged"
: >"$JT/sock.stop"
wait "$LSN_PID"
# 6. the fifo: the host writes its own line after the run, then the reader
# stops.
timeout 30 sh -c 'echo host >"$1"' sh "$WD/fifo"
: >"$JT/fifo.stop"
wait "$FIFO_PID"
is "$(grep -v '^host$' "$JT/fifo.got")" "" "nothing the sandbox wrote to root's 0600 fifo reached the host's reader"
# (0: the write went through; 124: the hang guard ended it, before or in
# its open: then the check above saw no attempt.)
r=$(rc_of fifo)
ok "the sandbox's write to that fifo was refused (status ${r:-none}: neither 0 nor 124)" \
    test -n "$r" -a "$r" != 0 -a "$r" != 124
is "$(grep -c '^host$' "$JT/fifo.got")" 1 "control: the host's own line through the fifo reached the reader"

# The mounts.
is "$(below_wd)" "$mounts_before" "no mount is left below the workdir but the test's own"

if [ "$TAP_FAILED" -gt 0 ]; then
	diag "what the sandbox reported (R:step:status):" "$(grep '^R:' "$T/out" | tr '\n' ' ')"
fi

# A read-write mount is scanned and covered as the workdir is.
new_wd
mkdir "$JT/rwdir" && cp /bin/true "$JT/rwdir/suid" && chmod 4755 "$JT/rwdir/suid" &&
    echo orig >"$JT/rwdir/plain" || setup_failed "the rw mount's directory"
jail_sh "python3 -c \"import mmap, os
fd = os.open('rwdir/suid', os.O_RDWR)
m = mmap.mmap(fd, 0, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
m[100:104] = b'EVIL'\"
echo changed >rwdir/plain; exit 0" -m "$JT/rwdir:rwdir:rw" -w "$WD"
ok "a set-uid root program in a read-write mount is unchanged" cmp -s "$JT/true.orig" "$JT/rwdir/suid"
# (The landlock backend lends the workdir and TMPDIR only: root's files in
# a read-write mount stay unwritable there.)
if ns_only "landlock lends a root caller's workdir, not its rw mounts" 1; then
	is "$(cat "$JT/rwdir/plain")" changed "control: root's ordinary file in that mount was changed"
fi

# Where a read-only cover cannot be the answer the namespaces backend
# refuses before anything runs (the landlock lend just leaves such files
# with root): more than 4096 files needing one (a hard-linked tree), and
# a set-uid root file given as a read-write mount.
if ns_only "only the namespaces backend covers root's files" 8; then
	new_wd
	mkdir "$T/farm"
	python3 - "$T/farm" "$WD" <<'PY' || setup_failed "the hard-linked farm"
import os, sys
for i in range(4097):
    p = os.path.join(sys.argv[1], "f%d" % i)
    open(p, "w").close()
    os.link(p, os.path.join(sys.argv[2], "f%d" % i))
PY
	mounts_before=$(below_wd)
	jail_sh "echo ran >marker" -w "$WD"
	is_status 125 "a workdir holding 4097 hard-linked root files is refused"
	like "$(cat "$T/err")" "more than 4096" "... saying why"
	like "$(cat "$T/err")" "$WD/f" "... naming one of them"
	absent "... before the script ran" "$WD/marker"
	is "$(below_wd)" "$mounts_before" "... leaving no mount behind"

	new_wd
	cp /bin/true "$JT/suid-rw" && chmod 4755 "$JT/suid-rw"
	jail_sh "echo ran >marker" -m "$JT/suid-rw:tool:rw" -w "$WD"
	is_status 125 "a set-uid root file given as a read-write mount is refused"
	like "$(cat "$T/err")" "$JT/suid-rw is a set-id" "... naming it"
	absent "... before the script ran" "$WD/marker"
fi
done_testing
