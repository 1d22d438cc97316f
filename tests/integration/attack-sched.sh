# The sandbox must not re-schedule or re-limit anything outside itself:
# not sbxrun, not its keeper, not another process of the uid the payload
# runs as, not the caller's process group, not every process of that uid
# at once. Under the landlock backend there is no pid namespace, and the
# kernel judges setpriority, sched_setscheduler, sched_setaffinity,
# ioprio_set and prlimit64 by uid alone; sbxrun's supervisor lets them act
# only on the calling process (doc/design/supervisor.md). Under namespaces
# the pid namespace hides every target but the jail's init, which the
# filter keeps out of reach (attack-renice.sh).
# Every verdict is read on the host while the payload waits: nice value,
# policy, CPU mask, I/O class and limits in /proc. The payload's own
# changes (nice, limits, affinity on itself) must still work, read on the
# host too.
# Run for $SBX_BACKEND (default namespaces), as root and as another user.
. "$(dirname "$0")/jail-lib.sh"

plan 20

TAG=$(uniq_tag sched)
payload_uid_sleepers 1 "30$$"
VICTIM=$(pgrep -f "sleep 30$$" | while read -r p; do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sleep ] && echo "$p"
done | tail -n 1)
[ -n "$VICTIM" ] || { echo "Bail out! no victim process"; exit 1; }

nice_of() { ps -o ni= -p "$1" | tr -d ' '; }
policy_of() { chrt -p "$1" 2>/dev/null | sed -n 's/.*scheduling policy: //p'; }
limit_of() { sed -n "s/^$2  *\([0-9a-z]*\)  *\([0-9a-z]*\).*/\1:\2/p" "/proc/$1/limits"; }
ioclass_of() { ionice -p "$1" 2>/dev/null | cut -d: -f1; }

HERE_MASK=$(status_field $$ Cpus_allowed_list)
# What sbxrun, its keeper and the victim inherit from this shell (a
# caller may run the suite under nice or with a CPU limit).
HERE_NICE=$(nice_of $$)
HERE_SCHED=$HERE_NICE/$(policy_of $$)
HERE_CPU=$(limit_of $$ 'Max cpu time')
# The payload's own nice: 1 more than it starts with, then 2 more set by a
# second thread naming its process's pid (small steps, so that a refusal
# shows below the cap of 19 even under a caller's nice of up to 16).
OWN_WANT=$((HERE_NICE + 3))
[ "$OWN_WANT" -gt 19 ] && OWN_WANT=19
V_NOFILE=$(limit_of "$VICTIM" 'Max open files')
V_CPU=$(limit_of "$VICTIM" 'Max cpu time')

# The payload waits for the host's pids, attacks, marks "attacked", then
# makes its own changes on itself and waits for "go".
BG_STDIN=$T/script
cat >"$BG_STDIN" <<EOF
$SBX_T_PRELUDE
i=0; while [ ! -s ./pids ] && [ \$i -lt 100 ]; do sleep 0.1; i=\$((i+1)); done
. ./pids
for p in \$SBX \$KEEPER \$VICTIM; do
	t renice\$p renice -n 19 -p \$p
	t chrt\$p chrt -i -p 0 \$p
	t taskset\$p taskset -p 1 \$p
	t ionice\$p ionice -c 3 -p \$p
	t nofile\$p prlimit --nofile=5:5 --pid \$p
	t cpu\$p prlimit --cpu=1:1 --pid \$p
done
t user renice -n 18 -u \$(id -u)
t group renice -n 17 -g \$PGRP
: >attacked
exec prlimit --nofile=33:33 nice -n 1 taskset 1 python3 -c "
import os, threading, time
def other_thread():
    os.setpriority(os.PRIO_PROCESS, os.getpid(), $OWN_WANT)
t = threading.Thread(target=other_thread)
t.start()
t.join()
open('self', 'w').write(str(os.getpid()))
i = 0
while not os.path.exists('go') and i < 300:
    time.sleep(0.1)
    i += 1
print('$TAG')
"
EOF
sbx_bg -w "$WD"
KEEPER=
wait_for "[ -n \"\$(pgrep -P $SBX_PID)\" ]" 10
for c in $(pgrep -P "$SBX_PID"); do
	[ "$(cat "/proc/$c/comm" 2>/dev/null)" = sbxrun-keeper ] && KEEPER=$c
done
SBX_MASK=$(status_field "$SBX_PID" Cpus_allowed_list)
cat >"$WD/pids.tmp" <<EOF
SBX=$SBX_PID
KEEPER=$KEEPER
VICTIM=$VICTIM
PGRP=$(ps -o pgid= -p "$SBX_PID" | tr -d ' ')
EOF
chmod 644 "$WD/pids.tmp"
mv "$WD/pids.tmp" "$WD/pids"
wait_for "[ -e '$WD/attacked' ] && [ -s '$WD/self' ]" 30 || diag "the payload did not get through its attacks"
diag "sbxrun $SBX_PID, keeper ${KEEPER:-none}, victim $VICTIM"

