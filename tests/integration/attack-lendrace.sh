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
# strace holds the first run's change of that entry for 4 s (an injected
# delay on the Nth fchownat), the second run starts, lends, and its payload
# exchanges the names with renameat2(RENAME_EXCHANGE); then the held call
# goes on.
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
if ! command -v strace >/dev/null 2>&1; then
	skip "strace is missing (./bootstrap installs it)" "$N_TESTS"
	done_testing
	exit 0
fi
chmod 711 "$T"

# The second run's payload: exchange D/x and D/hl once, say so in the
# workdir, then wait (at most 30 s) for the first run to be done with it.
SWAP='python3 -c "
import ctypes, os, time
libc = ctypes.CDLL(None, use_errno=True)
if libc.renameat2(-100, b\"D/x\", -100, b\"D/hl\", 2) != 0:
    raise SystemExit(\"renameat2: \" + os.strerror(ctypes.get_errno()))
open(\"swapped\", \"w\").close()
end = time.time() + 30
while time.time() < end and not os.path.exists(\"first-done\"):
    time.sleep(0.05)
"'

# nth_change ENTRY UID: which fchownat of a run (payload true) gives the
# entry D/ENTRY to UID, by its descriptor or by name: counted in a run
# without a pause, so that the order of the walk is not written here.
nth_change() {
	echo true | ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -y -qq -o "$T/count.st" -e trace=fchownat \
	    "$SBXRUN" --backend landlock --diag none -w "$WD" >/dev/null 2>&1
	grep -n "fchownat(" "$T/count.st" |
	    grep -E "(/D/$1>, \"\"|/D>, \"$1\"), $2," | head -n 1 | cut -d: -f1
}

# race ENTRY UID PAYLOAD: the first run, its change of D/ENTRY to UID held
# 4 s, in the background (strace's log in $T/first.st), and 1 s later the
# second run with $SWAP; waits for both. (A sanitized build's leak check
# cannot run under ptrace: it is off for the runs under strace.)
race() {
	_n=$(nth_change "$1" "$2")
	[ -n "$_n" ] || setup_failed "no fchownat of D/$1 to uid $2 in a run"
	shift 2
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -y -qq -o "$T/first.st" -e trace=fchownat \
	    -e inject=fchownat:delay_enter=4000000:when="$_n" \
	    "$SBXRUN" --backend landlock --diag none -w "$WD" -- sh -c "$1" \
	    >"$T/first.out" 2>"$T/first.err" &
	first=$!
	JAIL_PIDS="$JAIL_PIDS $first"
	sleep 1
	printf '%s\n' "$SWAP" >"$T/swap"
	"$SBXRUN" --backend landlock --diag none -w "$WD" <"$T/swap" \
	    >"$T/second.out" 2>"$T/second.err" &
	second=$!
	JAIL_PIDS="$JAIL_PIDS $second"
	wait "$first"
	first_rc=$?
	: >"$WD/first-done"
	wait "$second"
	second_rc=$?
}

# held ENTRY: the call strace held changed ENTRY (by its descriptor's path
# or by name below D), and both runs ended well.
held() {
	_l=$(grep DELAYED "$T/first.st")
	case $_l in
	*"/D/$1>, \"\""* | *"/D>, \"$1\""*)
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
# fills it. strace holds the mkdirat's return for 4 s; a uid-65534 process
# (what a second root run's sandbox is) exchanges the new name with .idea,
# another protected directory, which the lend leaves root's. The opened
# directory must be checked as the one made: .idea (0700, one file) must
# keep its mode and its single entry.
new_wd
mkdir "$WD/.vscode" "$WD/.idea"
echo '{}' >"$WD/.vscode/settings.json"
echo secret >"$WD/.idea/workspace.xml"
chmod 755 "$WD/.vscode"
chmod 700 "$WD/.idea"
idea_ino=$(stat -c %i "$WD/.idea")
# Which mkdirat of the process making .vscode again (strace counts per
# process) it is, counted in a run without a pause (which restores it, and
# leaves the renamed one).
echo 'mv .vscode .vscode-gone' | ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -y -qq -o "$T/count.st" -e trace=mkdirat \
    "$SBXRUN" --backend landlock --diag none -w "$WD" >/dev/null 2>&1
rm -rf "$WD/.vscode-gone"
n=$(awk '/mkdirat\(/ { k[$1]++ } /, "\.vscode", / { print k[$1]; exit }' "$T/count.st")
[ -n "$n" ] || setup_failed "no mkdirat of .vscode in a run that removed it"
# The other process: waits (at most 30 s) for the renamed one and the new
# one, then exchanges the new one with .idea.
# (The system's python3: one under root's home is not uid 65534's to run.)
py=/usr/bin/python3
[ -x "$py" ] || py=$(command -v python3)
setpriv --reuid 65534 --regid 65534 --clear-groups "$py" -c '
import ctypes, os, sys, time
w = sys.argv[1]
libc = ctypes.CDLL(None, use_errno=True)
end = time.time() + 30
while time.time() < end:
    if os.path.isdir(w + "/.vscode-gone") and os.path.isdir(w + "/.vscode"):
        if libc.renameat2(-100, (w + "/.vscode").encode(), -100, (w + "/.idea").encode(), 2) == 0:
            print("swapped")
        else:
            print("renameat2: " + os.strerror(ctypes.get_errno()))
        break
    time.sleep(0.01)
' "$WD" >"$T/swapper.out" 2>&1 &
swapper=$!
JAIL_PIDS="$JAIL_PIDS $swapper"
echo 'mv .vscode .vscode-gone' |
    ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
    strace -f -y -qq -o "$T/first.st" -e trace=mkdirat \
    -e inject=mkdirat:delay_exit=4000000:when="$n" \
    "$SBXRUN" --backend landlock --diag none -w "$WD" >"$T/first.out" 2>"$T/first.err"
first_rc=$?
wait "$swapper"
_l=$(grep DELAYED "$T/first.st")
case $_l in
*', ".vscode", '*) pass "the pause held the mkdirat of .vscode" ;;
*) fail "the pause held the mkdirat of .vscode"; diag "held: ${_l:-nothing}" ;;
esac
is "$first_rc:$(cat "$T/swapper.out")" "0:swapped" \
    "the run ended and the other process exchanged the new .vscode with .idea"
idea=$(find "$WD" -maxdepth 1 -inum "$idea_ino")
is "$(ls -A "$idea" 2>&1 | tr '\n' ' ')" "workspace.xml " \
    "nothing was copied into .idea, wherever its name went"
is "$(stat -c %a "$idea")" 700 "... and its mode is still 0700"

done_testing
