# Another local user must not put a .git at the top of the caller's
# workdir after the git guard has looked there (threat model, "Nothing is
# planted for later").
#
# The payload opens the workdir's top to everyone, prepares a whole git
# directory at stash/dotgit (a config with core.fsmonitor), makes a bare
# layout at the top (which the guard moves aside after the run) and takes
# the 100 numbered names each move tries first, so the moves take long.
# Another user watches the top with inotify: when the guard moves HEAD
# away, it notes whether the top is still writable by others and renames
# stash/dotgit to .git. Before the fix the guard looked at the top level
# and moved names first and took write for others from the top only in
# the search after it: the rename went through, and the caller's next
# git status ran the fsmonitor command.
#
# Verdicts on the host: the top's mode when HEAD was moved (no write for
# others any more: deterministic), the rename refused, no .git at the
# top. Two cases: a root caller with the attacker sbxtest, and a sbxtest
# caller with the attacker uid 4321. The harness must be root (it acts as
# the other users); run as another user the file skips with a reason.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=8
other_users_only "$N_TESTS"

cat >"$T/watch.py" <<'EOF'
# watch.py WD OUT: waits for HEAD to be renamed away from WD, then writes
# to OUT the top's write bit for others at that moment and what renaming
# stash/dotgit to .git did.
import ctypes, os, struct, sys
wd, out = sys.argv[1], sys.argv[2]
libc = ctypes.CDLL(None, use_errno=True)
fd = libc.inotify_init1(0)
IN_MOVED_FROM = 0x40
if fd < 0 or libc.inotify_add_watch(fd, wd.encode(), IN_MOVED_FROM) < 0:
    sys.exit("inotify: %s" % os.strerror(ctypes.get_errno()))
open(os.path.join(wd, "armed"), "w").close()
while True:
    buf = os.read(fd, 65536)
    off = 0
    while off < len(buf):
        _, mask, _, n = struct.unpack_from("iIII", buf, off)
        name = buf[off + 16:off + 16 + n].rstrip(b"\0")
        off += 16 + n
        if name == b"HEAD":
            mode = os.stat(wd).st_mode
            try:
                os.rename(os.path.join(wd, "stash/dotgit"), os.path.join(wd, ".git"))
                r = "renamed"
            except OSError as e:
                r = "refused"
            with open(out, "w") as f:
                f.write("%s %s\n" % ("open" if mode & 0o002 else "closed", r))
            sys.exit(0)
EOF
chmod 644 "$T/watch.py"

cat >"$T/script" <<'EOF'
umask 0
chmod 777 .
mkdir -p stash/dotgit/objects stash/dotgit/refs/heads
chmod 777 stash stash/dotgit
printf 'ref: refs/heads/main\n' >stash/dotgit/HEAD
printf '[core]\n\tfsmonitor = "touch planted-ran; false"\n' >stash/dotgit/config
printf 'ref: refs/heads/main\n' >HEAD
mkdir objects refs
i=1
while [ $i -le 100 ]; do
	: >HEAD.sbxrun-untrusted.$i; : >objects.sbxrun-untrusted.$i; : >refs.sbxrun-untrusted.$i
	i=$((i + 1))
done
: >ready
j=0
while [ ! -e armed ] && [ $j -lt 300 ]; do sleep 0.05; j=$((j + 1)); done
[ -e armed ]
EOF

# top_race CALLER ATTACKER: four checks.
top_race() {
	new_wd
	mkdir "$T/att-$2"
	chmod 777 "$T/att-$2"
	_as=
	if [ "$1" != root ]; then
		chown "$1": "$WD"
		mkdir -p "$T/tmp-$1"
		chown "$1": "$T/tmp-$1"
		_as="runuser -u $1 -- env TMPDIR=$T/tmp-$1"
	fi
	(
		wait_for "[ -e '$WD/ready' ]" 60 &&
		    as "$2" timeout 60 "$PY" "$T/watch.py" "$WD" "$T/att-$2/seen"
	) 2>"$T/watch.err" &
	_w=$!
	JAIL_PIDS="$JAIL_PIDS $_w"
	# shellcheck disable=SC2086
	$_as "$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 -w "$WD" \
	    <"$T/script" >"$T/run.out" 2>"$T/run.err" 3>"$T/run.diag"
	is "$?" 0 "$1: the run ended well" || diag "$(tail -n 3 "$T/run.err")"
	wait "$_w"
	[ -s "$T/watch.err" ] && diag "$(cat "$T/watch.err")"
	like "$(cat "$T/att-$2/seen" 2>&1)" "closed" \
	    "$1: when HEAD was moved aside the top was no longer writable by $2"
	like "$(cat "$T/att-$2/seen" 2>&1)" "refused" "$1: $2 could not rename its .git in"
	absent "$1: no .git is left at the workdir's top" "$WD/.git"
}

top_race root sbxtest
top_race sbxtest 4321

done_testing
