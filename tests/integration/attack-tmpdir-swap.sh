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
# Verdict on the host: .envrc's content after the run.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=3
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

done_testing
