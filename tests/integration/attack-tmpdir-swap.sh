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
# in between (strace holds the check's return for 4 s). The removal must
# look at what it opens, not only at what the check saw.
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
# Which newfstatat of the keeper is its check of the temp workdir (the
# first on a name sbxrun.*), counted in a run without a pause.
echo true | TMPDIR=$UT ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -qq -o "$T/count.st" -e trace=newfstatat \
    "$SBXRUN" --backend landlock --diag none >/dev/null 2>&1
n=$(awk '/newfstatat\(/ { k[$1]++ } /newfstatat\(.*, "sbxrun\.[^"]*", / { print k[$1]; exit }' \
    "$T/count.st")
if [ -z "$n" ]; then
	fail "setting up: no check of the temp workdir in a run"
	done_testing
	exit 1
fi
printf '%s\n' 'touch made' >"$T/script"
TMPDIR=$UT ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -qq -o "$T/held.st" -e trace=newfstatat \
    -e inject=newfstatat:delay_exit=4000000:when="$n" \
    "$SBXRUN" --backend landlock --diag fd:3 <"$T/script" \
    >"$T/run.out" 2>"$T/run.err" 3>"$T/run.diag" &
run=$!
JAIL_PIDS="$JAIL_PIDS $run"
# The owner of $TMPDIR waits for the run's file, then for the pause (the
# keeper's check has returned once strace holds it: 1 s after the file
# shows is well inside it), and exchanges the names.
wait_for "ls '$UT'/sbxrun.*/made >/dev/null 2>&1" 30
sleep 1
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
is "$?" 0 "the owner of \$TMPDIR exchanged the temp workdir with root's directory"
wait "$run"
grep -q DELAYED "$T/held.st" && pass "the pause held the keeper's check" ||
	fail "the pause held the keeper's check"
is "$(cat "$UT"/*/file 2>&1)" keep "root's file in the directory put at the workdir's name stays"

done_testing
