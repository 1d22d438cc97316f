# A second root run on the same workdir must not turn the lend or the
# hand-back of the first into a change of a file outside it (threat model,
# attacker 2; handback.md, "Every entry through a descriptor").
#
# A root caller's landlock workdir is lent to uid 65534 and handed back by
# a walk. If that walk changed an entry by its name (look with statx,
# change with fchownat by name) it would rely on the directory staying
# root's between the two calls, and it does not: a second run lends the
# same directory meanwhile and its sandbox (uid 65534, the same workdir in
# its Landlock domain) exchanges the looked-at name with a hard link to a
# root file outside the workdir, which the lend never gives away.
#
# tests/holdcall holds the first run's change of that entry (the first
# fchownat of that entry to that uid) until the test says go; meanwhile
# the second run starts, lends, and its payload exchanges the names with
# renameat2(RENAME_EXCHANGE); then the held call goes on. The pause ends
# on the attack's completion, not on a clock, so a busy machine cannot
# make the attacker miss it.
#   1. the lend: the first run's payload then writes the name; the file
#      outside must keep its content and owner;
#   2. the hand-back: the first run gives the entry back with the group it
#      had (4242); the file outside must keep its group;
#   3. the restore of a protected directory the payload renamed away: a
#      uid-65534 process exchanges the directory sbxrun just made with
#      another protected one, which must not be filled nor change mode.
# 1 and 2 fail when the walk visits entries by name (tried); through a
# descriptor opened before the pause, the held call changes the entry that
# was looked at, wherever the other sandbox moved it.
# Verdicts on the host: the outside files' checksum, owner and group;
# the preconditions (the pause hit that entry, the exchange was made
# during it) are checked too, so that a run that missed the race fails.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"
. "$(dirname "$0")/rootwd-lib.sh"

