# Sends on a connected TCP stream that the supervisor makes for the
# sandbox (sbxrun(1), NETWORK; doc/design/network.md, "Data path and
# costs"): with the network on, sendmsg() and an addressed sendto() are
# trapped; the supervisor sends what it can without blocking and, for a
# blocking caller, a worker sends the rest. Every byte must arrive, once,
# in order, and a blocking call must report the whole count. The verdict
# is a host listener's: it hashes each connection's bytes. Run for
# $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

SINK=$JT/sink
mkdir -p "$SINK"
cat >"$SINK/sink.py" <<'PY'
import hashlib, socket, sys
log = open(sys.argv[1], "a", buffering=1)
s = socket.socket()
s.bind(("127.0.0.1", 0))
s.listen(8)
print(s.getsockname()[1], flush=True)
while True:
    c, _ = s.accept()
    tag = b""
    while not tag.endswith(b"\n"):
        b = c.recv(1)
        if not b:
            break
        tag += b
    h, n = hashlib.sha256(), 0
    while True:
        b = c.recv(1 << 20)
        if not b:
            break
        h.update(b)
        n += len(b)
    log.write("%s %d %s\n" % (tag.decode().strip(), n, h.hexdigest()))
    c.sendall(b"%d\n" % n)
    c.close()
PY
: >"$SINK/log"
"$PY" "$SINK/sink.py" "$SINK/log" >"$SINK/port" 2>"$SINK/err" &
SINK_PID=$!
for _ in $(seq 50); do
	[ -s "$SINK/port" ] && break
	sleep 0.1
done
PORT=$(cat "$SINK/port")
[ -n "$PORT" ] || net_abort "the host sink" "$(cat "$SINK/err")"

cat >"$WD/send.py" <<'PY'
import select, socket, sys
port = int(sys.argv[1])
size = 12 << 20
data = bytes(range(251)) * (size // 251 + 1)
data = memoryview(data[:size])

def conn(tag):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(tag.encode() + b"\n")
    return s

def finish(tag, s):
    s.shutdown(socket.SHUT_WR)
    print("R:%s:%s" % (tag, s.makefile().readline().strip()))
    s.close()

# One blocking sendmsg() of three uneven parts: the whole count at once.
s = conn("msg")
parts = [data[:1000003], data[1000003:size - 77777], data[size - 77777:]]
print("C:msg:%d" % s.sendmsg(parts))
finish("msg", s)
# An addressed sendto() on the connection (TCP ignores the address).
s = conn("to")
print("C:to:%d" % s.sendto(data, ("127.0.0.1", port)))
finish("to", s)
# Non-blocking: short counts, resumed by the caller.
s = conn("nb")
s.setblocking(False)
off = 0
while off < size:
    select.select([], [s], [])
    try:
        off += s.sendmsg([data[off:off + (3 << 20)]], [], socket.MSG_DONTWAIT)
    except BlockingIOError:
        pass
s.setblocking(True)
finish("nb", s)
PY
chmod 644 "$WD/send.py"
want=$("$PY" -c 'import hashlib
size = 12 << 20
d = (bytes(range(251)) * (size // 251 + 1))[:size]
print(size, hashlib.sha256(d).hexdigest())')

jail --network on --loopback "$PORT" -w "$WD" -- python3 send.py "$PORT"
is_status 0 "stream send: the client ran"
kill "$SINK_PID" 2>/dev/null
wait "$SINK_PID" 2>/dev/null
diag "sink: $(cat "$SINK/log")"
is "$(sed -n 's/^msg //p' "$SINK/log")" "$want" "stream send: a blocking sendmsg() of three parts delivered every byte, in order"
is "$(sed -n 's/^C:msg://p' "$T/out")" "${want% *}" "stream send: ... and reported the whole count"
is "$(sed -n 's/^to //p' "$SINK/log")" "$want" "stream send: an addressed sendto() on the connection delivered every byte"
is "$(sed -n 's/^C:to://p' "$T/out")" "${want% *}" "stream send: ... and reported the whole count"
is "$(sed -n 's/^nb //p' "$SINK/log")" "$want" "stream send: non-blocking sendmsg() calls delivered every byte"
done_testing
