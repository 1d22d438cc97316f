# The sandbox's own loopback (sbxrun(1), NETWORK): in every network mode
# (off, on, --listen, --connect, -p ci) a real HTTP server inside on
# 127.0.0.1 and ::1, port 0, answers a client inside; a host listener on
# loopback stays unreachable (its log, read here, stays empty); under
# namespaces the sandbox's server is private (the host's own request never
# reaches it: the server's log, read here, proves it). Then --listen P with
# a wildcard bind answers on the host's 127.0.0.1:P and not on this
# machine's other addresses. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/net-lib.sh"

net_fixture
hostlsn_start || net_abort "the host listeners" "they did not start"

free_port() {
	"$PY" -c 'import socket
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
s.bind(("::", 0))
print(s.getsockname()[1])'
}

cat >"$NETWD/own.py" <<'EOF2'
# own.py TAG HL_PORT: HTTP servers on 127.0.0.1:0 and [::1]:0, a client
# inside, attempts on the host listener, then waits for the host's try.
import http.server, os, socket, sys, threading, time, urllib.request
tag, hl = sys.argv[1], int(sys.argv[2])
log = open("own-%s.log" % tag, "a", buffering=1)
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        log.write("GET %s\n" % self.path)
        body = ("own-%s\n" % tag).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
class V6(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
ports = {}
for name, host, cls in (("v4", "127.0.0.1", http.server.ThreadingHTTPServer), ("v6", "::1", V6)):
    try:
        srv = cls((host, 0), H)
    except OSError as e:
        print("R:%s:bind %s" % (name, e.strerror), flush=True)
        continue
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    ports[name] = srv.server_address[1]
    url = "http://%s:%d/inside" % (host if name == "v4" else "[::1]", ports[name])
    try:
        body = urllib.request.urlopen(url, timeout=20).read().decode().strip()
        print("R:%s:%s" % (name, "OK" if body == "own-" + tag else body), flush=True)
    except OSError as e:
        print("R:%s:get %s" % (name, e), flush=True)
for name, host in (("hl4", "127.0.0.1"), ("hl6", "::1")):
    try:
        s = socket.create_connection((host, hl), timeout=20)
        s.sendall(("%s-%s\n" % (name, tag)).encode())
        s.close()
        print("R:%s:OK" % name, flush=True)
    except OSError as e:
        print("R:%s:%s" % (name, e.strerror), flush=True)
with open("ports-%s.tmp" % tag, "w") as f:
    f.write("%d %d\n" % (ports.get("v4", 0), ports.get("v6", 0)))
os.rename("ports-%s.tmp" % tag, "ports-%s" % tag)
for _ in range(200):
    if os.path.exists("go-%s" % tag):
        break
    time.sleep(0.1)
print("R:done:OK", flush=True)
EOF2
chmod 644 "$NETWD/own.py"

# The host's try at the sandbox's server: prints what it got (at most
# 20 s: a hang guard; a slow server is still an answer).
host_get() {
	"$PY" -c '
import sys, urllib.request
try:
    print(urllib.request.urlopen(sys.argv[1], timeout=20).read().decode().strip())
except Exception as e:
    print("failed: %s" % e)' "$1"
}

LP=$(free_port)
n=0
for mode in off on listen connect ci; do
	n=$((n + 1))
	tag=$mode$n
	case $mode in
	off) args= ;;
	on) args="--network on" ;;
	listen) args="--listen $LP" ;;
	connect) args="--connect 8001" ;;
	ci) args="--profile $SRCDIR/profiles/ci.ini --backend $SBX_BACKEND" ;;
	esac
	rm -f "$NETWD/ports-$tag" "$NETWD/go-$tag" "$NETWD/own-$tag.log"
	hl_mark
	# shellcheck disable=SC2086
	sbx_bg -w "$NETWD" $args -- python3 own.py "$tag" "$HL_TCP"
	if ! wait_for "[ -s '$NETWD/ports-$tag' ]" 30; then
		fail "$mode: the servers inside started"
		diag "$(tail -n 5 "$T/bg.err" 2>/dev/null)"
		kill -TERM "$SBX_PID" 2>/dev/null
		sbx_bg_wait 10
		continue
	fi
	read -r p4 p6 <"$NETWD/ports-$tag"
	if [ "$SBX_BACKEND" = namespaces ]; then
		got4=$(host_get "http://127.0.0.1:$p4/from-host")
		got6=$(host_get "http://[::1]:$p6/from-host")
		unlike "$got4" "own-$tag" "$mode: the host does not reach the sandbox's server on 127.0.0.1:$p4"
		unlike "$got6" "own-$tag" "$mode: ... nor on [::1]:$p6"
	fi
	: >"$NETWD/go-$tag"
	sbx_bg_wait 20
	cp "$T/bg.out" "$T/out" 2>/dev/null
	is "$SBX_STATUS" 0 "$mode: the run ended cleanly"
	is "$(res_of v4)" OK "$mode: a server inside on 127.0.0.1 port 0 answers a client inside"
	is "$(res_of v6)" OK "$mode: ... and one on ::1 port 0"
	if [ "$SBX_BACKEND" = namespaces ]; then
		nok "$mode: the sandbox's server never saw the host's request (its log)" \
		    grep -q from-host "$NETWD/own-$tag.log"
	fi
	# A fence of this machine's on the host listener (net_fence): a
	# connection of the sandbox's is logged before it.
	net_fence hltcp
	cp "$T/hl.step" "$T/hl.new"
	nok "$mode: the host listener on loopback logged nothing from the sandbox" \
	    grep -q "$tag" "$T/hl.new"
	unlike "$(res_of hl4)" OK "$mode: the sandbox's connect to the host's 127.0.0.1:$HL_TCP failed"
	diag "$mode: $(sed -n 's/^R://p' "$T/out" | tr '\n' ' ')"
