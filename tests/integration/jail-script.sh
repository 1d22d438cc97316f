#!/bin/sh
# The --interp script file, WORKDIR/.sbxrun/NAME: sbxrun writes it as the
# caller (root included), in a directory the sandbox, a second sandbox on
# the same workdir or another process of the caller can change under it.
# Whatever is put there, sbxrun writes nothing outside the workdir's
# .sbxrun, changes no file it did not make, never blocks on a FIFO, and
# leaves nothing behind. Verdicts from the host: a canary's checksum, an
# outside directory that must stay empty, the workdir's listing.
. "$(dirname "$0")/jail-lib.sh"

me=$(id -u)

# An outside directory the run must never write into: root-only for a
# root caller (the case where writing there is a privilege gain).
OUT=$JT/outside
mkdir "$OUT"
chmod 700 "$OUT"
empty_out() {
	_l=$(ls -A "$OUT")
	if [ -n "$_l" ]; then
		fail "$1"
		diag "created outside the workdir: $_l"
		rm -rf "${OUT:?}"/* "$OUT"/.[!.]* 2>/dev/null
		return 1
	fi
	pass "$1"
}

# --- an ordinary run -----------------------------------------------------
new_wd
printf 'cat "$0" >/dev/null && echo ran-$(id -u)\n' >"$T/s.sh"
jail --interp sh -w "$WD" <"$T/s.sh"
is_status 0 "--interp runs (the file is readable by the sandbox's uid)"
like "$(cat "$T/out")" "ran-" "--interp: the script ran"
absent "--interp: .sbxrun made by sbxrun is removed after the run" "$WD/.sbxrun"

# --- a symlink left at .sbxrun/NAME ---------------------------------------
new_wd
echo precious >"$JT/canary"
before=$(fsum "$JT/canary")
mkdir "$WD/.sbxrun"
chmod 700 "$WD/.sbxrun"
ln -s "$JT/canary" "$WD/.sbxrun/main.sh"
jail --interp sh -w "$WD" <"$T/s.sh"
is_status 0 "--interp with a symlink at .sbxrun/main.sh: runs"
is "$(fsum "$JT/canary")" "$before" "--interp: a symlink at .sbxrun/main.sh is not written through"
absent "--interp: the leftover symlink is gone" "$WD/.sbxrun/main.sh"

# --- a FIFO left at .sbxrun/NAME ------------------------------------------
# Opening a FIFO for writing blocks until a reader comes, before any
# timeout is armed. The bound here is only against a hang of the test.
new_wd
mkdir "$WD/.sbxrun"
chmod 700 "$WD/.sbxrun"
mkfifo "$WD/.sbxrun/main.sh"
timeout 20 "$SBXRUN" --diag fd:3 --backend "$SBX_BACKEND" --interp sh -w "$WD" \
    <"$T/s.sh" >"$T/out" 2>"$T/err" 3>"$T/diag"
SBX_STATUS=$?
is_status 0 "--interp with a FIFO at .sbxrun/main.sh: does not stall, runs"

# --- .sbxrun is a symlink to a directory outside ----------------------------
new_wd
ln -s "$OUT" "$WD/.sbxrun"
jail --interp sh -w "$WD" <"$T/s.sh"
is_status 125 "--interp with .sbxrun a symlink: refused"
like "$(cat "$T/err")" "is not a directory of its own" "--interp: the refusal says why"
empty_out "--interp: nothing written through a symlink at .sbxrun"

# --- a directory at .sbxrun/NAME --------------------------------------------
new_wd
mkdir -p "$WD/.sbxrun/main.sh"
chmod 700 "$WD/.sbxrun"
jail --interp sh -w "$WD" <"$T/s.sh"
is_status 125 "--interp with a directory at .sbxrun/main.sh: refused"

# --- .sbxrun that others may write to ----------------------------------------
new_wd
mkdir "$WD/.sbxrun"
chmod 777 "$WD/.sbxrun"
jail --interp sh -w "$WD" <"$T/s.sh"
is_status 125 "--interp with a world-writable .sbxrun: refused"

# --- .sbxrun of another owner ------------------------------------------------
if root_only "chown to another uid"; then
	new_wd
	mkdir "$WD/.sbxrun"
	chmod 700 "$WD/.sbxrun"
	chown 65534 "$WD/.sbxrun"
	jail --interp sh -w "$WD" <"$T/s.sh"
	is_status 125 "--interp with .sbxrun owned by another uid: refused"
fi

# --- the script cannot be written (a full disk): nothing left ----------------
# RLIMIT_FSIZE makes the write fail (EFBIG) as a full disk would (ENOSPC),
# for any caller; SIGXFSZ is ignored so that the write returns an error.
new_wd
"$PY" -c 'import sys; sys.stdout.write("# " + "x" * 200000 + "\n")' >"$T/big.sh"
(
	trap '' XFSZ
	ulimit -f 64
	exec "$SBXRUN" --diag fd:3 --backend "$SBX_BACKEND" --interp sh -w "$WD" \
	    <"$T/big.sh" >"$T/out" 2>"$T/err" 3>"$T/diag"
)
SBX_STATUS=$?
is_status 125 "--interp, script not writable: 125"
like "$(cat "$T/err")" "cannot write" "--interp, script not writable: says so"
is "$(ls -A "$WD")" "" "--interp, script not writable: no .sbxrun left in the workdir"

# --- a racing swap of .sbxrun for a symlink ------------------------------------
# A host-side flipper (the caller's own uid, as a second sandbox on the
# same workdir would be) exchanges .sbxrun with a symlink to the outside
# directory as fast as it can, atomically (renameat2 RENAME_EXCHANGE), while
# sbxrun stores the script. Each run must either use the real directory or
# refuse; nothing may ever be created outside, nor left in the real
# directory. (The sandbox's own lookup of the script by name may meet the
# symlink too, inside its jail: a failure of the script is no verdict.)
new_wd
mkdir "$WD/.sbxrun"
chmod 700 "$WD/.sbxrun"
ln -s "$OUT" "$WD/lnk"
"$PY" - "$WD" "$T/flip.stop" <<'PYEOF' &
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
wd, stop = sys.argv[1], sys.argv[2]
os.chdir(wd)
a, b = b".sbxrun", b"lnk"
n = 0
# Bounded by count (and a stop file), never by the clock.
while n < 50000000:
    libc.renameat2(-100, a, -100, b, 2)
    n += 1
    if n % 2000 == 0 and os.path.exists(stop):
        break
PYEOF
FLIP_PID=$!
JAIL_PIDS="$JAIL_PIDS $FLIP_PID"
i=0
ran=0
refused=0
other=0
while [ "$i" -lt "${SCRIPT_RACE_RUNS:-60}" ]; do
	jail --interp sh -w "$WD" <"$T/s.sh"
	case $SBX_STATUS in
	125)
		[ "$refused" = 0 ] && diag "first refusal: $(tail -n 1 "$T/err")"
		refused=$((refused + 1)) ;;
	12[4-9] | 1[3-9][0-9] | 2[0-9][0-9])
		other=$((other + 1))
		diag "status $SBX_STATUS: $(tail -n 1 "$T/err")" ;;
	*) ran=$((ran + 1)) ;;
	esac
	i=$((i + 1))
done
: >"$T/flip.stop"
wait "$FLIP_PID"
diag "race: $ran ran, $refused refused, $other other"
empty_out "--interp racing a .sbxrun/symlink swap: nothing created outside the workdir"
is "$other" 0 "--interp racing a swap: every run ended (no timeout, no signal)"
if [ -d "$WD/.sbxrun" ] && [ ! -L "$WD/.sbxrun" ]; then real=$WD/.sbxrun; else real=$WD/lnk; fi
is "$(ls -A "$real")" "" "--interp racing a swap: no script left in the real .sbxrun"

# --- the same swap, made while sbxrun waits -----------------------------------
# The flipper above may, on a busy machine, rarely meet sbxrun's window.
# Here tests/holdcall stops sbxrun at a point of the store, the swap is
# made exactly once while it waits, then it goes on: (1) just after its
# mkdirat of .sbxrun returned (the name is then opened: a symlink there
# must be refused), (2) at the creation of the script in the directory it
# opened (that descriptor is the real directory, wherever its name went).
# Each case checks that the pause and the swap happened, besides the
# verdicts of the race above.
if root_only "tests/holdcall traces sbxrun (ptrace)" 8; then
	HOLDCALL=${HOLDCALL:-$(dirname "$SBXRUN")/tests/holdcall}
	[ -x "$HOLDCALL" ] || echo "Bail out! tests/holdcall is missing at $HOLDCALL (make check builds it)"
	[ -x "$HOLDCALL" ] || exit 1
	# (A sanitized build's leak check cannot run under ptrace.)
	NOLEAK="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	# SYSCALL, when (-x: once it returned), the call's pattern.
	for hold in "mkdirat -x *|.sbxrun|*" "openat entry */.sbxrun|*"; do
		# shellcheck disable=SC2086
		set -- $hold
		[ "$2" = -x ] && at=-x || at=
		new_wd
		mkdir "$WD/.sbxrun"
		chmod 700 "$WD/.sbxrun"
		ln -s "$OUT" "$WD/lnk"
		rm -f "$T/held" "$T/go"
		ASAN_OPTIONS=$NOLEAK "$HOLDCALL" $at -s "$1" -m "$3" -H "$T/held" -g "$T/go" -- \
		    "$SBXRUN" --backend "$SBX_BACKEND" --diag none --interp sh -w "$WD" \
		    <"$T/s.sh" >"$T/out" 2>"$T/err" &
		hc=$!
		JAIL_PIDS="$JAIL_PIDS $hc"
		wait_for "[ -e '$T/held' ] || ! kill -0 $hc 2>/dev/null" 60
		if [ -e "$T/held" ]; then
			swapped=$(exchange_as root "$WD/.sbxrun" "$WD/lnk")
		else
			swapped="not held"
		fi
		: >"$T/go"
		wait "$hc"
		rc=$?
		case $(cat "$T/held" 2>/dev/null) in
		"$WD"*) is "$swapped" swapped "--interp held at $1 of .sbxrun: the swap was made while it waited" ;;
		*)
			fail "--interp held at $1 of .sbxrun: the swap was made while it waited"
			diag "held: $(cat "$T/held" 2>/dev/null); $(tail -n 3 "$T/err")" ;;
		esac
		# As in the race: the script's own lookup by name may meet the
		# symlink inside the jail (its failure is no verdict); a timeout,
		# a signal or a failure to start it is.
		case $rc in
		125) pass "--interp held at $1: the run ended or refused (status $rc)" ;;
		12[4-9] | 1[3-9][0-9] | 2[0-9][0-9])
			fail "--interp held at $1: the run ended or refused (status $rc)"
			diag "$(tail -n 3 "$T/err")" ;;
		*) pass "--interp held at $1: the run ended or refused (status $rc)" ;;
		esac
		empty_out "--interp held at $1, .sbxrun swapped: nothing created outside the workdir"
		# The real directory is named lnk now.
		is "$(ls -A "$WD/lnk" 2>&1)" "" "--interp held at $1, .sbxrun swapped: no script left in the real .sbxrun"
	done
