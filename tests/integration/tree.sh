# The process tree: a timeout kills the whole tree (124), nothing outlives
# sbxrun when the main process exits, and SIGTERM/SIGINT/SIGHUP (or
# SIGKILL) to sbxrun stop the tree. Each test starts descendants that
# append to a heartbeat file in the workdir, and the host watches that
# file: it must stop growing once sbxrun has returned.
. "$(dirname "$0")/lib.sh"

mkdir "$T/wd"
WD=$(cd "$T/wd" && pwd -P)
HB=$WD/hb
LOOP='while :; do echo x >> hb; sleep 0.1; done'

# start_bg ARG...: runs sbxrun in the background with the script in
# $T/stdin; sets BGPID. The diagnostics line goes to $T/bg.json.
start_bg() {
	"$SBXRUN" --diag "$T/bg.json" "$@" <"$T/stdin" >"$T/bg.out" 2>"$T/bg.err" &
	BGPID=$!
	BG_PIDS="$BG_PIDS $BGPID"
}

# beating: the heartbeat file has appeared and is growing.
beating() {
	wait_for "[ \$(fsize '$HB') -gt 0 ]" 10 && still_growing "$HB"
}

# --- Timeout. -------------------------------------------------------------------
rm -f "$HB"
start=$(date +%s)
sbx_script "$LOOP &
(setsid sh -c '$LOOP' &)
( ( nohup sh -c 'trap \"\" TERM HUP INT; $LOOP' >/dev/null 2>&1 & ) & )
sleep 60" --backend none -w "$WD" -t 1s
end=$(date +%s)
is "$SBX_STATUS" 124 "a timeout exits 124"
is "$(jget timed_out):$(jget status)" "true:124" "diag: timed_out true, status 124"
ok "sbxrun returned within 5 s of a 1 s timeout ($((end - start)) s)" test $((end - start)) -le 5
like "$(cat "$T/err")" "timed out" "sbxrun says the run timed out"
ok "(the heartbeat had started)" test "$(fsize "$HB")" -gt 0
nok "after the timeout nothing writes the heartbeat: background, setsid'd and signal-ignoring daemons are dead" \
	still_growing "$HB"

# A timeout and a SIGTERM remove the temporary workdir like any other end.
sbx_script 'sleep 30' --backend none -t 300ms
is "$SBX_STATUS:$(leftovers)" "124:" "a timed-out run leaves no workdir in TMPDIR"
printf 'echo x > "%s/started"; sleep 30\n' "$T" >"$T/stdin"
start_bg --backend none
if ok "a run without -w started" wait_for "[ -e '$T/started' ]" 10; then
	kill -TERM "$BGPID"
	wait "$BGPID"
	is "$(leftovers)" "" "SIGTERM to sbxrun: no workdir left in TMPDIR"
else
	kill -KILL "$BGPID" 2>/dev/null
	wait "$BGPID"
fi

# --- The main process exits: leftovers die. ---------------------------------
rm -f "$HB"
sbx_script "(setsid sh -c '$LOOP' &)
$LOOP &
sleep 0.5
exit 0" --backend none -w "$WD"
is "$SBX_STATUS" 0 "the script exits 0 while descendants still run: status 0"
ok "(the heartbeat had started)" test "$(fsize "$HB")" -gt 0
nok "descendants left behind by the script do not outlive sbxrun" still_growing "$HB"
rm -f "$HB"
sbxn -w "$WD" -- sh -c "($LOOP) & sleep 0.5"
is "$SBX_STATUS:$(fsize "$HB" | sed 's/^[1-9][0-9]*$/beating/')" "0:beating" \
	"a COMMAND leaving a loop behind: status 0 (the heartbeat had started)"
nok "... and the loop does not outlive sbxrun" still_growing "$HB"

# --- Signals to sbxrun. ---------------------------------------------------------
for sig in TERM INT HUP; do
	rm -f "$HB"
	printf '%s\n' "$LOOP &" "(setsid sh -c '$LOOP' &)" "$LOOP" >"$T/stdin"
	start_bg --backend none -w "$WD"
	if ok "SIG$sig: the heartbeat beats while sbxrun runs" beating; then
		kill -s "$sig" "$BGPID"
		wait "$BGPID"
		st=$?
		ok "SIG$sig to sbxrun: it exits (status $st, not 0)" test "$st" -ne 0
		is "$(jget status "$T/bg.json")" "$st" "SIG$sig: the diagnostics line has that status"
		like "$(jget warnings "$T/bg.json")" "stopped by SIG$sig" "SIG$sig: a warning says why"
		nok "SIG$sig: the whole tree stopped" still_growing "$HB"
	else
		kill -KILL "$BGPID" 2>/dev/null
		wait "$BGPID"
	fi
done

# A tree that ignores SIGTERM gets SIGKILL after the grace period.
rm -f "$HB"
printf '%s\n' "trap '' TERM" "(trap '' TERM; $LOOP) &" "$LOOP" >"$T/stdin"
start_bg --backend none -w "$WD"
if ok "TERM-proof tree: the heartbeat beats" beating; then
	start=$(date +%s)
	kill -TERM "$BGPID"
	wait "$BGPID"
	st=$?
	end=$(date +%s)
	is "$st" 137 "a tree that ignores SIGTERM is killed (SIGKILL: 137)"
	ok "... within 6 s ($((end - start)) s)" test $((end - start)) -le 6
	nok "... and it stopped" still_growing "$HB"
else
	kill -KILL "$BGPID" 2>/dev/null
	wait "$BGPID"
fi

# SIGKILL to sbxrun: the tree dies with it.
rm -f "$HB"
printf '%s\n' "(setsid sh -c '$LOOP' &)" "$LOOP" >"$T/stdin"
start_bg --backend none -w "$WD"
if ok "SIGKILL: the heartbeat beats" beating; then
	kill -KILL "$BGPID"
	wait "$BGPID"
	nok "SIGKILL to sbxrun: the tree dies with it" still_growing "$HB"
else
	kill -KILL "$BGPID" 2>/dev/null
	wait "$BGPID"
fi

# A second SIGTERM skips the grace period.
rm -f "$HB"
printf '%s\n' "trap '' TERM" "$LOOP" >"$T/stdin"
start_bg --backend none -w "$WD"
if ok "two SIGTERMs: the heartbeat beats" beating; then
	start=$(date +%s)
	kill -TERM "$BGPID"
	sleep 0.2
	kill -TERM "$BGPID"
	wait "$BGPID"
	end=$(date +%s)
	ok "a second SIGTERM kills at once ($((end - start)) s, the grace is 2 s)" test $((end - start)) -le 1
else
	kill -KILL "$BGPID" 2>/dev/null
	wait "$BGPID"
fi

done_testing