done

# --- --listen P with a wildcard bind: host loopback only -----------------
cat >"$NETWD/wild.py" <<'EOF2'
import http.server, socket, sys
P, P6 = int(sys.argv[1]), int(sys.argv[2])
class H(http.server.BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass
    def do_GET(self):
        body = b"wild\n"
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)
        if self.path == "/stop":
            import threading
            threading.Thread(target=self.server.shutdown).start()
            threading.Thread(target=other.shutdown).start()
class Dual(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()
srv = http.server.ThreadingHTTPServer(("0.0.0.0", P), H)
other = Dual(("::", P6), H)
import threading
threading.Thread(target=other.serve_forever, daemon=True).start()
open("wild-ready", "w").close()
srv.serve_forever()
EOF2
chmod 644 "$NETWD/wild.py"
P=$(free_port)
P6=$(free_port)
rm -f "$NETWD/wild-ready"
sbx_bg -w "$NETWD" --listen "$P,$P6" -- python3 wild.py "$P" "$P6"
if wait_for "[ -e '$NETWD/wild-ready' ]" 30; then
	is "$(host_get "http://127.0.0.1:$P/")" wild "listen 0.0.0.0:$P answers on the host's 127.0.0.1:$P"
	like "$(host_get "http://$NET_LOCAL4:$P/")" "Connection refused" \
	    "... and not on this machine's address $NET_LOCAL4"
	is "$(host_get "http://127.0.0.1:$P6/")" wild "listen [::]:$P6 (dual stack) answers on 127.0.0.1:$P6"
	like "$(host_get "http://$NET_LOCAL4:$P6/")" "Connection refused" "... and not on $NET_LOCAL4"
	like "$(host_get "http://[$NET_LOCAL6]:$P6/")" "Connection refused" "... nor on [$NET_LOCAL6]"
	host_get "http://127.0.0.1:$P/stop" >/dev/null
else
	fail "the wildcard server started"
	diag "$(tail -n 5 "$T/bg.err" 2>/dev/null)"
	kill -TERM "$SBX_PID" 2>/dev/null
fi
sbx_bg_wait 10

# --- the sandbox's own server on a listen port ---------------------------------
# A server on --listen P is served on the host's 127.0.0.1:P (under
# namespaces its bind is made there), and the sandbox's own connects to
# it must reach it under both backends: each is judged by the listeners
# the kernel lists on P, all of which must be the sandbox's. Another
# process's [::]:P with IPV6_V6ONLY takes no IPv4 connection, so it must
# not make the port look shared: another local user could otherwise
# refuse the sandbox its own server by holding one (found by review).
P=$(free_port)
cat >"$T/v6only.py" <<'EOF2'
import socket, sys, time
s = socket.socket(socket.AF_INET6)
s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
s.bind(("::", int(sys.argv[1])))
s.listen(1)
open(sys.argv[2], "w").close()
time.sleep(30)
EOF2
cat >"$NETWD/ownsrv.py" <<'EOF2'
import socket, sys
srv = socket.socket()
srv.bind(("127.0.0.1", int(sys.argv[1])))
srv.listen(1)
for i in range(3):
    c = socket.create_connection(("127.0.0.1", int(sys.argv[1])), 10)
    srv.accept()[0].close()
    c.close()
print("R:own:OK")
EOF2
chmod 644 "$NETWD/ownsrv.py"
"$PY" "$T/v6only.py" "$P" "$T/v6only-ready" &
V6PID=$!
JAIL_PIDS="$JAIL_PIDS $V6PID"
wait_for "[ -e '$T/v6only-ready' ]" 10
jail -w "$NETWD" --listen "$P" -- python3 ownsrv.py "$P"
kill "$V6PID" 2>/dev/null
is_status 0 "a host IPv6-only listener on [::]:$P: the run ended cleanly"
is "$(res_of own)" OK "... and the sandbox's connects to its own 127.0.0.1:$P all went through"

# The other way round: a host server already on 127.0.0.1:P, a listen
# port of the run. The sandbox cannot bind P, and its connect there must
# not reach that server (its log, read here, stays empty).
P=$(free_port)
cat >"$T/hostsrv.py" <<'EOF2'
import socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(4)
open(sys.argv[2] + ".ready", "w").close()
s.settimeout(30)
try:
    while True:
        c, peer = s.accept()
        open(sys.argv[2], "a").write("connection from %s\n" % (peer,))
        c.close()
except OSError:
    pass
EOF2
rm -f "$T/hostsrv.log" "$T/hostsrv.log.ready"
"$PY" "$T/hostsrv.py" "$P" "$T/hostsrv.log" &
HSPID=$!
JAIL_PIDS="$JAIL_PIDS $HSPID"
wait_for "[ -e '$T/hostsrv.log.ready' ]" 10
jail -w "$NETWD" --listen "$P" -- python3 -c '
import socket, sys
try:
    socket.create_connection(("127.0.0.1", int(sys.argv[1])), 10).close()
    print("R:host:OK")
except OSError as e:
    print("R:host:%s" % e.__class__.__name__)' "$P"
kill "$HSPID" 2>/dev/null
is_status 0 "a host server on the listen port $P: the run ended cleanly"
unlike "$(res_of host)" OK "... the sandbox's connect to 127.0.0.1:$P failed"
is "$(cat "$T/hostsrv.log" 2>/dev/null)" "" "... and the host server logged no connection"

done_testing
