# Lifecycle (sbxrun(1), LIMITS and SIGNALS): nothing outlives sbxrun. The timeout kills
# the whole tree, daemons included (124); leftovers die when the main
# process exits; SIGTERM/SIGINT/SIGHUP stop the tree (TERM, then KILL
# after a short grace); a SIGKILLed sbxrun takes the tree with it. Each
# case runs a setsid'd, double-forked daemon appending to a heartbeat
# file in the workdir: after sbxrun is gone, the file must stop growing
# and no process may carry the daemon's marker. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

now_ms() {
	echo $(($(date +%s%N) / 1000000))
}

# The time bounds below are hang guards, not speed checks: each payload
# would otherwise run for 30 s or more (a sleep, an endless loop, a
# daemon), so 20 s tells "sbxrun ended it" from "it ran on" however busy
# the machine is; the status and the diagnostics say why it ended.

# running MARKER: a process carries MARKER.
running() {
	pgrep -f "$1" >/dev/null
}

# tree_dead DESC MARKER: the heartbeat stopped and nothing survives.
tree_dead() {
	nok "$1: the heartbeat stops" still_growing "$WD/hb"
	no_survivors "$1: no process outlives sbxrun" "$2"
}

# --- --timeout kills the whole tree ----------------------------------------------
new_wd
m=$(uniq_tag daemon)
t0=$(now_ms)
jail_sh "$(daemon_code "$WD/hb" "$m")
sleep 30" --timeout 1s -w "$WD"
t1=$(now_ms)
is_status 124 "--timeout 1s: exit status 124"
ok "--timeout 1s: sbxrun returns within 20 s ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 20000
is "$(jget timed_out)" true "--timeout 1s: diagnostics say timed_out"
ok "--timeout 1s: the daemon had started (heartbeat written)" test -s "$WD/hb"
tree_dead "--timeout 1s" "$m"

# --- an infinite loop ------------------------------------------------------------------
new_wd
m=$(uniq_tag loop)
t0=$(now_ms)
jail --timeout 1s -w "$WD" -- /bin/sh -c 'while :; do :; done' "$m"
t1=$(now_ms)
is_status 124 "an infinite loop is killed on the deadline (124)"
ok "the loop is stopped within 20 s ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 20000
no_survivors "no looping process is left" "$m"

# --- leftovers die with the main process -------------------------------------------------
for variant in plain IGNTERM; do
	new_wd
	m=$(uniq_tag leftover)
	t0=$(now_ms)
	jail_sh "$(daemon_code "$WD/hb" "$m" "$variant")
exit 0" -w "$WD"
	t1=$(now_ms)
	is_status 0 "leftover daemon ($variant): the script's own status 0"
	ok "leftover daemon ($variant): sbxrun returns within 20 s ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 20000
	ok "leftover daemon ($variant): it had started" test -s "$WD/hb"
	tree_dead "leftover daemon ($variant)" "$m"
done

# --- signals to sbxrun -----------------------------------------------------------------------
for sig in TERM INT HUP; do
	new_wd
	m=$(uniq_tag sig$sig)
	printf '%s\nsleep 60\n' "$(daemon_code "$WD/hb" "$m")" >"$T/script.bg"
	BG_STDIN=$T/script.bg
	sbx_bg -w "$WD"
	BG_STDIN=
	if ! wait_for "[ -s '$WD/hb' ]" 30; then
		diag "the daemon did not start: $(cat "$T/bg.err")"
	fi
	t0=$(now_ms)
	kill -s "$sig" "$SBX_PID"
	sbx_bg_wait 30
	t1=$(now_ms)
	ok "SIG$sig to sbxrun: it exits within 20 s ($((t1 - t0)) ms)" test $((t1 - t0)) -lt 20000
	# The tree gets SIGTERM whichever of the three sbxrun received.
	is "$SBX_STATUS" 143 "SIG$sig to sbxrun: status 143 (the child was stopped by SIGTERM)"
	tree_dead "SIG$sig to sbxrun" "$m"
done

# A daemon that ignores SIGTERM gets SIGKILL after the grace.
new_wd
m=$(uniq_tag ignterm)
printf '%s\nsleep 60\n' "$(daemon_code "$WD/hb" "$m" IGNTERM)" >"$T/script.bg"
BG_STDIN=$T/script.bg
sbx_bg -w "$WD"
BG_STDIN=
wait_for "[ -s '$WD/hb' ]" 30
t0=$(now_ms)
kill -TERM "$SBX_PID"
sbx_bg_wait 30
t1=$(now_ms)
ok "SIGTERM, daemon ignoring TERM: sbxrun exits within 20 s ($((t1 - t0)) ms)" \
    test $((t1 - t0)) -lt 20000
