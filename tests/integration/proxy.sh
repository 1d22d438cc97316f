#!/bin/sh
# The allowlist proxy on its own (tests/proxy-driver, no sandbox), with
# real clients (curl, Python's urllib and raw sockets) and real servers.
#
# The proxy refuses every address of its own machine, so the servers live
# on another one: the test runs in its own network and mount namespaces
# (user namespace too when not root), joined by a veth pair to a second
# network namespace holding the servers. A private /etc/hosts names them,
# since the proxy resolves with getaddrinfo() exactly as in sbxrun, and a
# private resolv.conf points at a closed port so unknown names fail fast.

if [ -z "${SBX_PROXY_TEST_NS:-}" ]; then
	SBX_PROXY_TEST_NS=1
	export SBX_PROXY_TEST_NS
	if [ "$(id -u)" = 0 ] && unshare -nm true 2>/dev/null; then
		exec unshare -nm sh "$0" "$@"
	elif unshare -rnm true 2>/dev/null; then
		exec unshare -rnm sh "$0" "$@"
	fi
	NS_SKIP="no network and mount namespaces here (unshare -rnm failed: user namespaces off?)"
fi

. "$(dirname "$0")/lib.sh"

unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY
DRIVER=${PROXY_DRIVER:-$(dirname "$SBXRUN")/tests/proxy-driver}
if [ ! -x "$DRIVER" ]; then
	if [ "$(uname -s)" = Linux ]; then
		fail "tests/proxy-driver is missing at $DRIVER (make check builds it)"
	else
		skip "no tests/proxy-driver: the proxy is built on Linux only"
	fi
	done_testing
	exit
fi
if [ -n "${NS_SKIP:-}" ]; then
	skip "$NS_SKIP"
	done_testing
	exit
fi
for tool in curl ip nsenter mount; do
	if ! command -v $tool >/dev/null; then
		skip "$tool is missing (apt-get install curl iproute2 util-linux)"
		done_testing
		exit
	fi
done

# The servers' machine: a network namespace held by a sleeping process.
ip link set lo up
unshare -n sleep 600 &
HOLD=$!
BG_PIDS="$BG_PIDS $HOLD"
wait_for '[ "$(readlink /proc/$HOLD/ns/net)" != "$(readlink /proc/self/ns/net)" ]' 5
inb() {
	nsenter -t "$HOLD" -n "$@"
}
if ! ip link add sbxp0 type veth peer name sbxp1 netns "$HOLD" 2>"$T/veth.err"; then
	skip "no veth pair: $(cat "$T/veth.err")"
	done_testing
	exit
fi
ip addr add 10.231.0.1/24 dev sbxp0
ip -6 addr add fd00:231::1/64 dev sbxp0 nodad
ip link set sbxp0 up
inb ip link set lo up
inb ip addr add 10.231.0.2/24 dev sbxp1
inb ip -6 addr add fd00:231::2/64 dev sbxp1 nodad
inb ip link set sbxp1 up

cat >"$T/hosts" <<'EOF'
127.0.0.1 localhost
::1 localhost
10.231.0.2 allowed.test www.wild.test wild.test denied.test other.test
fd00:231::2 allowed6.test
127.0.0.1 loop.test
::1 loop6.test
10.231.0.1 self.test
169.254.169.254 metadata.test
10.231.0.2 mixed.test
127.0.0.1 mixed.test
EOF
echo 'nameserver 127.0.0.1' >"$T/resolv.conf"
if ! mount --bind "$T/hosts" /etc/hosts 2>"$T/mount.err" ||
    ! mount --bind "$T/resolv.conf" /etc/resolv.conf 2>>"$T/mount.err"; then
	skip "cannot bind a private /etc/hosts: $(cat "$T/mount.err")"
	done_testing
	exit
fi

