# The process tree: a timeout kills the whole tree (124), nothing outlives
# sbxrun when the main process exits, and SIGTERM/SIGINT/SIGHUP (or
# SIGKILL) to sbxrun stop the tree. Each test starts descendants, loops
# that write their pid to a file in the workdir and then append to a
# heartbeat file there; the host waits for every loop to have started,
# and once sbxrun has returned, for every pid to be gone. (A loop starved
# of the CPU looks dead to a heartbeat watched for a while; its pid does
# not.)
. "$(dirname "$0")/lib.sh"

mkdir "$T/wd"
WD=$(cd "$T/wd" && pwd -P)
HB=$WD/hb
PIDS=$WD/pids
# (In a subshell $$ is the script's pid: the loop's own is its child's
# $PPID.)
LOOP='{ sh -c "echo \$PPID" >>pids; while :; do echo x >> hb; sleep 0.1; done; }'
# In the sandbox: wait (at most 60 s) until N loops have started.
loops_started() {
	printf 'i=0; while { [ $(cat pids 2>/dev/null | wc -l) -lt %s ] || [ ! -s hb ]; } && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done' "$1"
}

# start_bg ARG...: runs sbxrun in the background with the script in
# $T/stdin; sets BGPID. The diagnostics line goes to $T/bg.json.
start_bg() {
	"$SBXRUN" --diag "$T/bg.json" "$@" <"$T/stdin" >"$T/bg.out" 2>"$T/bg.err" &
	BGPID=$!
	BG_PIDS="$BG_PIDS $BGPID"
}

# reset: no pids, no heartbeat.
reset() {
	rm -f "$HB" "$PIDS"
}

# started N: N loops have written their pids and the heartbeat has begun
# (at most 20 s).
started() {
	wait_for "[ \$(cat '$PIDS' 2>/dev/null | wc -l) -ge $1 ] && [ \$(fsize '$HB') -gt 0 ]" 20
}

# alive: the loops still running, by the pids they wrote (a zombie is
# dead; a process with another working directory is not one of them,
# should the pid have been reused).
alive() {
	_al=
	for _p in $(cat "$PIDS" 2>/dev/null); do
		if [ "$(cut -d' ' -f3 "/proc/$_p/stat" 2>/dev/null)" != Z ] &&
		    [ "$(readlink "/proc/$_p/cwd" 2>/dev/null)" = "$WD" ]; then
			_al="$_al $_p"
		fi
	done
	echo "$_al"
}

# all_gone: every loop is gone (a dying tree gets 20 s; a survivor never
# goes).
all_gone() {
	wait_for '[ -z "$(alive)" ]' 20 || {
		diag "still running:$(alive)"
		return 1
	}
}

# --- Timeout. -------------------------------------------------------------------
reset
start=$(date +%s)
# (The loops start in milliseconds; 3 s leaves room for a busy machine.)
sbx_script "$LOOP &
(setsid sh -c '$LOOP' &)
( ( nohup sh -c 'trap \"\" TERM HUP INT; $LOOP' >/dev/null 2>&1 & ) & )
sleep 60" --backend none -w "$WD" -t 3s
end=$(date +%s)
is "$SBX_STATUS" 124 "a timeout exits 124"
is "$(jget timed_out):$(jget status)" "true:124" "diag: timed_out true, status 124"
# (A hang guard: the payload's sleep 60 did not end the run.)
ok "sbxrun returned before the script would have ended ($((end - start)) s, timeout 3 s)" \
	test $((end - start)) -lt 40
like "$(cat "$T/err")" "timed out" "sbxrun says the run timed out"
ok "(the three loops had started)" started 3
ok "after the timeout no loop runs: background, setsid'd and signal-ignoring daemons are dead" \
	all_gone

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
reset
sbx_script "(setsid sh -c '$LOOP' &)
$LOOP &
$(loops_started 2)
exit 0" --backend none -w "$WD"
is "$SBX_STATUS" 0 "the script exits 0 while descendants still run: status 0"
ok "(the two loops had started)" started 2
ok "descendants left behind by the script do not outlive sbxrun" all_gone
reset
sbxn -w "$WD" -- sh -c "($LOOP) & $(loops_started 1)"
is "$SBX_STATUS:$(fsize "$HB" | sed 's/^[1-9][0-9]*$/beating/')" "0:beating" \
	"a COMMAND leaving a loop behind: status 0 (the heartbeat had started)"
