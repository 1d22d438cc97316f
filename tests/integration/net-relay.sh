# With a connect list the resolvers are reachable over UDP (sbxrun(1),
# NETWORK). Under namespaces their datagrams go through the resolver
# relay (doc/design/network.md, "Data path and costs"): no datagram
# socket of the host is ever handed in, which is what lets sendmsg()
# go untrapped there. This attacks that: sockets that talked to the
# resolver (connected to it, or sent to it) then send with sendmsg() to
# the same host's UDP echo, over IPv4 and IPv6, and a thread races to
# swap such a socket in under a sendmsg() loop. The remote host's log is
# the verdict: the lookups arrive, nothing else does. Run for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
if ! rjail_ok; then
	skip "$RJAIL_WHY"
	done_testing
	exit
fi

NAME=relay-$$.$NET_DOMAIN
cat >"$NETWD/relay.py" <<'PY'
import os, socket, sys, threading
r4, r6, name = sys.argv[1], sys.argv[2], sys.argv[3]
def out(tag, f):
    try:
        f()
        print("R:%s:OK" % tag)
    except OSError as e:
        print("R:%s:%s" % (tag, e.errno))
try:
    socket.getaddrinfo(name, 80, socket.AF_INET)
    print("R:gai:OK")
except OSError as e:
    print("R:gai:%s" % e)
# Connected to the resolver, then an address of its own.
a = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
out("conn", lambda: a.connect((r4, 53)))
out("a1", lambda: a.send(b"\0"))
out("a2", lambda: a.sendmsg([b"a2-leak\n"], [], 0, (r4, 7007)))
# Sent to the resolver first, then elsewhere.
b = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
out("b0", lambda: b.sendto(b"\0", (r4, 53)))
out("b1", lambda: b.sendmsg([b"b1-leak\n"], [], 0, (r4, 7007)))
c = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
out("c0", lambda: c.connect(("::ffff:" + r4, 53)))
out("c1", lambda: c.sendmsg([b"c1-leak\n"], [], 0, (r6, 7007)))
out("c2", lambda: c.sendmsg([b"c2-leak\n"], [], 0, ("::ffff:" + r4, 7007)))
# A race: one thread sends with an address on descriptor N in a loop,
# another keeps putting a socket just connected to the resolver there.
n = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
fd = n.fileno()
stop = False
def swap():
    while not stop:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            s.connect((r4, 53))
            os.dup2(s.fileno(), fd)
        except OSError:
            pass
        s.close()
t = threading.Thread(target=swap)
t.start()
for i in range(2000):
    try:
        n.sendmsg([b"race-leak\n"], [], 0, (r4, 7007))
    except OSError:
        pass
stop = True
t.join()
print("R:race:done")
PY
chmod 644 "$NETWD/relay.py"
rl_mark
rjail --connect 8001 -w "$NETWD" -- python3 relay.py "$NET_REMOTE4" "$NET_REMOTE6" "$NAME"
is_status 0 "relay: the client ran"
like "$(cat "$T/out")" "R:race:done" "relay: the race ran to its end"
# A fence of this machine's on the DNS and echo ports (net_fence): the
# lookup, and whatever else got through, is logged before it.
net_fence dns udp
cp "$T/rl.step" "$T/rl.new"
ok "relay: the lookup reached the resolver" grep -q "^dns $NAME " "$T/rl.new"
is "$(res_of gai)" OK "relay: ... and resolved inside (second opinion)"
is "$(res_of conn)" OK "relay: a UDP socket connects to the resolver"
nok "relay: sendmsg() to the echo port from a socket connected to the resolver logged nothing" \
    grep -q "a2-leak" "$T/rl.new"
nok "relay: ... nor from one that sent to the resolver" grep -q "b1-leak" "$T/rl.new"
nok "relay: ... nor over IPv6, to either address of the host" grep -q "c[12]-leak" "$T/rl.new"
nok "relay: ... nor a sendmsg() loop racing a dup2() of such a socket" grep -q "race-leak" "$T/rl.new"
nok "relay: the remote UDP echo logged nothing at all" grep -q "^udp " "$T/rl.new"
done_testing