# The servers: HTTP on 8080 (/echo answers with the request it got, /body
# with the request body, /file with a file), and a TCP echo on 7000.
head -c 8388608 /dev/urandom >"$T/rand"
head -c 104857600 /dev/zero >"$T/big"
cat >"$T/server.py" <<'EOF'
import http.server, os, socket, socketserver, sys, threading
d = sys.argv[1]

class H(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def log_message(self, *a):
        pass
    def send_body(self, body):
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "keep-alive")
        self.send_header("Keep-Alive", "timeout=5")
        self.end_headers()
        # Says keep-alive, yet honours the proxy's "Connection: close".
        self.close_connection = "close" in self.headers.get("Connection", "").lower()
        self.wfile.write(body)
    def do_GET(self):
        if self.path.startswith("/file/"):
            name = os.path.join(d, os.path.basename(self.path))
            with open(name, "rb") as f:
                size = os.fstat(f.fileno()).st_size
                self.send_response(200)
                self.send_header("Content-Length", str(size))
                self.end_headers()
                self.wfile.flush()
                self.connection.sendfile(f)
            return
        self.send_body((self.requestline + "\r\n" + str(self.headers)).encode())
    def do_POST(self):
        n = int(self.headers.get("Content-Length", "0"))
        self.send_body(self.rfile.read(n))

class S(http.server.ThreadingHTTPServer):
    address_family = socket.AF_INET6
    daemon_threads = True
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()

class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        while True:
            b = self.request.recv(65536)
            if not b:
                break
            self.request.sendall(b)

class E(socketserver.ThreadingTCPServer):
    address_family = socket.AF_INET6
    daemon_threads = True
    allow_reuse_address = True
    def server_bind(self):
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
        super().server_bind()

h = S(("::", 8080), H)
e = E(("::", 7000), Echo)
threading.Thread(target=e.serve_forever, daemon=True).start()
open(os.path.join(d, "ready"), "w").close()
h.serve_forever()
EOF

# Clients that curl cannot be: raw requests, tunnels, a slow client.
cat >"$T/client.py" <<'EOF'
import os, socket, sys, time, urllib.error, urllib.request
cmd, port = sys.argv[1], int(sys.argv[2])

def conn():
    s = socket.create_connection(("127.0.0.1", port), timeout=20)
    return s

def read_all(s):
    out = b""
    while True:
        b = s.recv(65536)
        if not b:
            return out
        out += b

def tunnel(s, target):
    s.sendall(b"CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n" % (target.encode(), target.encode()))
    head = b""
    while b"\r\n\r\n" not in head:
        b = s.recv(1)
        if not b:
            break
        head += b
    return head.split(b"\r\n")[0].decode()

if cmd == "raw":
    # The request is given with Python escapes (\r\n).
    s = conn()
    s.sendall(sys.argv[3].encode().decode("unicode_escape").encode("latin-1"))
    print(read_all(s).split(b"\r\n")[0].decode())
elif cmd == "big-header":
    s = conn()
    s.sendall(b"GET http://allowed.test:8080/echo HTTP/1.1\r\nX-Big: " + b"a" * 20000 + b"\r\n\r\n")
    print(read_all(s).split(b"\r\n")[0].decode())
elif cmd == "echo":
    # A CONNECT tunnel both ways: a line, 1 MiB, then our half-close
    # must reach the server and its close must come back.
    s = conn()
    status = tunnel(s, sys.argv[3])
    if " 200 " not in status + " ":
        print("status", status); sys.exit(1)
    s.sendall(b"ping\n")
    got = b""
    while len(got) < 5:
        got += s.recv(5 - len(got))
    if got != b"ping\n":
        print("line", got); sys.exit(1)
    data = os.urandom(1 << 20)
    s.sendall(data)
    s.shutdown(socket.SHUT_WR)
    back = read_all(s)
    print("ok" if back == data else "mismatch %d" % len(back))