tree_dead "SIGTERM, daemon ignoring TERM" "$m"

# --- sbxrun SIGKILLed ----------------------------------------------------------------------
new_wd
m=$(uniq_tag sigkill)
printf '%s\nsleep 60\n' "$(daemon_code "$WD/hb" "$m" IGNTERM)" >"$T/script.bg"
BG_STDIN=$T/script.bg
sbx_bg -w "$WD"
BG_STDIN=
wait_for "[ -s '$WD/hb' ]" 10
ok "kill -9 of sbxrun: the daemon was running" running "$m"
kill -KILL "$SBX_PID"
sbx_bg_wait 30
# The kernel ends the tree after sbxrun is gone, not before its status is
# reaped: give it up to 20 s (no_survivors fails if anything is left).
wait_for "! running '$m'" 20
tree_dead "kill -9 of sbxrun" "$m"

# --- usage of a tree killed on its deadline -------------------------------------------------
# The CPU time of a busy loop killed by --timeout still counts (for the
# whole sandboxed tree), also when it ran in a child of the script. The
# loop records in the workdir the CPU time it has had so far; the host
# compares the diagnostics with the last record, so a busy machine (less
# CPU time in the same wall-clock window) cannot fail the check.
new_wd
mkdir -m 777 "$WD/d"
cat >"$WD/d/burn.py" <<'EOF'
import os, time
while True:
    end = time.process_time() + 0.02
    while time.process_time() < end:
        sum(range(20000))
    with open("d/cpu.tmp", "w") as f:
        f.write("%d\n" % int(time.process_time() * 1000))
    os.rename("d/cpu.tmp", "d/cpu")
EOF
jail_sh 'python3 d/burn.py & wait' -t 1s -w "$WD"
is_status 124 "a busy tree is killed on its deadline"
burnt=$(cat "$WD/d/cpu" 2>/dev/null || echo 0)
ok "the loop had CPU time before the kill ($burnt ms)" test "$burnt" -gt 0
used=$(($(jget cpu_user_ms) + $(jget cpu_sys_ms)))
ok "its CPU time counts after the kill ($used ms >= the $burnt ms it recorded)" \
    test "$used" -ge "$burnt"

# --- the caller's umask, file-size limit, and a file stdout that cannot grow ----
# A umask that takes an owner bit away made sbxrun's own temp dirs
# unusable: the run failed ("replaced right after it was made") and left
# them behind (found by review). sbxrun works under 022; the payload
# still gets the caller's umask.
mkdir -p "$JT/tmpu"
printf 'umask\n' >"$T/um.sh"
for m in 0177 0777; do
	(
		umask "$m"
		TMPDIR=$JT/tmpu "$SBXRUN" --backend "$SBX_BACKEND" --diag none <"$T/um.sh" \
		    >"$T/um.out" 2>"$T/um.err"
		echo "$?" >"$T/um.st"
	)
	is "$(cat "$T/um.st")" 0 "umask $m: the run works"
	is "$(cat "$T/um.out")" "$m" "... and the payload has the caller's umask"
	is "$(ls -A "$JT/tmpu")" "" "... and nothing is left in TMPDIR"
done
# Past a file-size limit of the caller's, sbxrun is not killed (SIGXFSZ)
# with the line lost: a --diag file without room is refused before the
# run, and standard output that cannot grow is said in the warnings,
# where a direct write would have failed too (found by review).
printf 'head -c 20000 /dev/zero\n' >"$T/big.sh"
(
	ulimit -f 8
	"$SBXRUN" --backend "$SBX_BACKEND" --diag "$T/fs.json" <"$T/big.sh" >"$T/fs.out" 2>"$T/fs.err"
	echo "$?" >"$T/fs.st"
)
is "$(cat "$T/fs.st")" 125 "a file-size limit of 8 KiB: --diag PATH is refused before the run"
like "$(cat "$T/fs.err")" "leaves no room for the diagnostics line" "... and the error says why"
(
	ulimit -f 4
	"$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 <"$T/big.sh" >"$T/fs.out" 2>"$T/fs.err" \
	    3>"$T/fs.diag"
	echo "$?" >"$T/fs.st"
)
# The payload's own status: 0, or SIGPIPE's 141 when its write came after
# the copier closed the pipe (as a direct write would have hit the limit).
ok "a file-size limit of 4 KiB on standard output: the run ends (status $(cat "$T/fs.st"))" \
    grep -qxE '0|141' "$T/fs.st"
like "$(jget warnings "$T/fs.diag")" "standard output could not be written (File too large)" \
    "... and the warnings say what was dropped"

done_testing
