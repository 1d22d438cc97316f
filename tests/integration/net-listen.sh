# --listen (sbxrun(1), NETWORK): a real HTTP server inside (Python's
# http.server) binds a declared port and answers from the host on
# 127.0.0.1 (a dual-stack wildcard bind: on 127.0.0.1 only, never on the
# machine's other addresses), seeing the host client's real address and
# port. Binding an undeclared port, binding port 0, listen() on an unbound
# socket (which would bind a random port) and binding a UDP port fail
# under landlock, and under namespaces are the jail's own (its private
# network namespace) -- with the network off otherwise, and with it on.
# The verdicts are the host's own connects: to the declared port they are
# answered, to every other port the sandbox tried they are refused. Run
# for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

# Ports free on this machine right now (each bound and released).
free_ports() {
	"$PY" - "$1" <<'EOF'
import socket, sys
socks = []
for _ in range(int(sys.argv[1])):
    s = socket.socket(socket.AF_INET6)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", 0))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
EOF
}

cat >"$NETWD/serve.py" <<'EOF'
# serve.py P P4 OTHER: the attempts that must fail, then a real HTTP
# server on P (dual stack) and a plain one on P4 (IPv4 only). Sockets
# that should not exist but do stay open, so that the host can try them.
import errno, http.server, os, socket, sys, threading
P, P4, OTHER = (int(x) for x in sys.argv[1:4])
keep = []
out = open("attempts.txt", "w", buffering=1)
def note(tag, fn):
    try:
        port = fn()
        out.write("R:%s:OK:%s\n" % (tag, port))
    except OSError as e:
        out.write("R:%s:%s:\n" % (tag, errno.errorcode.get(e.errno, e.errno)))
def bound(fam, port, do_listen=True):
    s = socket.socket(fam, socket.SOCK_STREAM)
    keep.append(s)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", port))
    if do_listen:
        s.listen(8)
    return s.getsockname()[1]
def unbound_listen():
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    keep.append(s)
    s.listen(8)
    return s.getsockname()[1]
def udp_bind(port, fam=socket.AF_INET):
    s = socket.socket(fam, socket.SOCK_DGRAM)
    keep.append(s)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::" if fam == socket.AF_INET6 else "0.0.0.0", port))
    # Whatever reaches it is noted: the host sends it datagrams.
    def recv():
        d, a = s.recvfrom(100)
        out.write("R:udpgot:%s\n" % d.decode(errors="replace"))
    threading.Thread(target=recv, daemon=True).start()
    return s.getsockname()[1]
def loopback_bind(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    keep.append(s)
    s.bind(("127.0.0.1", port))
    s.listen(8)
    return s.getsockname()[1]
note("other6", lambda: bound(socket.AF_INET6, OTHER))
note("other4", lambda: loopback_bind(OTHER))
note("zero6", lambda: bound(socket.AF_INET6, 0))
note("zero4", lambda: bound(socket.AF_INET, 0))
note("unbound", unbound_listen)
note("udp", lambda: udp_bind(OTHER))
note("udp0", lambda: udp_bind(0))
note("udp06", lambda: udp_bind(0, socket.AF_INET6))

class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        h = self.client_address[0]
        if h.startswith("::ffff:"):
            h = h[7:]
        body = ("peer %s %d\n" % (h, self.client_address[1])).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if self.path == "/stop":
            threading.Thread(target=self.server.shutdown).start()
            threading.Thread(target=other.shutdown).start()
class Dual(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()
try:
    srv = Dual(("::", P), H)
    other = http.server.ThreadingHTTPServer(("0.0.0.0", P4), H)
except OSError as e:
    out.write("R:serve:%s:\n" % errno.errorcode.get(e.errno, e.errno))
    sys.exit(1)
out.write("R:serve:OK:%d\n" % P)
threading.Thread(target=other.serve_forever, daemon=True).start()
srv.serve_forever()
EOF
chmod 644 "$NETWD/serve.py"

# The host's client: one GET, printing the status, the body and its own
# address and port, or the error.
cat >"$T/get.py" <<'EOF'
import socket, sys
host, port, path = sys.argv[1], int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "/"
try:
    s = socket.create_connection((host, port), timeout=20)   # a hang guard
except OSError as e:
    print("connect failed: %s" % e.strerror)
    sys.exit(1)
me = s.getsockname()
s.sendall(b"GET %s HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n" % path.encode())
data = b""
while True:
    b = s.recv(4096)
    if not b:
        break
    data += b
status = data.split(b"\r\n")[0].decode()
body = data.split(b"\r\n\r\n", 1)[-1].decode().strip()
h = me[0][7:] if me[0].startswith("::ffff:") else me[0]
print("%s|%s|me %s %d" % (status, body, h, me[1]))
EOF

# The host tries to connect: prints "refused", "connected", or another
# error (a timeout is no answer either way: never taken for "refused").
host_try() {
	"$PY" -c '
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=20).close()
    print("connected")
except ConnectionRefusedError:
    print("refused")
except OSError as e:
    print("error: %s" % e)' "$1" "$2"
}

# The pids of the run: sbxrun ($SBX_PID) and every process below it.
run_pids() {
	_all=$SBX_PID
	_new=$SBX_PID
	while [ -n "$_new" ]; do
		_next=
		for _p in $_new; do
			_next="$_next $(pgrep -P "$_p" | tr '\n' ' ')"
		done
		# shellcheck disable=SC2086
		_new=$(echo $_next)
		_all="$_all $_new"
	done
	echo "$_all"
}

# udp_bound PORT: the local addresses of this machine's UDP sockets on
# PORT, from /proc/net/udp and udp6, one a line.
udp_bound() {
	"$PY" - "$1" <<'EOF'
import ipaddress, sys
port = int(sys.argv[1])
for f in ("/proc/net/udp", "/proc/net/udp6"):
    for line in open(f).read().splitlines()[1:]:
        addr, p = line.split()[1].split(":")
        if int(p, 16) != port:
            continue
        raw = bytes.fromhex(addr)
        # Each 32-bit word is in the host's (little-endian) order.
        raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))
        print(ipaddress.ip_address(raw))