is "$(nice_of "$SBX_PID")/$(policy_of "$SBX_PID")" "$HERE_SCHED" \
    "sbxrun keeps its nice value and policy"
is "$(status_field "$SBX_PID" Cpus_allowed_list)" "$SBX_MASK" "sbxrun keeps its CPU mask"
is "$(limit_of "$SBX_PID" 'Max open files')" "$(limit_of $$ 'Max open files')" \
    "sbxrun keeps its limit of open files"
is "$(limit_of "$SBX_PID" 'Max cpu time')" "$HERE_CPU" "sbxrun gets no CPU time limit"
unlike "$(ioclass_of "$SBX_PID")" "idle" "sbxrun's I/O class is not idle"
if [ -n "$KEEPER" ]; then
	is "$(nice_of "$KEEPER")/$(policy_of "$KEEPER")/$(limit_of "$KEEPER" 'Max open files')" \
	    "$HERE_SCHED/$(limit_of $$ 'Max open files')" "the keeper keeps its scheduling and limits"
else
	pass "no keeper in this run (nothing to reach)"
fi
is "$(nice_of "$VICTIM")/$(policy_of "$VICTIM")" "$HERE_SCHED" \
    "another process of the payload's uid keeps its nice value and policy"
is "$(status_field "$VICTIM" Cpus_allowed_list)" "$HERE_MASK" "... and its CPU mask"
is "$(limit_of "$VICTIM" 'Max open files')/$(limit_of "$VICTIM" 'Max cpu time')" \
    "$V_NOFILE/$V_CPU" "... and its limits"
unlike "$(ioclass_of "$VICTIM")" "idle" "... and its I/O class"
is "$(nice_of $$)" "$HERE_NICE" "the caller's process group and uid keep their nice value"

# The payload exec'd its way into that sh: init's child on the host.
SELF=$(payload_of "$SBX_PID")
# Its nice 1 more than this shell's, then 2 more set by a second thread
# naming its process's pid (the thread group's id, not the caller's own:
# compared with both; refused, the nice would stay 1 more). The
# payload's renice -u is refused under both backends: under namespaces it
# reached the jail's init too (attack-renice.sh).
is "$(nice_of "$SELF")" "$OWN_WANT" "the payload's own nice holds (read on the host)"
is "$(limit_of "$SELF" 'Max open files')" "33:33" "the payload's own limit holds"
is "$(status_field "$SELF" Cpus_allowed_list)" 0 "the payload's own CPU mask holds"

: >"$WD/go"
sbx_bg_wait 30
SBX_STATUS_BG=$SBX_STATUS
is "$SBX_STATUS_BG" 0 "the run ends with status 0"
like "$(cat "$T/bg.out")" "$TAG" "the payload ran to its end"
if [ "$SBX_BACKEND" = landlock ]; then
	like "$(jget denied "$T/bg.diag")" '"kind":"process"' \
	    "the refusals are in the denied list"
else
	pass "namespaces: the pid namespace hides the targets (no refusal to count)"
fi

# --- a caller under a realtime policy -------------------------------------------
# Handed on, SCHED_FIFO let a busy loop of the sandbox's starve sbxrun's
# own threads at the same priority on the same CPU: the timeout never
# fired, and sbxrun could not even die of a SIGKILL (found by review).
# The payload runs under SCHED_OTHER, and the diagnostics say so.
if [ "$(id -u)" = 0 ]; then
	out=$(echo 'chrt -p $$' | chrt -f 10 "$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 \
	    3>"$T/rt.diag" 2>&1)
	like "$out" "policy: SCHED_OTHER" "a caller at SCHED_FIFO: the sandbox runs under SCHED_OTHER"
	like "$(cat "$T/rt.diag")" "realtime scheduling policy" "... and a warning says so"
	# The loop ends by itself after 5 s of CPU (RLIMIT_CPU) should the
	# timeout not hold: a failing check must not keep the CPU.
	echo 'ulimit -t 5; while :; do :; done' | timeout -s KILL 15 taskset -c 0 chrt -f 10 "$SBXRUN" \
	    --backend "$SBX_BACKEND" -t 1 --diag none >/dev/null 2>&1
	is "$?" 124 "... and its busy loop on sbxrun's only CPU still ends at the timeout"
else
	skip "a caller other than root cannot take a realtime policy (RLIMIT_RTPRIO is 0)" 3
fi
done_testing
