# The sandbox must not make sbxrun hold more of its memory than a bound
# (threat model: nothing it does may cost us more than it costs itself).
#
# Trapped sends are copied into sbxrun before they are judged and while a
# worker performs them. sendmmsg's messages each had the bound of one
# send (16 MiB), so 48 messages whose iovecs all point at one 1 MiB
# buffer made sbxrun hold 768 MiB (up to 16 GiB a call); and each trapped
# thread of the sandbox could queue another 16 MiB copy behind workers
# blocked on a peer that never reads. Now a sendmmsg shares one bound
# among its messages (the first that does not fit ends the array, as the
# kernel counts the messages before a failing one), and the calls waiting
# for a worker or on one hold at most 64 MiB together (past it a send fails
# with ENOBUFS).
# Verdict on the host: sbxrun's own peak resident memory (VmHWM), read
# while the sandbox waits after its sends.
#
# Descriptors passed with SCM_RIGHTS are taken into sbxrun too: calls
# queued behind workers blocked in Unix connects each held 253 copies, and
# filled sbxrun's table (every later trapped call failed, the copies kept
# the sandbox's sockets open past its end). Now they hold half of its
# limit at most (ETOOMANYREFS past it). Verdict on the host: the count of
# sbxrun's descriptors while the sandbox waits after its sends.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=4
# The descriptors' case: landlock traps every send of a Unix socket with
# the network on; namespaces sends them untrapped there (the kernel's own
# bound on descriptors in flight applies).
[ "$SBX_BACKEND" = landlock ] && N_TESTS=8
# 128 MiB: above the bound and sbxrun's own few MiB, far below the copies.
LIMIT_KB=131072

cat >"$WD/mmsg.py" <<'EOF'
import ctypes, os, socket, struct, time
libc = ctypes.CDLL(None, use_errno=True)
MB = 1 << 20
buf = ctypes.create_string_buffer(MB)
class Iov(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class Msg(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32), ("iov", ctypes.c_void_p),
                ("iovlen", ctypes.c_size_t), ("control", ctypes.c_void_p),
                ("controllen", ctypes.c_size_t), ("flags", ctypes.c_int)]
class MMsg(ctypes.Structure):
    _fields_ = [("hdr", Msg), ("len", ctypes.c_uint32)]
iov = (Iov * 16)(*[Iov(ctypes.addressof(buf), MB)] * 16)
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
# 127.0.0.1:9, this machine's discard port: refused or too big to send.
sa = struct.pack("<H", 2) + struct.pack(">H", 9) + socket.inet_aton("127.0.0.1") + bytes(8)
sa = ctypes.create_string_buffer(sa, 16)
arr = (MMsg * 48)()
for i in range(48):
    arr[i].hdr = Msg(ctypes.addressof(sa), 16, ctypes.addressof(iov), 16, None, 0, 0)
print("sendmmsg", libc.sendmmsg(s.fileno(), arr, ctypes.c_uint(48), 0), ctypes.get_errno(), flush=True)
open("sent", "w").close()
while not os.path.exists("go"):
    time.sleep(0.05)
EOF

# 20 threads, each a 16 MiB send on a socket pair whose peer never reads,
# one after the other: the next starts once this one's bytes arrive (a
# worker or the dispatcher sends them) or it failed. Without the bound a
# call may wait in the queue, where nothing shows it: the waits end after
# 60 s in all.
cat >"$WD/queue.py" <<'EOF'
import errno, fcntl, os, socket, struct, termios, threading, time
big = memoryview(bytearray(16 << 20))
res = {}
def send(k, a):
    try:
        a.sendmsg([big])
        res[k] = "sent"
    except OSError as e:
        res[k] = errno.errorcode.get(e.errno, str(e.errno))
pairs = [socket.socketpair() for _ in range(20)]
end = time.monotonic() + 60
for k, (a, b) in enumerate(pairs):
    threading.Thread(target=send, args=(k, a), daemon=True).start()
    while k not in res and time.monotonic() < end:
        if struct.unpack("i", fcntl.ioctl(b.fileno(), termios.FIONREAD, bytes(4)))[0] > 0:
            break
        time.sleep(0.01)
print(list(res.values()).count("ENOBUFS"), "ENOBUFS", flush=True)
open("sent", "w").close()
while not os.path.exists("go"):
    time.sleep(0.05)
os._exit(0)
EOF

# fds.py: eight threads blocked in Unix connects to a listener whose
# backlog is full hold every worker; then sends passing that listener 253
# times each queue behind them, a thread each.
cat >"$WD/fds.py" <<'EOF'
import errno, os, socket, threading, time
L = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
L.bind("l.sock")
L.listen(0)
held = []
def connect():
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    held.append(s)
    try:
        s.connect("l.sock")
    except OSError:
        pass
for _ in range(12):
    threading.Thread(target=connect, daemon=True).start()
time.sleep(1)
a, b = socket.socketpair()
res = {}
def send(k):
    try:
        a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
            L.fileno().to_bytes(4, "little") * 253)])
        res[k] = "sent"
    except OSError as e:
        res[k] = errno.errorcode.get(e.errno, str(e.errno))
for k in range(4):
    threading.Thread(target=send, args=(k,), daemon=True).start()
    time.sleep(0.3)
