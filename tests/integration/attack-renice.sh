# The sandbox must not lower the scheduling, I/O class or limits of the
# jail's init, sbxrun's own process that kills and reaps the tree when
# the run ends. Init was in the payload's process group: a payload that
# made setpriority(PRIO_PGRP, 0) and ioprio_set(IOPRIO_WHO_PGRP, 0) (or,
# under namespaces, named init as pid 1, its group 1 or its user) left
# init at nice 19 and in the idle I/O class, and a payload that kept the
# CPUs busy then delayed the end of its run by seconds. The payload now
# has a process group of its own, may not go back to init's (its
# session's leader's), and under namespaces the calls that name pid 1,
# group 1 or a user are refused.
# Verdict on the host: init's nice value, I/O class and limits in /proc
# while the sandbox waits after trying.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=4
cat >"$WD/renice.py" <<'EOF2'
import ctypes, os, resource
libc = ctypes.CDLL(None, use_errno=True)
IOPRIO_IDLE = 3 << 13
def tries(f):
    try:
        f()
    except OSError:
        pass
tries(lambda: os.setpriority(os.PRIO_PGRP, 0, 19))
libc.syscall(251, 2, 0, IOPRIO_IDLE)                  # ioprio_set, IOPRIO_WHO_PGRP
# Back into init's group (its session's leader's), then the same again.
tries(lambda: os.setpgid(0, os.getsid(0)))
tries(lambda: os.setpriority(os.PRIO_PGRP, 0, 19))
libc.syscall(251, 2, 0, IOPRIO_IDLE)
tries(lambda: os.setpriority(os.PRIO_PROCESS, 1, 19))
tries(lambda: os.setpriority(os.PRIO_PGRP, 1, 19))
tries(lambda: os.setpriority(os.PRIO_USER, 0, 19))
libc.syscall(251, 1, 1, IOPRIO_IDLE)                  # IOPRIO_WHO_PROCESS, pid 1
libc.syscall(251, 3, os.getuid(), IOPRIO_IDLE)       # IOPRIO_WHO_USER
tries(lambda: os.sched_setscheduler(1, os.SCHED_IDLE, os.sched_param(0)))
tries(lambda: resource.prlimit(1, resource.RLIMIT_NOFILE, (8, 8)))
open("ready", "w").close()
import time
time.sleep(60)
EOF2

printf 'python3 renice.py\n' >"$T/script"
BG_STDIN="$T/script" sbx_bg -w "$WD"
wait_for "[ -e '$WD/ready' ]" 60 || diag "the payload did not get to its wait"
init=$(pgrep -P "$SBX_PID" | while read -r p; do
	[ "$(cat "/proc/$p/comm" 2>/dev/null)" = sbxrun-keeper ] || echo "$p"
done | head -n 1)
is "$(awk '{ print $19 }' "/proc/$init/stat" 2>/dev/null)" 0 "init's nice value is still 0"
unlike "$(ionice -p "$init" 2>&1)" "idle" "init's I/O class is not idle"
is "$(awk '{ print $41 }' "/proc/$init/stat" 2>/dev/null)" 0 "init's scheduling policy is still SCHED_OTHER"
ok "init's descriptor limit is as it was" \
    test "$(awk '/^Max open files/ { print $4 }' "/proc/$init/limits" 2>/dev/null)" != 8
kill -TERM "$SBX_PID"
sbx_bg_wait 30

done_testing
