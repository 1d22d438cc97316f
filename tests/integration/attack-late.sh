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

N_TESTS=2
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
# Eight blockers that wake 2.5 s from now, then groups of a queued mkdir
# and eight more blockers waking 40 ms apart.
timeo(2.5)
t0 = time.monotonic()
for i in range(8):
    start(blocker)
timeo(0.04)
for k in range(25):
    start(late, k)
    for i in range(8):
        start(blocker)
rest = t0 + 2.45 - time.monotonic()
if rest > 0:
    time.sleep(rest)
os._exit(0)
EOF
git init -q "$WD" 2>/dev/null || mkdir -p "$WD/.git"
jail -w "$WD" -- python3 late.py
is_status 0 "the run ended well"
is "$(ls "$WD/pub" | grep -c '^LATE')" 0 "no directory was made for the sandbox after its end"

done_testing