ok "... and the loop does not outlive sbxrun" all_gone

# --- Signals to sbxrun. ---------------------------------------------------------
for sig in TERM INT HUP; do
	reset
	printf '%s\n' "$LOOP &" "(setsid sh -c '$LOOP' &)" "$LOOP" >"$T/stdin"
	start_bg --backend none -w "$WD"
	if ok "SIG$sig: the loops run while sbxrun runs" started 3; then
		kill -s "$sig" "$BGPID"
		wait "$BGPID"
		st=$?
		ok "SIG$sig to sbxrun: it exits (status $st, not 0)" test "$st" -ne 0
		is "$(jget status "$T/bg.json")" "$st" "SIG$sig: the diagnostics line has that status"
		like "$(jget warnings "$T/bg.json")" "stopped by SIG$sig" "SIG$sig: a warning says why"
		ok "SIG$sig: the whole tree stopped" all_gone
	else
		kill -KILL "$BGPID" 2>/dev/null
		wait "$BGPID"
	fi
done

# A tree that ignores SIGTERM gets SIGKILL after the grace period.
reset
printf '%s\n' "trap '' TERM" "(trap '' TERM; $LOOP) &" "$LOOP" >"$T/stdin"
start_bg --backend none -w "$WD"
if ok "TERM-proof tree: the loops run" started 2; then
	start=$(date +%s)
	kill -TERM "$BGPID"
	wait "$BGPID"
	st=$?
	end=$(date +%s)
	is "$st" 137 "a tree that ignores SIGTERM is killed (SIGKILL: 137)"
	# (A hang guard: the grace is 2 s; the 137 says how it ended.)
	ok "... within 30 s ($((end - start)) s)" test $((end - start)) -le 30
	ok "... and it stopped" all_gone
else
	kill -KILL "$BGPID" 2>/dev/null
	wait "$BGPID"
fi

# SIGKILL to sbxrun: the tree dies with it.
reset
printf '%s\n' "(setsid sh -c '$LOOP' &)" "$LOOP" >"$T/stdin"
start_bg --backend none -w "$WD"
if ok "SIGKILL: the loops run" started 2; then
	kill -KILL "$BGPID"
	wait "$BGPID"
	ok "SIGKILL to sbxrun: the tree dies with it" all_gone
else
	kill -KILL "$BGPID" 2>/dev/null
	wait "$BGPID"
fi

# A second SIGTERM skips the grace period. The second is sent once the
# payload has seen the first (its trap wrote "termed"): two sent at once
# could be one pending signal. The grace is made ten minutes long
# (SBXRUN_TEST_GRACE, sbxrun(1)), so "at once" and "after the grace" are
# minutes apart, not a matter of how busy the machine is: the first
# SIGTERM alone leaves the trapping loop running, and a run that ends
# within the 60 s hang guard after the second was ended by it.
reset
rm -f "$WD/termed"
printf '%s\n' "trap 'echo t >termed' TERM" "$LOOP" >"$T/stdin"
export SBXRUN_TEST_GRACE=10m
start_bg --backend none -w "$WD"
unset SBXRUN_TEST_GRACE
# exited PID: the background sbxrun has exited (a zombie until waited for).
exited() {
	[ "$(cut -d' ' -f3 "/proc/$1/stat" 2>/dev/null)" = Z ] || [ ! -e "/proc/$1" ]
}
if ok "two SIGTERMs: the loop runs" started 1; then
	kill -TERM "$BGPID"
	ok "the first SIGTERM reached the payload's trap" wait_for "[ -s '$WD/termed' ]" 20
	sleep 3
	ok "3 s after the first SIGTERM, inside the 10 minute grace, sbxrun still runs" \
		test -z "$(exited "$BGPID" && echo gone)"
	ok "... and so does the loop" test -n "$(alive)"
	kill -TERM "$BGPID"
	ok "a second SIGTERM ends the run at once: well before the 10 minute grace" \
		wait_for "exited $BGPID" 60
	exited "$BGPID" || kill -KILL "$BGPID" 2>/dev/null
	wait "$BGPID"
	like "$(cat "$T/bg.json")" '"stopped by SIGTERM"' "... the diagnostics say it was stopped by SIGTERM"
	ok "... and the loop is gone" all_gone
else
	kill -KILL "$BGPID" 2>/dev/null
	wait "$BGPID"
fi

done_testing