print(list(res.values()).count("ETOOMANYREFS"), "ETOOMANYREFS", flush=True)
open("sent", "w").close()
while not os.path.exists("go"):
    time.sleep(0.05)
os._exit(0)
EOF

# queue.py: eight openers of FIFOs that no reader opens hold every worker
# (with a repository in the workdir the supervisor makes opens for
# writing); renames queue behind them, each holding sbxrun's descriptors
# of both directories, the source and the target.
cat >"$WD/names.py" <<'EOF'
import errno, os, threading, time
os.makedirs("q", exist_ok=True)
for i in range(300):
    open("q/a%d" % i, "w").close()
    open("q/b%d" % i, "w").close()
for i in range(8):
    os.mkfifo("fifo%d" % i)
    if os.fork() == 0:
        try:
            os.open("fifo%d" % i, os.O_WRONLY)
        finally:
            os._exit(0)
time.sleep(1)
threading.stack_size(64 * 1024)
res = []
def ren(i):
    try:
        os.rename("q/a%d" % i, "q/b%d" % i)
    except OSError as e:
        res.append(errno.errorcode.get(e.errno, str(e.errno)))
for i in range(300):
    threading.Thread(target=ren, args=(i,), daemon=True).start()
time.sleep(1)
print(res.count("EAGAIN"), "EAGAIN", flush=True)
open("sent", "w").close()
while not os.path.exists("go"):
    time.sleep(0.05)
os._exit(0)
EOF

# peak PY [WHAT]: runs PY in the jail on $WD (with a descriptor limit of
# 512; --network $PEAK_NET if set), waits for its "sent", prints sbxrun's VmHWM in kB (WHAT "fds": its
# count of descriptors), then lets it end.
peak() {
	rm -f "$WD/sent" "$WD/go" "$WD/l.sock"
	# A sanitized build keeps what is freed in a quarantine (256 MiB)
	# that a peak would count: none here.
	(
		ulimit -n 512
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" \
		    exec "$SBXRUN" --backend "$SBX_BACKEND" ${PEAK_NET:+--network "$PEAK_NET"} \
		    -w "$WD" --diag none -- python3 "$1" \
		    >"$T/peak.out" 2>"$T/peak.err" </dev/null
	) &
	_pid=$!
	JAIL_PIDS="$JAIL_PIDS $_pid"
	wait_for "[ -e '$WD/sent' ]" 120
	if [ "${2:-}" = fds ]; then
		ls "/proc/$_pid/fd" | wc -l
	else
		sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$_pid/status"
	fi
	: >"$WD/go"
	wait "$_pid"
}

kb=$(peak mmsg.py)
diag "sendmmsg: $(cat "$T/peak.out"), sbxrun's peak ${kb:-?} kB"
ok "sendmmsg of 48 messages on one 1 MiB buffer: sbxrun's peak stays under $LIMIT_KB kB (${kb:-?})" \
    test "${kb:-999999999}" -lt "$LIMIT_KB"
like "$(cat "$T/peak.out")" "sendmmsg -1 " "... and the call returned (failed: refused, or too big a datagram)"

kb=$(peak queue.py)
diag "queued sends: $(cat "$T/peak.out"), sbxrun's peak ${kb:-?} kB"
ok "20 blocked 16 MiB sends: sbxrun's peak stays under $LIMIT_KB kB (${kb:-?})" \
    test "${kb:-999999999}" -lt "$LIMIT_KB"
n=$(sed -n 's/^\([0-9]*\) ENOBUFS$/\1/p' "$T/peak.out")
ok "... the sends past the bound failed with ENOBUFS (${n:-?} of 20)" test "${n:-0}" -gt 0

if [ "$SBX_BACKEND" = landlock ]; then
	# Unix sockets: allowed with the network on.
	n=$(PEAK_NET=on peak fds.py fds)
	diag "queued descriptors: $(cat "$T/peak.out"), sbxrun's descriptors ${n:-?}"
	# Half of 512 held, and sbxrun's own few dozen: well under the limit.
	ok "4 sends of 253 descriptors behind blocked workers: sbxrun holds under 400 (${n:-?} of 512)" \
	    test "${n:-512}" -lt 400
	n=$(sed -n 's/^\([0-9]*\) ETOOMANYREFS$/\1/p' "$T/peak.out")
	ok "... the sends past the bound failed with ETOOMANYREFS (${n:-?} of 4)" test "${n:-0}" -gt 0
	# The same with name calls, queued behind workers held by FIFOs.
	rm -rf "$WD/q" "$WD"/fifo*
	git init -q "$WD" 2>/dev/null || mkdir -p "$WD/.git"
	n=$(peak names.py fds)
	diag "queued renames: $(cat "$T/peak.out"), sbxrun's descriptors ${n:-?}"
	ok "300 renames behind blocked workers: sbxrun holds under 400 (${n:-?} of 512)" \
	    test "${n:-512}" -lt 400
	n=$(sed -n 's/^\([0-9]*\) EAGAIN$/\1/p' "$T/peak.out")
	ok "... the calls past the bound failed with EAGAIN (${n:-?} of 300)" test "${n:-0}" -gt 0
fi

done_testing
