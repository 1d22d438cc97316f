# Whoever owns $TMPDIR must not choose what sbxrun puts back into the
# workdir (threat model, attacker 3; protect.md, "Landlock: a copy").
#
# Under landlock the built-in protected paths that exist are copied into a
# new directory in $TMPDIR before the run, and a protected entry the
# payload changed or removed is put back from that copy afterwards. A root
# caller may run with a $TMPDIR of another user's (here uid 65534's), who
# can rename root's directory there and put one of their own at its name:
# read by that name, the restore copied their file into the workdir as
# .envrc, root's, which direnv runs on the next cd. The copy is now read
# through the descriptor the keeper made it with.
# Then the removal of the run's temp workdir: the keeper checks that its
# name still leads to the directory it made, then removes the tree; the
# owner of $TMPDIR exchanges the name with a directory of root's there
# in between (tests/holdcall holds the check once it has returned, until
# the exchange is made). The removal must look at what it opens, not only
# at what the check saw.
# Verdicts on the host: .envrc's content after the run, root's files.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=6
if ! root_only "only a root caller runs with another user's \$TMPDIR" "$N_TESTS"; then
	done_testing
	exit 0
fi
UT=$JT/ut
mkdir "$UT"
chown 65534:65534 "$UT"
chmod 755 "$UT"
chmod 711 "$T"
echo 'echo safe' >"$WD/.envrc"
chmod 644 "$WD/.envrc"
# The payload removes .envrc, then waits (at most 30 s) for the swap.
printf '%s\n' 'rm -f .envrc; i=0
while [ ! -e go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done' >"$T/script"
TMPDIR=$UT "$SBXRUN" --backend landlock --diag none -w "$WD" <"$T/script" \
    >"$T/run.out" 2>"$T/run.err" &
run=$!
JAIL_PIDS="$JAIL_PIDS $run"
wait_for "[ ! -e '$WD/.envrc' ]" 30
# The owner of $TMPDIR moves the copy's directory away and makes its own
# at that name, holding an evil entry under every index a copy may use.
setpriv --reuid 65534 --regid 65534 --clear-groups sh -c '
	set -e
	for d in "$1"/sbxrun-protect.*; do
		mv "$d" "$d.moved"
		mkdir "$d"
		for i in 0 1 2 3 4 5 6 7 8 9; do echo "echo evil" >"$d/$i"; done
	done
	[ -e "$d.moved" ]' sh "$UT"
is "$?" 0 "the owner of \$TMPDIR swapped the copy's directory during the run"
: >"$WD/go"
wait "$run"
is "$?" 0 "the run ended well"
is "$(cat "$WD/.envrc" 2>&1)" "echo safe" ".envrc was put back from sbxrun's own copy"

# --- the removal of the temp workdir ---------------------------------------------
# root's directory in $TMPDIR, with a file its owner cannot remove.
mkdir "$UT/precious"
echo keep >"$UT/precious/file"
HOLDCALL=${HOLDCALL:-$(dirname "$SBXRUN")/tests/holdcall}
if [ ! -x "$HOLDCALL" ]; then
	fail "setting up: tests/holdcall is missing at $HOLDCALL (make check builds it)"
	done_testing
	exit 1
fi
# The keeper's check of the temp workdir is the first newfstatat on a name
# sbxrun.*; it is held once it has returned. (A sanitized build's leak
# check cannot run under ptrace: off for this run.)
printf '%s\n' 'touch made' >"$T/script"
rm -f "$T/held" "$T/go"
TMPDIR=$UT ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    "$HOLDCALL" -x -s newfstatat -m '*|sbxrun.*|*' -H "$T/held" -g "$T/go" -- \
    "$SBXRUN" --backend landlock --diag fd:3 <"$T/script" \
    >"$T/run.out" 2>"$T/run.err" 3>"$T/run.diag" &
run=$!
JAIL_PIDS="$JAIL_PIDS $run"
# Once the check is held, the owner of $TMPDIR exchanges the names.
wait_for "[ -e '$T/held' ]" 60
# (The system's python3: one under root's home is not uid 65534's to run.)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
setpriv --reuid 65534 --regid 65534 --clear-groups "$py" -c '
import ctypes, glob, os, sys
libc = ctypes.CDLL(None, use_errno=True)
ut = sys.argv[1]
wd = [p for p in glob.glob(ut + "/sbxrun.*") if os.path.exists(p + "/made")][0]
if libc.renameat2(-100, wd.encode(), -100, (ut + "/precious").encode(), 2) != 0:
    raise SystemExit("renameat2: " + os.strerror(ctypes.get_errno()))
' "$UT"
rc=$?
: >"$T/go"
wait "$run"
is "$rc:$?" 0:0 "the owner of \$TMPDIR exchanged the temp workdir with root's directory during the pause"
case $(cat "$T/held" 2>/dev/null) in
*'|sbxrun.'*) pass "the pause held the keeper's check" ;;
*) fail "the pause held the keeper's check"; diag "$(tail -n 5 "$T/run.err")" ;;
esac
is "$(cat "$UT"/*/file 2>&1)" keep "root's file in the directory put at the workdir's name stays"

done_testing