EOF
}

# host_reach ADDR PORT: "refused", or who answered the host's connect:
# "other" when every listener ss(8) names on that port belongs to a
# process outside the run, "sandbox" when one belongs to the run (the leak
# these checks look for), "unseen" when ss names no owner (it cannot read
# the owners' descriptors here). The sandbox's ports are numbers of its
# own namespace, so a process outside the run (another test's server) may
# hold the same number on the host; only that one answering is no leak.
host_reach() {
	if [ "$(host_try "$1" "$2")" = refused ]; then
		echo refused
		return
	fi
	_run=" $(run_pids) "
	_seen=unseen
	for _p in $(ss -Hltnp "sport = :$2" | grep -o 'pid=[0-9]*' | cut -d= -f2); do
		case $_run in
		*" $_p "*)
			echo sandbox
			return
			;;
		esac
		_seen=other
	done
	echo "$_seen"
}

# not_reached ADDR PORT TEXT: the check that the host's connect found
# nothing of the run (refused, or another process's listener).
not_reached() {
	_r=$(host_reach "$1" "$2")
	case $_r in
	refused | other) pass "$3" ;;
	*)
		fail "$3"
		diag "the host's connect to $1 port $2 was answered ($_r)"
		;;
	esac
}

for mode in off on; do
	# shellcheck disable=SC2046
	set -- $(free_ports 3)
	P=$1 P4=$2 OTHER=$3
	rm -f "$NETWD/attempts.txt"
	sbx_bg -w "$NETWD" --network "$mode" --listen "$P,$P4" -- python3 serve.py "$P" "$P4" "$OTHER"
	if ! wait_for "grep -q '^R:serve:' '$NETWD/attempts.txt' 2>/dev/null" 15; then
		fail "network $mode: the server inside started"
		diag "$(cat "$T/bg.err" "$NETWD/attempts.txt" 2>/dev/null | tail -n 5)"
		kill -TERM "$SBX_PID" 2>/dev/null
		sbx_bg_wait 10
		continue
	fi
	is "$(sed -n 's/^R:serve:\([^:]*\):.*/\1/p' "$NETWD/attempts.txt")" OK \
	    "network $mode: the HTTP server inside bound the declared port $P"

	got=$("$PY" "$T/get.py" 127.0.0.1 "$P" /hello)
	me=${got##*|me }
	like "$got" "HTTP/1.0 200 OK|peer " "network $mode: it answers the host on 127.0.0.1:$P"
	like "$got" "|peer $me|" "network $mode: ... and sees the host client's real address and port ($me)"
	# A dual-stack wildcard bind is served on the host's 127.0.0.1 only
	# (one socket cannot bind two loopbacks without the wildcard, which
	# would answer on every address of the machine).
	got=$("$PY" "$T/get.py" ::1 "$P" /hello)
	like "$got" "connect failed: Connection refused" "network $mode: a dual-stack wildcard server is not on [::1]:$P"
	got=$("$PY" "$T/get.py" 127.0.0.1 "$P4" /hello)
	me=${got##*|me }
	like "$got" "|peer $me|" "network $mode: an IPv4-only server on the second declared port answers too"

	# What the sandbox tried: every attempt must have failed, and the host
	# checks each port a wrongly successful one would have opened.
	for k in other6:"binding an undeclared port (::)" other4:"binding an undeclared port (127.0.0.1)" \
	    zero6:"binding port 0 (::)" zero4:"binding port 0 (0.0.0.0)" \
	    unbound:"listen() on an unbound socket" udp:"binding a UDP port"; do
		tag=${k%%:*}
		what=${k#*:}
		line=$(grep "^R:$tag:" "$NETWD/attempts.txt")
		res=$(echo "$line" | cut -d: -f3)
		port=$(echo "$line" | cut -d: -f4)
		# Under namespaces every such bind is the jail's own (its own
		# network namespace): it may work, and the host must not see it.
		if [ "$SBX_BACKEND" != namespaces ]; then
			unlike "$res" OK "network $mode: $what fails ($res)"
		fi
		if [ -n "$port" ]; then
			diag "the sandbox holds $tag on port $port"
			not_reached 127.0.0.1 "$port" "network $mode: the host cannot reach that port ($port)"
		fi
	done
	not_reached 127.0.0.1 "$OTHER" "network $mode: nothing of the run answers on the undeclared port $OTHER (127.0.0.1)"
	not_reached ::1 "$OTHER" "network $mode: nor on [::1]:$OTHER"
	is "$(grep '^R:udp0:' "$NETWD/attempts.txt" | cut -d: -f3)" OK \
	    "network $mode: a UDP socket may still take an ephemeral port"
	# ... where, with the network off, nothing from the network reaches
	# it: under landlock, a host socket, it takes the port on loopback
	# (ss here shows the address; it was the wildcard, and any machine
	# could send to the sandbox). A datagram to each of this machine's
	# other addresses on that port reaches nothing of the run; with the
	# network on, under landlock it does (the control).
	for tag in udp0 udp06; do
		up=$(grep "^R:$tag:OK:" "$NETWD/attempts.txt" | cut -d: -f4)
		[ -n "$up" ] || continue
		# Under landlock the socket is this machine's: the address
		# it is bound on, read in /proc/net/udp and udp6 (ss(8) may
		# be missing in a container's image). The network on is the
		# control: there it stays the wildcard.
		if [ "$SBX_BACKEND" = landlock ]; then
			if [ "$mode" = off ]; then
				want=127.0.0.1 what="the host's loopback only"
				[ "$tag" = udp06 ] && want=::ffff:7f00:1 # ::ffff:127.0.0.1
			else
				want=0.0.0.0 what="the wildcard (control)"
				[ "$tag" = udp06 ] && want=::
			fi
			is "$(udp_bound "$up")" "$want" "network $mode: $tag is bound on $what"
		fi
		for a in $(host_addrs | grep -v -e '^127\.' -e '^::1$' -e '%'); do
			"$PY" -c 'import socket, sys
a, p = sys.argv[1], int(sys.argv[2])
s = socket.socket(socket.AF_INET6 if ":" in a else socket.AF_INET, socket.SOCK_DGRAM)
s.sendto(("to-%s-%s" % (a, p)).encode(), (a, p))' "$a" "$up" 2>/dev/null
		done
	done
	if [ "$mode" = off ]; then
		# Given the time a datagram that arrived would take to be noted.
		wait_for "grep -q '^R:udpgot:' '$NETWD/attempts.txt'" 2
		is "$(grep -c '^R:udpgot:' "$NETWD/attempts.txt")" 0 \
		    "network off: no datagram sent to this machine's other addresses reached the run"
	fi

	"$PY" "$T/get.py" 127.0.0.1 "$P" /stop >/dev/null
	sbx_bg_wait 10
	is "$SBX_STATUS" 0 "network $mode: the server stopped cleanly"
	diag "$(tr '\n' ' ' <"$NETWD/attempts.txt")"
done

done_testing