elif cmd == "slow":
    # Half a request header, then nothing: the proxy must give up on us
    # (408) without holding anyone else up.
    s = conn()
    t = time.monotonic()
    s.sendall(b"GET http://allowed.test:8080/echo HTTP/1.1\r\nHo")
    print("sent", flush=True)
    r = read_all(s)
    print("%s %.1f" % (r.split(b"\r\n")[0].decode(), time.monotonic() - t), flush=True)
elif cmd == "hold":
    # An open tunnel while the proxy stops: it must be cut.
    s = conn()
    print(tunnel(s, sys.argv[3]), flush=True)
    t = time.monotonic()
    r = read_all(s)
    print("eof %.1f" % (time.monotonic() - t), flush=True)
elif cmd == "many":
    # Fill the proxy with idle connections: the next one gets 503 at once.
    n = int(sys.argv[3])
    socks = [conn() for _ in range(n)]
    time.sleep(1)
    s = conn()
    print(read_all(s).split(b"\r\n")[0].decode())
    for x in socks:
        x.close()
elif cmd == "urllib":
    o = urllib.request.build_opener(urllib.request.ProxyHandler({"http": "http://127.0.0.1:%d" % port}))
    try:
        r = o.open(sys.argv[3], timeout=10)
        print(r.status, r.read().decode().split("\r\n")[0])
    except urllib.error.HTTPError as e:
        print(e.code)
EOF

# nsenter execs the server (no fork for a network namespace alone), so
# $! is the server itself and the cleanup kills it.
nsenter -t "$HOLD" -n "$PY" "$T/server.py" "$T" >"$T/server.out" 2>&1 &
BG_PIDS="$BG_PIDS $!"
wait_for '[ -e "$T/ready" ]' 10 || diag "the servers did not start: $(cat "$T/server.out")"

mkfifo "$T/ctl"
INHERITED=" $(ls /proc/$$/fd | tr '\n' ' ') "
# Every name on the servers' ports (an entry without a port allows 80
# and 443 only); metadata.test on those two.
"$DRIVER" allowed.test:8080 allowed.test:7000 allowed6.test:8080 '*.wild.test:8080' \
	allowed.test:9 localhost:8080 loop.test:8080 loop6.test:8080 self.test:8080 metadata.test \
	mixed.test:8080 unknown.test:8080 10.231.0.2:8080 127.0.0.1:8080 \
	--deny deny.wild.test --deny allowed.test:7001 \
	<"$T/ctl" >"$T/events" 2>"$T/driver.err" &
DRV=$!
BG_PIDS="$BG_PIDS $DRV"
exec 9>"$T/ctl"
wait_for '[ -s "$T/events" ]' 5
PORT=$(sed -n '1s/^{"port":\([0-9]*\)}$/\1/p' "$T/events")
ok "the driver listens on a loopback port" [ -n "$PORT" ]
PROXY=http://127.0.0.1:$PORT

# The slow client goes first and stays for the whole test.
"$PY" "$T/client.py" slow "$PORT" >"$T/slow" 2>&1 9>&- &
SLOW=$!
BG_PIDS="$BG_PIDS $SLOW"
wait_for 'grep -qs sent "$T/slow"' 20

pcurl() {
	curl -sS --max-time 20 -x "$PROXY" "$@"
}
code() {
	pcurl -o /dev/null -w '%{http_code}' "$@"
}

