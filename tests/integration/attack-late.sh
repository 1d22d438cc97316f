# Calls the supervisor makes for the sandbox wait in a queue while its
# workers are busy. A sandbox held every worker in sends that wake on a
# clock (SO_SNDTIMEO, the peer kept open in sbxrun by passing it along),
# queued name calls behind them (mkdir of a 0777 directory, with umask 0)
# and ended: the workers woke after the tree was gone and made the queued
# calls while sbxrun's checks of the run went on, or after them, so a
# directory writable by other users stayed behind. A queued call whose
# caller no longer waits is now never made.
# Verdict on the host: the directories the queued calls name, after the
# run. The landlock backend's alone: under namespaces the mounts judge
# names, and no name call waits in a queue.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=3
cat >"$WD/late.py" <<'EOF'
import array, os, socket, struct, threading, time
os.umask(0)
os.makedirs("pub/bulk")
# Directories for the run's search for repositories to walk through: the
# checks after the run last while the workers wake.
for i in range(20000):
    os.mkdir("pub/bulk/d%d" % i, 0o755)
a, b = socket.socketpair()
a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4096)
a.setblocking(False)
try:
    while True:
        a.send(b"x" * 512)
except BlockingIOError:
    pass
a.setblocking(True)
rights = array.array("i", [b.fileno()])
def timeo(sec):
    a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO,
                 struct.pack("ll", int(sec), int((sec % 1) * 1e6)))
def blocker():
    try:
        a.sendmsg([b"y"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, rights)])
    except OSError:
        pass
def late(k):
    try:
        os.mkdir("pub/LATE%d" % k, 0o777)
    except OSError:
        pass
def start(fn, *args):
    threading.Thread(target=fn, args=args, daemon=True).start()
    time.sleep(0.003)
# Eight blockers that wake 6 s from now, then groups of a queued mkdir
# and eight more blockers waking 40 ms apart. The run must end before the
# first eight wake: a start that took longer (a machine busy enough to
# make 233 threads in 6 s) let queued calls be made while their callers
# still waited, which proves nothing; it says so, and the run is made
# again.
timeo(6)
t0 = time.monotonic()
for i in range(8):
    start(blocker)
timeo(0.04)
for k in range(25):
    start(late, k)
    for i in range(8):
        start(blocker)
rest = t0 + 5.95 - time.monotonic()
if rest > 0.2:
    time.sleep(rest)
else:
    open("pub/SLOW", "w").close()
os._exit(0)
EOF
git init -q "$WD" 2>/dev/null || mkdir -p "$WD/.git"
# At most three tries for a start in time (pub/SLOW: see late.py).
for try in 1 2 3; do
	rm -rf "$WD/pub"
	jail -w "$WD" -- python3 late.py
	[ -e "$WD/pub/SLOW" ] || break
	diag "try $try: the sandbox's threads took too long to start; the run is made again"
done
is_status 0 "the run ended well"
ok "the sandbox's threads started before the first blockers woke" test ! -e "$WD/pub/SLOW"
is "$(ls "$WD/pub" | grep -c '^LATE')" 0 "no directory was made for the sandbox after its end"

done_testing
