# An open that truncates (O_TRUNC) and truncate(2), when the name
# supervisor makes them for the sandbox, wait in the kernel while a lease
# on the file is broken. A sandbox took a read lease on its own file,
# asked for the cut from another thread and ended: its end released the
# lease, and the worker's call, still waiting, cut the file after the
# run. Now a cut that must wait for a lease is made only while the caller
# still waits. The landlock backend's alone: under namespaces the mounts
# judge names and no worker opens a file for the sandbox.
# The same open handed its descriptor to the caller while sbxrun's copy
# stayed open until the caller next waited: the file was still open for
# writing, so a script executed right after it was written failed with
# ETXTBSY (a third of the time), and a lease right after the close with
# EAGAIN. The copy is now closed before the caller resumes.
# Verdict on the host: the file's size after the run; the count of failed
# execs and leases, checked against the same script run bare.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=11
cat >"$WD/late.py" <<'EOF2'
import fcntl, os, signal, sys, threading, time
F_SETLEASE = 1024
signal.signal(signal.SIGIO, signal.SIG_IGN)
with open(sys.argv[2], "w") as f:
    f.write("keep" * 100)
fd = os.open(sys.argv[2], os.O_RDONLY)
fcntl.fcntl(fd, F_SETLEASE, fcntl.F_RDLCK)
def cut():
    try:
        if sys.argv[1] == "open":
            os.open(sys.argv[2], os.O_WRONLY | os.O_TRUNC)
        else:
            os.truncate(sys.argv[2], 0)
    except OSError:
        pass
threading.Thread(target=cut, daemon=True).start()
time.sleep(0.5)
os._exit(0)
EOF2
# The control: the holder gives the lease up when asked, as a lease's
# holder should; the cut, from another process, then happens.
cat >"$WD/give.py" <<'EOF2'
import fcntl, os, signal, sys, time
F_SETLEASE = 1024
with open(sys.argv[2], "w") as f:
    f.write("keep" * 100)
# rdtrunc: a write lease, downgraded when broken (what a reader's break
# asks for), and an O_RDONLY | O_TRUNC open, which cuts after that alone.
rd = sys.argv[1] == "rdtrunc"
fd = os.open(sys.argv[2], os.O_RDONLY)
def broken(sig, frame):
    fcntl.fcntl(fd, F_SETLEASE, fcntl.F_RDLCK if rd else fcntl.F_UNLCK)
signal.signal(signal.SIGIO, broken)
fcntl.fcntl(fd, F_SETLEASE, fcntl.F_WRLCK if rd else fcntl.F_RDLCK)
pid = os.fork()
if pid == 0:
    if sys.argv[1] == "open":
        os.write(os.open(sys.argv[2], os.O_WRONLY | os.O_TRUNC), b"new")
    elif rd:
        os.open(sys.argv[2], os.O_RDONLY | os.O_TRUNC)
    else:
        os.truncate(sys.argv[2], 2)
    os._exit(0)
while True:
    try:
        _, st = os.waitpid(pid, 0)
        break
    except InterruptedError:
        pass
sys.exit(os.waitstatus_to_exitcode(st))
EOF2
cat >"$WD/busy.py" <<'EOF2'
import fcntl, os
F_SETLEASE = 1024
busy = 0
for i in range(300):
    fd = os.open("leased", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b"x")
    os.close(fd)
    fd = os.open("leased", os.O_RDONLY)
    try:
        fcntl.fcntl(fd, F_SETLEASE, fcntl.F_RDLCK)
        fcntl.fcntl(fd, F_SETLEASE, fcntl.F_UNLCK)
    except OSError:
        busy += 1
    os.close(fd)
print(busy)
EOF2
cat >"$WD/exec.sh" <<'EOF2'
printf '#!/bin/sh\nexit 0\n' >run.sh
chmod +x run.sh
n=0
for i in $(seq 1 150); do
	sh -c "printf '#!/bin/sh\\nexit 0\\n' >run.sh; exec ./run.sh" 2>/dev/null || n=$((n + 1))
done
echo "$n"
EOF2
git init -q "$WD" 2>/dev/null || mkdir -p "$WD/.git"
(cd "$WD" && sh exec.sh >"$T/bare" 2>&1)
is "$(cat "$T/bare")" 0 "bare: a script written runs at once (the check's control)"
jail -w "$WD" -- sh exec.sh
is "$(cat "$T/out")" 0 "a script written through the supervisor runs at once (no ETXTBSY)"
jail -w "$WD" -- python3 busy.py
is "$(cat "$T/out")" 0 "a file written through the supervisor takes a lease at once"
jail -w "$WD" -- python3 late.py open victim-open
jail -w "$WD" -- python3 late.py trunc victim-trunc
# Late cuts, if any, happen as the lease goes: give them time to show.
sleep 1
is "$(stat -c %s "$WD/victim-open")" 400 "an open with O_TRUNC held by a lease is not made after the run"
is "$(stat -c %s "$WD/victim-trunc")" 400 "a truncate held by a lease is not made after the run"
jail -w "$WD" -- python3 give.py open given-open
is_status 0 "an open with O_TRUNC waits for a lease given up"
is "$(cat "$WD/given-open")" new "and cuts the file"
jail -w "$WD" -- python3 give.py trunc given-trunc
is_status 0 "a truncate waits for a lease given up"
is "$(cat "$WD/given-trunc")" ke "and cuts the file"
jail -w "$WD" -- python3 give.py rdtrunc given-rdtrunc
is_status 0 "an O_RDONLY | O_TRUNC open waits for a write lease downgraded"
is "$(stat -c %s "$WD/given-rdtrunc")" 0 "and cuts the file"

done_testing