# Allowed: a plain request, rewritten on its way.
out=$(pcurl -U user:secret -D "$T/h1" http://allowed.test:8080/echo)
# Served while the slow client still waits for its 408 (10 s from its
# start): an order, not a time, so a busy machine cannot fail it.
slow_answered=$(sed -n 2p "$T/slow")
like "$out" "GET /echo HTTP/1.1" "plain request: origin-form target to the server"
like "$out" "Host: allowed.test:8080" "plain request: Host from the URI"
unlike "$out" "Proxy-Authorization" "plain request: Proxy-Authorization is not passed on"
unlike "$out" "Proxy-Connection" "plain request: Proxy-Connection is not passed on"
like "$out" "Connection: close" "plain request: one request per connection"
like "$(cat "$T/h1")" "Connection: close" "plain answer: the client is told the connection ends"
unlike "$(cat "$T/h1")" "Keep-Alive" "plain answer: Keep-Alive is dropped"
is "$slow_answered" "" "a second client is served while a slow one sends half a header"

out=$(printf 'hello body' | pcurl --data-binary @- http://allowed.test:8080/body)
is "$out" "hello body" "plain request: the body reaches the server"
out=$(pcurl -H 'Expect: 100-continue' --data-binary @"$T/rand" http://allowed.test:8080/body |
	sha256sum)
is "$out" "$(sha256sum <"$T/rand")" "plain request: 8 MiB up after a 100 Continue"
out=$(pcurl http://allowed.test:8080/file/rand | sha256sum)
is "$out" "$(sha256sum <"$T/rand")" "plain request: 8 MiB arrive intact"
out=$(pcurl -p http://allowed.test:8080/file/rand | sha256sum)
is "$out" "$(sha256sum <"$T/rand")" "CONNECT tunnel: 8 MiB arrive intact"
out=$(pcurl -p http://allowed.test:8080/echo)
like "$out" "GET /echo HTTP/1.1" "CONNECT tunnel: curl's request passes through"
out=$("$PY" "$T/client.py" echo "$PORT" allowed.test:7000)
is "$out" "ok" "CONNECT tunnel: data both ways, and a half-close"
out=$("$PY" "$T/client.py" urllib "$PORT" http://allowed.test:8080/echo)
is "$out" "200 GET /echo HTTP/1.1" "Python urllib through the proxy"
is "$(code http://allowed6.test:8080/echo)" 200 "a name with an IPv6 address"
is "$(code http://10.231.0.2:8080/echo)" 200 "an IPv4 literal listed exactly"
is "$(code http://www.wild.test:8080/echo)" 200 "*.wild.test allows www.wild.test"
is "$(code http://mixed.test:8080/echo)" 200 "a name with a local and a remote address: the remote one"

# Refused by policy: 403.
is "$(code http://wild.test:8080/echo)" 403 "*.wild.test does not allow wild.test"
out=$(pcurl http://denied.test:8080/echo)
like "$out" "host not allowed" "a name not listed: 403 says why"
is "$(pcurl -p -o /dev/null -w '%{http_connect}' http://denied.test:8080/ 2>/dev/null)" 403 \
	"CONNECT to a name not listed: 403"
is "$(code http://other.test:8080/echo)" 403 "a name not listed, same address as a listed one"
is "$(code http://10.231.0.3:8080/echo)" 403 "an address not listed"
is "$(code 'http://[fd00:231::2]:8080/echo')" 403 "an IPv6 literal not listed"
out=$(pcurl http://localhost:8080/echo)
like "$out" "local addresses" "localhost, though listed: 403"
is "$(code http://loop.test:8080/echo)" 403 "a listed name resolving to 127.0.0.1"
is "$(code http://loop6.test:8080/echo)" 403 "a listed name resolving to ::1"
is "$(code http://self.test:8080/echo)" 403 "a listed name resolving to this machine's own address"
is "$(code http://metadata.test/latest/)" 403 "a listed name resolving to the metadata address"
is "$(code http://127.0.0.1:8080/echo)" 403 "127.0.0.1, though listed"
is "$(pcurl -p -o /dev/null -w '%{http_connect}' http://loop.test:8080/ 2>/dev/null)" 403 \
	"CONNECT to a listed name resolving to 127.0.0.1: 403"

# Ports and deny entries.
like "$(pcurl http://allowed.test:9999/echo)" "port not allowed" "a listed host on another port: 403"
is "$(code http://allowed.test/echo)" 403 "a host listed with a port is not allowed on 80"
is "$(pcurl -p -o /dev/null -w '%{http_connect}' http://allowed.test:443/ 2>/dev/null)" 403 \
	"... nor CONNECT on 443"
like "$(pcurl http://deny.wild.test:8080/echo)" "host denied" "a denied name under an allowed *.suffix: 403"
is "$(pcurl -p -o /dev/null -w '%{http_connect}' http://deny.wild.test:8080/ 2>/dev/null)" 403 \
	"... and its CONNECT"

# SOCKS5 on the same port: names resolved by the proxy (socks5h), or
# addresses resolved by the client (socks5), under the same rules.
scurl() {
	curl -sS --max-time 20 -x "socks5h://127.0.0.1:$PORT" "$@"
}
like "$(scurl http://allowed.test:8080/echo)" "GET /echo HTTP/1.1" "SOCKS5 (socks5h): a listed name and port"
out=$(scurl http://allowed.test:8080/file/rand | sha256sum)
is "$out" "$(sha256sum <"$T/rand")" "SOCKS5: 8 MiB arrive intact"
out=$(curl -sS --max-time 20 -x "socks5://127.0.0.1:$PORT" http://allowed.test:8080/echo)
like "$out" "GET /echo HTTP/1.1" "SOCKS5 with an IPv4 address (10.231.0.2:8080 listed)"
scurl -o /dev/null http://allowed.test:9999/ 2>"$T/s1"
like "$(cat "$T/s1")" ". (2)" "SOCKS5, a listed name on another port: refused, code 2 (ruleset)"
scurl -o /dev/null http://deny.wild.test:8080/ 2>"$T/s2"
like "$(cat "$T/s2")" ". (2)" "SOCKS5, a denied name: code 2"
scurl -o /dev/null http://denied.test:8080/ 2>"$T/s3"
like "$(cat "$T/s3")" ". (2)" "SOCKS5, a name not listed: code 2"
scurl -o /dev/null http://loop.test:8080/ 2>"$T/s4"
like "$(cat "$T/s4")" ". (2)" "SOCKS5, a listed name resolving to 127.0.0.1: code 2"
socks_raw() {
	"$PY" - "$PORT" "$1" <<'PYEOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
s.sendall(bytes.fromhex(sys.argv[2]))
out = b""
try:
    while len(out) < 12:
        b = s.recv(64)
        if not b:
            break
        out += b
except OSError:
    pass
print(out.hex())
PYEOF
}
# Greeting + BIND (command 2) to allowed.test:8080, then UDP ASSOCIATE.
is "$(socks_raw 050100050200030c616c6c6f7765642e746573741f90)" "050005070001000000000000" \
	"SOCKS5 BIND: command not supported"
is "$(socks_raw 050100050300030c616c6c6f7765642e746573741f90)" "050005070001000000000000" \
	"SOCKS5 UDP ASSOCIATE: command not supported"
is "$(socks_raw 050102)" "05ff" "SOCKS5 without the no-authentication method: no acceptable method"
is "$(socks_raw 0501000501000900)" "050005080001000000000000" "SOCKS5 unknown address type: not supported"

# Malformed, unresolvable, unreachable.
raw() {
	"$PY" "$T/client.py" raw "$PORT" "$1"
}
like "$(raw 'garbage\r\n\r\n')" " 400 " "a request line that is not one: 400"
like "$(raw 'GET /echo HTTP/1.1\r\nHost: allowed.test\r\n\r\n')" " 400 " "origin-form to the proxy: 400"
like "$(raw 'GET https://allowed.test/ HTTP/1.1\r\n\r\n')" " 400 " "https:// without CONNECT: 400"
like "$(raw 'CONNECT allowed.test HTTP/1.1\r\n\r\n')" " 400 " "CONNECT without a port: 400"
like "$(raw 'CONNECT allowed.test:0 HTTP/1.1\r\n\r\n')" " 400 " "CONNECT to port 0: 400"
like "$(raw 'GET http://user@allowed.test:8080/ HTTP/1.1\r\n\r\n')" " 400 " "user info: 400"
like "$(raw 'GET http://127.1:8080/ HTTP/1.1\r\n\r\n')" " 403 " "127.1, no name the rules take: 403 (a refusal, as over SOCKS5)"
like "$(raw 'GET http://2130706433:8080/ HTTP/1.1\r\n\r\n')" " 403 " "2130706433: 403"
like "$(raw 'GET http://allowed.test%00.evil:8080/ HTTP/1.1\r\n\r\n')" " 403 " "a %00 in the host: 403"
like "$(raw 'GET http://allowed.test:8080/ HTTP/1.1\r\n folded\r\n\r\n')" " 400 " "obsolete line folding: 400"
like "$(raw 'GET http://allowed.test:8080/ HTTP/2.0\r\n\r\n')" " 400 " "HTTP/2.0 on the wire: 400"
like "$("$PY" "$T/client.py" big-header "$PORT")" " 431 " "a header over 16 KiB: 431"
like "$(raw 'GET http://ALLOWED.TEST.:8080/echo HTTP/1.0\r\n\r\n')" " 200 " "case and a trailing dot do not matter"
is "$(code http://unknown.test:8080/)" 502 "a listed name that does not resolve: 502"
is "$(code http://allowed.test:9/)" 502 "a listed name with nothing listening: 502"

# Every descriptor of the proxy is close-on-exec (O_CLOEXEC is 02000000),
# checked while the slow client's connection is open; those the driver
# inherited from this shell are not the proxy's.
bad=
for f in /proc/$DRV/fdinfo/*; do
	n=${f##*/}
	[ "$n" -le 2 ] && continue
	case $INHERITED in *" $n "*) continue ;; esac
	flags=$(sed -n 's/^flags:[[:space:]]*//p' "$f" 2>/dev/null)
	[ -n "$flags" ] || continue
	[ $((0$flags & 02000000)) -ne 0 ] || bad="$bad $n"
done
is "$bad" "" "every descriptor of the proxy is close-on-exec"

# Throughput, 100 MiB: direct and through the proxy, side by side.
speed() {
	curl -sS --max-time 60 -o /dev/null -w '%{size_download} %{speed_download}' "$@"
}
direct=$(speed http://10.231.0.2:8080/file/big)
plain=$(speed -x "$PROXY" http://allowed.test:8080/file/big)
tunnel=$(speed -p -x "$PROXY" http://allowed.test:8080/file/big)
is "${direct% *} ${plain% *} ${tunnel% *}" "104857600 104857600 104857600" \
	"100 MiB direct, through the proxy, and through a tunnel"
diag "$(awk -v d="${direct#* }" -v p="${plain#* }" -v t="${tunnel#* }" 'BEGIN {
	printf "direct %.0f MB/s, proxy %.0f MB/s (%.2f), tunnel %.0f MB/s (%.2f)",
	    d / 1e6, p / 1e6, p / d, t / 1e6, t / d }')"

# The slow client: 408 after the header timeout, never served.
wait "$SLOW"
like "$(cat "$T/slow")" " 408 " "a client that never finishes its header gets 408"
secs=$(sed -n '2s/.* \([0-9]*\)\.[0-9]$/\1/p' "$T/slow")
# Never early; the upper bound is a hang guard (the machine may be busy).
ok "after about 10 s (took ${secs:-?} s)" [ "${secs:-0}" -ge 9 -a "${secs:-99}" -le 40 ]

# A connection limit, so the sandbox cannot spend the host's threads.
like "$("$PY" "$T/client.py" many "$PORT" 256)" " 503 " "connection 257 gets 503"
wait_for '[ "$(ls /proc/$DRV/task | wc -l)" -le 3 ]' 20
is "$(code http://allowed.test:8080/echo)" 200 "and when they close, service resumes"

# Stop: an open tunnel is cut, the driver returns quickly, and nothing is
# logged after the stop.
"$PY" "$T/client.py" hold "$PORT" allowed.test:7000 >"$T/hold" 2>&1 9>&- &
HOLDC=$!
BG_PIDS="$BG_PIDS $HOLDC"
wait_for 'grep -qs " 200 " "$T/hold"' 20
exec 9>&-
wait_for '! kill -0 $DRV 2>/dev/null' 20
ok "the driver exits once its input closes" sh -c "! kill -0 $DRV 2>/dev/null"
wait "$DRV"
is "$?" 0 "the driver exits 0"
is "$(cat "$T/driver.err")" "" "the driver printed no error (nor a sanitizer report)"
wait_for 'grep -q eof "$T/hold"' 20
like "$(cat "$T/hold")" "eof" "an open tunnel is cut at stop"
last=$(last_line "$T/events")
like "$last" '"stopped":true' "nothing is logged after the stop"

# The log: one JSON object a line, decisions with their reasons.
"$PY" - "$T/events" >"$T/check" 2>&1 <<'EOF'
import json, sys
ev = [json.loads(l) for l in open(sys.argv[1])]
dec = [e for e in ev if e.get("kind") == "decision"]
closed = [e for e in ev if e.get("kind") == "closed"]
def find(host, **kw):
    return [e for e in dec if e["host"] == host and all(e.get(k) == v for k, v in kw.items())]
errs = []
if not find("allowed.test", allowed=True, addr="10.231.0.2", method="GET"):
    errs.append("no allowed GET to allowed.test at 10.231.0.2")
if not find("allowed.test", allowed=True, status=200, method="CONNECT"):
    errs.append("no allowed CONNECT to allowed.test")
if not find("allowed6.test", allowed=True, addr="fd00:231::2"):
    errs.append("no allowed6.test at fd00:231::2")
if not find("mixed.test", allowed=True, addr="10.231.0.2"):
    errs.append("mixed.test not connected to 10.231.0.2")
if not find("allowed.test", allowed=True, status=200, method="SOCKS5"):
    errs.append("no allowed SOCKS5 connection to allowed.test")
if not find("allowed.test", allowed=False, status=403, method="SOCKS5", port=9999,
            reason="port not allowed for this host"):
    errs.append("no SOCKS5 refusal of allowed.test:9999")
if not find("deny.wild.test", allowed=False, status=403, method="SOCKS5", reason="host denied"):
    errs.append("no SOCKS5 refusal of deny.wild.test")
if not find("deny.wild.test", allowed=False, status=403, method="GET", reason="host denied"):
    errs.append("no HTTP refusal of deny.wild.test")
if not [e for e in dec if e["method"] == "SOCKS5" and e["status"] == 403
        and e["reason"].startswith("SOCKS5 command not supported")]:
    errs.append("no SOCKS5 refusal of BIND")
if not find("denied.test", allowed=False, status=403, reason="host not allowed"):
    errs.append("no refusal of denied.test")
if not [e for e in find("localhost", allowed=False, status=403,
                        reason="host resolves only to local addresses")
        if e["addr"] in ("127.0.0.1", "::1")]:
    errs.append("no refusal of localhost naming its address")
if not find("self.test", allowed=False, status=403, addr="10.231.0.1"):
    errs.append("no refusal of self.test")
if not [e for e in closed if e["host"] == "allowed.test" and e["bytes_down"] >= 104857600]:
    errs.append("no closed event with the 100 MiB")
if not [e for e in dec if e["status"] == 408 and e["host"] is None]:
    errs.append("no 408 decision")
if not [e for e in dec if e["status"] == 503 and e["reason"] == "too many connections"]:
    errs.append("no 503 decision")
ids = {e["id"] for e in closed}
if not ids <= {e["id"] for e in dec if e["allowed"]}:
    errs.append("a closed event without an allowed decision")
denied = len([e for e in dec if e["status"] == 403])
if ev[-1].get("denials") != denied:
    errs.append("denials %r, 403 decisions %d" % (ev[-1].get("denials"), denied))
for e in errs:
    print("# " + e)
sys.exit(1 if errs else 0)
EOF
ok "the events name each decision, address and reason" [ $? -eq 0 ] || cat "$T/check"

done_testing
