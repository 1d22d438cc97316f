# Two runs on one workdir (threat model: a second sandbox on the same
# workdir). Run A's sandbox makes .git at the top; run B starts while A
# runs, finds .git there and keeps it read-only in its jail. A ends, and
# A's keeper moves that .git aside on the host: under namespaces B's
# read-only mount goes with the entry it covers, and the name .git is
# free in B's view. B's sandbox then made a .git of its own, whose config
# runs a command in the caller's next git command there, and B's guard,
# which compared names only (.git was there before and after), left it.
# Now a top-level name that is another file after the run than before it
# counts as made in the run and is moved aside; so does any protected
# name the jail held read-only that way (.envrc here).
# Verdict on the host: after both runs, no .git holding B's config at the
# top of the workdir, and B's warning names it. (Under landlock B's
# mkdir of .git is refused by its supervisor: the same verdicts hold.)
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=7
new_wd
chmod 777 "$WD" # both runs' sandboxes write their markers there
# A: makes .git, says so, and waits (60 s at most, a hang guard) for B.
a='mkdir .git && echo a >.git/a && echo a >.envrc && : >a-ready
i=0; while [ ! -e b-ready ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done'
# B: says it runs, waits until .git is gone from its view (A's end), then
# makes its own.
b=': >b-ready
i=0; while [ -e .git ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
mkdir .git 2>/dev/null && printf "[core]\n\tfsmonitor = touch pwned\n" >.git/config && echo B-MADE
echo "echo evil" >.envrc 2>/dev/null && echo B-ENVRC
exit 0'
printf '%s\n' "$a" >"$T/a.sh"
printf '%s\n' "$b" >"$T/b.sh"
"$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --diag fd:3 <"$T/a.sh" >"$T/a.out" 2>"$T/a.err" \
    3>"$T/a.diag" &
apid=$!
JAIL_PIDS="$JAIL_PIDS $apid"
wait_for "[ -e '$WD/a-ready' ]" 60
"$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --diag fd:3 <"$T/b.sh" >"$T/b.out" 2>"$T/b.err" \
    3>"$T/b.diag" &
bpid=$!
JAIL_PIDS="$JAIL_PIDS $bpid"
wait "$apid"
is "$?" 0 "run A ended well"
wait "$bpid"
is "$?" 0 "run B ended well"
diag "A: $(jget warnings "$T/a.diag")"
diag "B: $(jget warnings "$T/b.diag") $(cat "$T/b.out")"
ok "A's .git was moved aside" [ -e "$WD/.git.sbxrun-untrusted.1/a" ]
nok "no .git holding B's config is left at the top" grep -qs fsmonitor "$WD/.git/config"
ok "A's .envrc was moved aside" [ -e "$WD/.envrc.sbxrun-untrusted.1" ]
nok "no .envrc of B's is left at the top (a protected name B held read-only)" \
    grep -qs evil "$WD/.envrc"
if grep -q B-MADE "$T/b.out"; then
	like "$(jget warnings "$T/b.diag")" "moved aside" "B's .git is named in B's warnings"
else
	ok "B could not make a .git (its supervisor refused)" true
fi
done_testing