fi

# --- standard input that never ends, or is closed --------------------------------
# --interp reads all of standard input before the run: 64 MiB at most, and
# no longer than the timeout (found by review: /dev/zero wrote 2.5 GB
# into the workdir in 4 s, a FIFO never closed kept sbxrun past -t).
new_wd
head -c 80M /dev/zero >"$T/zero"
jail --interp sh -w "$WD" <"$T/zero"
rm -f "$T/zero"
is_status 125 "--interp with an 80 MiB standard input: refused"
like "$(cat "$T/err")" "larger than 64 MiB" "... the error says why"
absent "... and no script is left" "$WD/.sbxrun"
mkfifo "$T/never"
sleep 30 >"$T/never" &
HOLD=$!
JAIL_PIDS="$JAIL_PIDS $HOLD"
jail --interp sh -t 1 -w "$WD" <"$T/never"
kill "$HOLD" 2>/dev/null
is_status 125 "--interp -t 1 with a standard input never closed: refused"
like "$(cat "$T/err")" "did not end within the timeout" "... the error says why"
# Closed: descriptor 0 is /dev/null to sbxrun, never the next file it
# opens (found by review: under namespaces the copier fed the host's
# mount table, read on descriptor 0, to the script's shell).
"$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 >"$T/out" 2>"$T/err" 3>"$T/diag" 0<&-
SBX_STATUS=$?
is_status 0 "standard input closed: an empty script, run"
unlike "$(cat "$T/err")" "not found" "... and nothing of sbxrun's was run as the script"
timeout -s KILL 30 "$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 --interp cat -t 20 -w "$WD" \
    >"$T/out" 2>"$T/err" 3>"$T/diag" 0<&-
SBX_STATUS=$?
is_status 0 "--interp with standard input closed: an empty script, not a wait"

done_testing
