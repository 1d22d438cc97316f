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
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=4
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

# peak PY: runs PY in the jail on $WD, waits for its "sent", prints
# sbxrun's VmHWM in kB, then lets it end.
peak() {
	rm -f "$WD/sent" "$WD/go"
	# A sanitized build keeps what is freed in a quarantine (256 MiB)
	# that a peak would count: none here.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0" \
	    "$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --diag none -- python3 "$1" \
	    >"$T/peak.out" 2>"$T/peak.err" </dev/null &
	_pid=$!
	JAIL_PIDS="$JAIL_PIDS $_pid"
	wait_for "[ -e '$WD/sent' ]" 120
	sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB$/\1/p' "/proc/$_pid/status"
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

done_testing