N_TESTS=12
rootwd_begin "$N_TESTS" "the exchange of two names" || exit 0
HOLDCALL=${HOLDCALL:-$(dirname "$SBXRUN")/tests/holdcall}
[ -x "$HOLDCALL" ] || setup_failed "tests/holdcall is missing at $HOLDCALL (make check builds it)"
chmod 711 "$T"
# (A sanitized build's leak check cannot run under ptrace: it is off for
# the runs under tests/holdcall.)
NOLEAK="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# The second run's payload: exchange D/x and D/hl once, say so in the
# workdir, then wait (at most 60 s) for the first run to be done with it.
SWAP='python3 -c "
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.renameat2(-100, b\"D/x\", -100, b\"D/hl\", 2) != 0:
    raise SystemExit(\"renameat2: \" + os.strerror(ctypes.get_errno()))
open(\"swapped\", \"w\").close()
end = time.time() + 60
while time.time() < end and not os.path.exists(\"first-done\"):
    time.sleep(0.05)
"'

# race ENTRY UID PAYLOAD: the first run in the background, its change of
# D/ENTRY to UID (by the entry's descriptor or by name in D) held; once it
# is held, the second run with $SWAP; once that has exchanged the names,
# the held call goes on. Waits for both.
race() {
	rm -f "$T/held" "$T/go"
	ASAN_OPTIONS=$NOLEAK "$HOLDCALL" -s fchownat -m "*/D/$1||$2|*" -m "*/D|$1|$2|*" \
	    -H "$T/held" -g "$T/go" -- \
	    "$SBXRUN" --backend landlock --diag none -w "$WD" -- sh -c "$3" \
	    >"$T/first.out" 2>"$T/first.err" &
	first=$!
	JAIL_PIDS="$JAIL_PIDS $first"
	wait_for "[ -e '$T/held' ]" 60
	printf '%s\n' "$SWAP" >"$T/swap"
	"$SBXRUN" --backend landlock --diag none -w "$WD" <"$T/swap" \
	    >"$T/second.out" 2>"$T/second.err" &
	second=$!
	JAIL_PIDS="$JAIL_PIDS $second"
	wait_for "[ -e '$WD/swapped' ] || ! kill -0 $second 2>/dev/null" 60
	: >"$T/go"
	wait "$first"
	first_rc=$?
	: >"$WD/first-done"
	wait "$second"
	second_rc=$?
}

# held ENTRY: the call held changed ENTRY (by its descriptor's path or by
# name below D), and both runs ended well (tests/holdcall says 3 when it
# held nothing or was not told to go on).
held() {
	_l=$(cat "$T/held" 2>/dev/null)
	case $_l in
	*"/D/$1||"* | *"/D|$1|"*)
		pass "the pause held the change of D/$1" ;;
	*)
		fail "the pause held the change of D/$1"
		diag "held: ${_l:-nothing}"
		diag "$(tail -n 5 "$T/first.err" "$T/second.err")" ;;
	esac
	if [ "$first_rc" = 0 ] && [ "$second_rc" = 0 ] && [ -e "$WD/swapped" ]; then
		pass "both runs ended and the second exchanged the names"
	else
		fail "both runs ended and the second exchanged the names"
		diag "status $first_rc / $second_rc"
		diag "$(tail -n 5 "$T/first.err" "$T/second.err")"
	fi
}

# --- 1. the lend ---------------------------------------------------------------------------
new_wd
mkdir "$WD/D"
echo orig >"$WD/D/x"
chmod 644 "$WD/D/x"
uniq_tag lend >"$JT/outside-lend"
chmod 644 "$JT/outside-lend"
ln "$JT/outside-lend" "$WD/D/hl" || setup_failed "hard link"
before=$(fsum "$JT/outside-lend")
race x 65534 '[ -e swapped ] && echo swapped-first; printf PWNED >>D/x; echo wrote=$?'
held x
grep -q swapped-first "$T/first.out" && pass "the exchange came before the lend ended" ||
	fail "the exchange came before the lend ended"
is "$(fsum "$JT/outside-lend")" "$before" "the file outside was not written through the workdir"
is "$(stat -c %u:%g "$JT/outside-lend")" 0:0 "... and is still root's"

# --- 2. the hand-back ------------------------------------------------------------------------
new_wd
mkdir "$WD/D"
echo orig >"$WD/D/x"
chmod 644 "$WD/D/x"
chgrp 4242 "$WD/D/x"
uniq_tag handback >"$JT/outside-back"
chmod 640 "$JT/outside-back"
ln "$JT/outside-back" "$WD/D/hl" || setup_failed "hard link"
race x 0 true
held x
is "$(stat -c %u:%g "$JT/outside-back")" 0:0 "the file outside kept its owner and group"

# --- 3. the restore of a protected directory --------------------------------------------------
# The payload renames .vscode away; after the run sbxrun puts the copy it
# took before back: mkdirat(".vscode", 0700), then opens that name and
# fills it. tests/holdcall holds the first mkdirat of .vscode once it has
# returned; a uid-65534 process (what a second root run's sandbox is)
# exchanges the new name with .idea, another protected directory, which
# the lend leaves root's; then the call goes on. The opened directory must
# be checked as the one made: .idea (0700, one file) must keep its mode
# and its single entry.
new_wd
mkdir "$WD/.vscode" "$WD/.idea"
echo '{}' >"$WD/.vscode/settings.json"
echo secret >"$WD/.idea/workspace.xml"
chmod 755 "$WD/.vscode"
chmod 700 "$WD/.idea"
idea_ino=$(stat -c %i "$WD/.idea")
rm -f "$T/held" "$T/go"
echo 'mv .vscode .vscode-gone' >"$T/script"
ASAN_OPTIONS=$NOLEAK "$HOLDCALL" -x -s mkdirat -m '*|.vscode|*' -H "$T/held" -g "$T/go" -- \
    "$SBXRUN" --backend landlock --diag none -w "$WD" <"$T/script" \
    >"$T/first.out" 2>"$T/first.err" &
first=$!
JAIL_PIDS="$JAIL_PIDS $first"
wait_for "[ -e '$T/held' ]" 60
# The other process (uid 65534) exchanges the new .vscode with .idea.
if [ -d "$WD/.vscode-gone" ]; then
	exchange_as 65534 "$WD/.vscode" "$WD/.idea" >"$T/swapper.out"
else
	echo "not renamed away" >"$T/swapper.out"
fi
: >"$T/go"
wait "$first"
first_rc=$?
case $(cat "$T/held" 2>/dev/null) in
*'|.vscode|'*) pass "the pause held the mkdirat of .vscode" ;;
*) fail "the pause held the mkdirat of .vscode"; diag "$(tail -n 5 "$T/first.err")" ;;
esac
is "$first_rc:$(cat "$T/swapper.out")" "0:swapped" \
    "the run ended and the other process exchanged the new .vscode with .idea"
idea=$(find "$WD" -maxdepth 1 -inum "$idea_ino")
is "$(ls -A "$idea" 2>&1 | tr '\n' ' ')" "workspace.xml " \
    "nothing was copied into .idea, wherever its name went"
is "$(stat -c %a "$idea")" 700 "... and its mode is still 0700"

done_testing
