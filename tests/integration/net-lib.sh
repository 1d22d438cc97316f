# Shared helpers of the net-*.sh integration tests (POSIX sh): sbxrun(1),
# NETWORK, observed from outside the sandbox.
#
# Each net-TOPIC.sh is a body run for $SBX_BACKEND (default namespaces);
# net-TOPIC-landlock.sh sets SBX_BACKEND=landlock and sources it, as the
# jail suite does. Run one by hand with
#
#	SBXRUN=/path/to/sbxrun [SBX_BACKEND=landlock] sh tests/integration/net-on.sh
#
# The test network
# ----------------
# Three kinds of peers, each logging every connection, datagram and DNS
# query it receives, so that every verdict is read on the peer's side:
#
#  - The remote host: tests/net-fixture, a network namespace joined to this
#    machine by a veth pair, on 198.18.N.2 and fd00:5b:N::2 (addresses that
#    exist only there; this machine's end is 198.18.N.1 / fd00:5b:N::1).
#    TCP echo servers on 8001-8003, HTTP on 8080, UDP echo on 7007, a DNS
#    server on 53 answering *.sbx.test; its log is $NET_LOG. It is the
#    "non-local address" the rules give out. Creating it needs root: run
#    as root, a script makes its own and tears it down on exit; run
#    unprivileged, it uses the one named by SBX_NET_FIXTURE (made by root
#    beforehand, as .ci/run does around its unprivileged phase) and fails
#    -- never skips -- without one.
#
#  - This machine's services: hostlsn_start starts, as the caller, two
#    dual-stack TCP listeners and a dual-stack UDP socket on [::] (they
#    answer on every address of every interface: loopback, eth0, docker0,
#    the fixture's end of the veth), an abstract unix socket and path unix
#    sockets outside /tmp and in a workdir. Each line of $HL/log names the
#    local address that was reached, so one listener tells apart an
#    attempt on 127.0.0.1 from one on 172.17.0.1.
#
#  - The resolver: the supervisor gives the sandbox exactly the nameservers
#    of /etc/resolv.conf, on port 53, and only with outbound permission. To
#    see the queries, the DNS tests run sbxrun in a mount namespace of its
#    own where $NET_RESOLV (naming the remote host's DNS server) is bound
#    over /etc/resolv.conf (rjail): sbxrun, its proxy and the sandbox all
#    read it. A root caller needs only the mount namespace; an unprivileged
#    one gets a user namespace mapping its own uid to itself (so sbxrun
#    still runs as that uid, with no capability once it is exec'd).
#
# On top of jail-lib.sh this gives:
#
#   net_fixture                 sets up (or adopts) the fixture, sources its
#                               env (NET_REMOTE4 ... see tests/net-fixture)
#   rl_mark / rl_new            remember the remote log's length / print the
#                               lines logged since
#   rl_has TEXT                 a line logged since the mark contains TEXT
#   rl_got KIND PORT FROM TAG   the remote host got attempt TAG's bytes
#                               (KIND data: TCP, udp: UDP) on PORT from FROM
#   net_settle                  waits until both logs stop growing
#   hostlsn_start               the host listeners: HL_TCP HL_TCP2 HL_UDP
#                               HL_ABS HL_SOCK HL_WSOCK, log $HL/log
#   hl_mark / hl_new            as rl_mark / rl_new for $HL/log
#   host_addrs                  every address of this machine's interfaces,
#                               one a line (link-local ones as ADDR%DEV)
#   host_bcasts                 their IPv4 broadcast addresses
#   LOOP_SPELLINGS              other ways to write "this machine"
#   $NETWD                      a workdir holding netc.py (the client)
#   netc [JAIL-ARG]... -- ATTEMPT...
#                               runs netc.py in the jail (in $NETWD)
#   netc_bare ATTEMPT...        the same client outside any sandbox
#   res_of TAG                  what netc reported for attempt TAG
#   rjail [ARG]...              jail with the fixture's resolv.conf ($RESOLV
#                               if set: $NET_RESOLV_STUB names the stub)
#   rjail_ok                    whether rjail can be used (else says why)
#   denials_are N DESC          the diagnostics line counts N denials
#
# netc.py attempts (one argument each, comma-separated fields; every one
# prints "R:TAG:OK" or "R:TAG:<errno name>"):
#
#   tcp,TAG,HOST,PORT        connect, send "TAG\n", read the echo (1 s)
#   tfo,TAG,HOST,PORT        sendto("TAG\n", MSG_FASTOPEN, HOST:PORT)
#   tfom,TAG,HOST,PORT       the same with sendmsg()
#   mptcp,TAG,HOST,PORT      the same connect on an MPTCP socket
#   udp,TAG,HOST,PORT        sendto("TAG\n", HOST:PORT)
#   udpc,TAG,HOST,PORT       connect, then send("TAG\n")
#   bcast,TAG,HOST,PORT      sendto with SO_BROADCAST set
#   gai,TAG,NAME             getaddrinfo(NAME), any family ("I:TAG:addrs")
#   dnsq,TAG,HOST,NAME       a DNS question for NAME sent to HOST port 53
#   unix,TAG,PATH            a stream unix connect; @NAME is abstract
#   sock,TAG,FAMILY,TYPE,PROTO  socket() alone (numbers)

. "$(dirname "$0")/jail-lib.sh"

unset http_proxy https_proxy HTTP_PROXY HTTPS_PROXY all_proxy ALL_PROXY no_proxy NO_PROXY

NET_OWN=
_net_cleanup() {
	if [ -n "$NET_OWN" ]; then
		sh "$SRCDIR/tests/net-fixture" down "$NET_OWN" >/dev/null 2>&1
	fi
	_jail_cleanup
}
trap _net_cleanup EXIT

# A failure that ends the script: the plan shows it, nothing is skipped.
net_abort() {
	fail "$1"
	shift
	diag "$@"
	done_testing
	exit 1
}

net_fixture() {
	if [ -n "${SBX_NET_FIXTURE:-}" ]; then
		NETFX=$SBX_NET_FIXTURE
		[ -r "$NETFX/env" ] || net_abort "the remote test network" \
		    "SBX_NET_FIXTURE=$NETFX holds no readable env: make it with" \
		    "  tests/net-fixture up $NETFX   (as root)"
	elif [ "$(id -u)" = 0 ]; then
		NETFX=$JT/fixture
		if ! sh "$SRCDIR/tests/net-fixture" up "$NETFX" >"$T/fixture.out" 2>&1; then
			net_abort "the remote test network" "tests/net-fixture up failed:" \
			    "$(cat "$T/fixture.out")"
		fi
		NET_OWN=$NETFX
	else
		net_abort "the remote test network" \
		    "not root and SBX_NET_FIXTURE is not set: an unprivileged run needs the" \
		    "remote test network made by root beforehand:" \
		    "  tests/net-fixture up DIR   (as root; .ci/run does this)" \
		    "  SBX_NET_FIXTURE=DIR $0     (as this user)" \
		    "  tests/net-fixture down DIR (as root)"
	fi
	# shellcheck disable=SC1091
	. "$NETFX/env"
	diag "remote host $NET_REMOTE4 / $NET_REMOTE6 (netns $NET_NS, this end $NET_LOCAL4)"
	"$PY" -c 'import socket, sys
socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3).close()' \
	    "$NET_REMOTE4" "$NET_BENCH_PORT" 2>"$T/fixture.err" ||
	    net_abort "the remote test network answers" \
	    "$NET_REMOTE4:$NET_BENCH_PORT: $(tail -n 1 "$T/fixture.err")"
}

rl_mark() {
	RL_MARK=$(wc -l <"$NET_LOG" | tr -d ' ')
}
rl_new() {
	tail -n +"$((RL_MARK + 1))" "$NET_LOG"
}
rl_has() {
	rl_new | grep -qF -- "$1"
}

# rl_got KIND PORT FROM TAG: the remote host logged, since the mark, what
# attempt TAG sent ("data" for TCP, "udp") to PORT from address FROM.
rl_got() {
	rl_new | grep -F -- "b'$4\\n'" | grep -qF -- "$1 $2 from $3:"
}

# Waits until the remote host's log and the host listeners' log stop
# growing (1 s without a new line, at most 15 s): what a previous step sent
# is in before the next mark.
net_settle() {
	_i=0
	_prev=
	while [ "$_i" -lt 15 ]; do
		_now="$(wc -l <"$NET_LOG") $(cat "${HL:-/nonexistent}/log" 2>/dev/null | wc -l)"
		[ "$_now" = "$_prev" ] && return 0
		_prev=$_now
		_i=$((_i + 1))
		sleep 1
	done
}

# What the remote host logged since the mark, for a failure's diagnostics.
rl_show() {
	diag "remote log since the mark:" "$(rl_new | head -n 20)"
}

hl_mark() {
	HL_MARK=$(wc -l <"$HL/log" | tr -d ' ')
}
hl_new() {
	tail -n +"$((HL_MARK + 1))" "$HL/log"
}

# Every address of this machine's interfaces, from "ip -o addr" -- but
# those of other fixtures (other test scripts running at the same time),
# which may go away in the middle of a test.
host_addrs() {
	ip -o addr show 2>/dev/null | awk -v own="${NET_IF:-}" '
		$2 ~ /^sbxn[0-9]+$/ && $2 != own { next }
		{
		a = $4; sub("/.*", "", a)
		if ($3 == "inet6" && a ~ /^fe80:/) a = a "%" $2
		print a }'
}

# The broadcast addresses of this machine's interfaces.
host_bcasts() {
	ip -o -4 addr show 2>/dev/null | awk -v own="${NET_IF:-}" '
		$2 ~ /^sbxn[0-9]+$/ && $2 != own { next }
		{ for (i = 1; i < NF; i++) if ($i == "brd") print $(i + 1) }'
}

# Other spellings of this machine: the rest of 127/8, the unspecified
# addresses (Linux connects them to loopback), IPv4-mapped loopback and
# unspecified, and the IPv4-compatible ::127.0.0.1.
LOOP_SPELLINGS="127.0.0.2 127.255.255.254 0.0.0.0 :: ::ffff:127.0.0.1 ::ffff:0.0.0.0 ::127.0.0.1"

NETWD=$T/netwd
mkdir -p "$NETWD"
chmod 755 "$NETWD"
cat >"$NETWD/netc.py" <<'EOF'
import errno, os, socket, struct, sys

def fam(host):
    return socket.AF_INET6 if ":" in host else socket.AF_INET

def sa(host, port, kind):
    # Through getaddrinfo, so that "fe80::1%eth0" gets its scope.
    return socket.getaddrinfo(host, int(port), fam(host), kind)[0][4]

def report(tag, fn):
    try:
        info = fn()
        print("R:%s:OK" % tag, flush=True)
        if info:
            print("I:%s:%s" % (tag, info), flush=True)
    except socket.gaierror as e:
        print("R:%s:GAI%d" % (tag, -e.errno if e.errno else 0), flush=True)
    except OSError as e:
        name = errno.errorcode.get(e.errno, "E%s" % e.errno) if e.errno else type(e).__name__
        print("R:%s:%s" % (tag, name), flush=True)

def tcp(tag, host, port, proto=0):
    s = socket.socket(fam(host), socket.SOCK_STREAM, proto)
    s.settimeout(3)
    try:
        s.connect(sa(host, port, socket.SOCK_STREAM))
        s.sendall(tag.encode() + b"\n")
        s.settimeout(1)
        try:
            return "echo %r" % s.recv(100)
        except OSError:
            return "no echo"
    finally:
        s.close()

def tfo(tag, host, port, msg=False):
    # Blocking: the kernel sends the SYN and waits for the connection.
    s = socket.socket(fam(host), socket.SOCK_STREAM)
    try:
        addr = sa(host, port, socket.SOCK_STREAM)
        if msg:
            s.sendmsg([tag.encode() + b"\n"], [], socket.MSG_FASTOPEN, addr)
        else:
            s.sendto(tag.encode() + b"\n", socket.MSG_FASTOPEN, addr)
        s.settimeout(1)
        try:
            return "echo %r" % s.recv(100)
        except OSError:
            return "no echo"
    finally:
        s.close()

def udp(tag, host, port, connected=False, bcast=False):
    s = socket.socket(fam(host), socket.SOCK_DGRAM)
    s.settimeout(1)
    if bcast:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
    try:
        if connected:
            s.connect(sa(host, port, socket.SOCK_DGRAM))
            s.send(tag.encode() + b"\n")
        else:
            s.sendto(tag.encode() + b"\n", sa(host, port, socket.SOCK_DGRAM))
        try:
            return "echo %r" % s.recv(100)
        except OSError:
            return "no echo"
    finally:
        s.close()

def dnsq(host, name):
    # One real DNS question (type A), straight to HOST port 53.
    pkt = struct.pack("!HHHHHH", 0x5b5b, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        pkt += bytes([len(label)]) + label.encode()
    pkt += b"\0" + struct.pack("!HH", 1, 1)
    s = socket.socket(fam(host), socket.SOCK_DGRAM)
    s.settimeout(2)
    try:
        s.sendto(pkt, sa(host, 53, socket.SOCK_DGRAM))
        return "answer of %d bytes" % len(s.recv(512))
    finally:
        s.close()

def gai(name):
    r = socket.getaddrinfo(name, 80, 0, socket.SOCK_STREAM)
    return " ".join(sorted(set(a[4][0] for a in r)))

def unix(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect("\0" + path[1:] if path.startswith("@") else path)
    finally:
        s.close()

def sock(f, t, p):
    socket.socket(int(f), int(t), int(p)).close()

for a in sys.argv[1:]:
    kind, tag, *rest = a.split(",")
    if kind == "tcp":
        report(tag, lambda: tcp(tag, *rest))
    elif kind == "mptcp":
        report(tag, lambda: tcp(tag, *rest, proto=262))
    elif kind == "tfo":
        report(tag, lambda: tfo(tag, *rest))
    elif kind == "tfom":
        report(tag, lambda: tfo(tag, *rest, msg=True))
    elif kind == "udp":
        report(tag, lambda: udp(tag, *rest))
    elif kind == "udpc":
        report(tag, lambda: udp(tag, *rest, connected=True))
    elif kind == "bcast":
        report(tag, lambda: udp(tag, *rest, bcast=True))
    elif kind == "gai":
        report(tag, lambda: gai(*rest))
    elif kind == "dnsq":
        report(tag, lambda: dnsq(*rest))
    elif kind == "unix":
        report(tag, lambda: unix(*rest))
    elif kind == "sock":
        report(tag, lambda: sock(*rest))
    else:
        print("R:%s:BADATTEMPT" % tag, flush=True)
print("R:done:OK", flush=True)
EOF
chmod 644 "$NETWD/netc.py"

# netc [JAIL-ARG]... -- ATTEMPT...
netc() {
	_args=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_args="$_args $1"
		shift
	done
	[ $# -gt 0 ] && shift
	# $_args: sbxrun options without spaces in them, split on purpose.
	# shellcheck disable=SC2086
	jail -w "$NETWD" $_args -- python3 netc.py "$@"
}

netc_bare() {
	(cd "$NETWD" && "$PY" netc.py "$@") >"$T/bare.out" 2>&1
}

res_of() {
	sed -n "s/^R:$1://p" "${2:-$T/out}" | head -n 1
}
info_of() {
	sed -n "s/^I:$1://p" "${2:-$T/out}" | head -n 1
}

# Host listeners on every address of this machine (see the top).
hostlsn_start() {
	HL=$JT/hl
	mkdir -p "$HL" "$NETWD"
	chmod 755 "$HL"
	"$PY" - "$HL" "$(uniq_tag abs)" "$HL/host.sock" "$NETWD/wd.sock" <<'EOF' &
import os, socket, sys, threading, time
d, absname, sock, wsock = sys.argv[1:5]
log = open(os.path.join(d, "log"), "a", buffering=1)
lock = threading.Lock()
def norm(a):
    h = a[0] if isinstance(a, tuple) else (a or "?")
    if isinstance(a, tuple):
        if h.startswith("::ffff:"):
            h = h[7:]
    return h
def write(text):
    with lock:
        log.write(text + "\n")
# The listeners take ports below the ephemeral range (Linux's default
# starts at 32768), so that no port a sandbox's own namespace or another
# test hands out with bind(0) is ever one of them: what they log then
# came to them on purpose.
def bind_low(s):
    import random
    for _ in range(200):
        try:
            s.bind(("::", random.randrange(20000, 32768)))
            return
        except OSError:
            pass
    s.bind(("::", 0))
def tcp():
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.setsockopt(socket.IPPROTO_TCP, 23, 16)   # TCP_FASTOPEN: see Fast Open too
    bind_low(s)
    s.listen(512)
    return s
def unix(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    if path[0] != "\0":
        os.chmod(path, 0o777)
    s.listen(64)
    return s
def handle(name, c, peer):
    local = c.getsockname()
    c.settimeout(1)
    try:
        data = c.recv(100)
    except OSError:
        data = b""
    if name in ("tcp", "tcp2"):
        write("%s %d %s from %s: %r" % (name, local[1], norm(local), norm(peer), data))
    else:
        write("%s from %r: %r" % (name, peer, data))
    c.close()
def serve(name, s):
    while True:
        c, peer = s.accept()
        threading.Thread(target=handle, args=(name, c, peer), daemon=True).start()
t1, t2 = tcp(), tcp()
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
u.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RECVPKTINFO, 1)
u.setsockopt(socket.SOL_IP, 8, 1)   # IP_PKTINFO
bind_low(u)
for name, s in (("tcp", t1), ("tcp2", t2), ("abstract", unix("\0" + absname)),
                ("sock", unix(sock)), ("wsock", unix(wsock))):
    threading.Thread(target=serve, args=(name, s), daemon=True).start()
def udp():
    while True:
        data, anc, flags, peer = u.recvmsg(4096, 256)
        local = "?"
        for level, kind, val in anc:
            if level == socket.IPPROTO_IPV6 and kind == socket.IPV6_PKTINFO:
                local = norm((socket.inet_ntop(socket.AF_INET6, val[:16]),))
            elif level == socket.SOL_IP and kind == 8:   # IP_PKTINFO
                local = socket.inet_ntop(socket.AF_INET, val[8:12])
        write("udp %d %s from %s: %r" % (u.getsockname()[1], local, norm(peer), data[:60]))
threading.Thread(target=udp, daemon=True).start()
with open(os.path.join(d, "ports.tmp"), "w") as f:
    f.write("HL_TCP=%d\nHL_TCP2=%d\nHL_UDP=%d\nHL_ABS=%s\nHL_SOCK=%s\nHL_WSOCK=%s\n" % (
        t1.getsockname()[1], t2.getsockname()[1], u.getsockname()[1], absname, sock, wsock))
os.rename(os.path.join(d, "ports.tmp"), os.path.join(d, "ports"))
time.sleep(900)
EOF
	HL_PID=$!
	JAIL_PIDS="$JAIL_PIDS $HL_PID"
	wait_for "[ -s '$HL/ports' ]" 10 || return 1
	# shellcheck disable=SC1091
	. "$HL/ports"
	: >>"$HL/log"
}

# denials_are N DESC: the diagnostics count N denials. Under landlock a
# name lookup by a C program adds its own (glibc first tries nscd's unix
# socket, and that backend refuses every unix connect under a supervised
# network: documented), so there N is a lower bound.
denials_are() {
	if [ "$SBX_BACKEND" = landlock ]; then
		_d=$(jget denials)
		ok "$2 (at least $1; counted $_d)" [ "$_d" -ge "$1" ]
	else
		is "$(jget denials)" "$1" "$2"
	fi
}

# rjail: the fixture's resolv.conf bound over /etc/resolv.conf for sbxrun
# and everything it starts (see the top).
cat >"$T/nswrap.py" <<'EOF'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
CLONE_NEWNS, CLONE_NEWUSER = 0x00020000, 0x10000000
MS_BIND, MS_REC, MS_PRIVATE = 0x1000, 0x4000, 0x40000
resolv = sys.argv[1]
uid, gid = os.getuid(), os.getgid()
# A container whose engine bound the fixture's file over /etc/resolv.conf
# already (tests/containers) needs no namespace of its own for it.
with open(resolv, "rb") as a, open("/etc/resolv.conf", "rb") as b:
    if a.read() == b.read():
        os.execv(sys.argv[2], sys.argv[2:])
def check(r, what):
    if r != 0:
        sys.stderr.write("nswrap: %s: %s\n" % (what, os.strerror(ctypes.get_errno())))
        sys.exit(125)
check(libc.unshare(CLONE_NEWNS if uid == 0 else CLONE_NEWNS | CLONE_NEWUSER), "unshare")
if uid != 0:
    for f, t in (("setgroups", "deny"), ("uid_map", "%d %d 1" % (uid, uid)),
                 ("gid_map", "%d %d 1" % (gid, gid))):
        with open("/proc/self/" + f, "w") as fh:
            fh.write(t)
check(libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None), "making / private")
check(libc.mount(resolv.encode(), b"/etc/resolv.conf", None, MS_BIND, None),
      "binding " + resolv + " over /etc/resolv.conf")
os.execv(sys.argv[2], sys.argv[2:])
EOF
chmod 644 "$T/nswrap.py"

rjail() {
	"$PY" "$T/nswrap.py" "${RESOLV:-$NET_RESOLV}" "$SBXRUN" --diag fd:3 --backend "$SBX_BACKEND" "$@" \
	    >"$T/out" 2>"$T/err" 3>"$T/diag"
	SBX_STATUS=$?
}

rnetc() {
	_args=
	while [ $# -gt 0 ] && [ "$1" != -- ]; do
		_args="$_args $1"
		shift
	done
	[ $# -gt 0 ] && shift
	# shellcheck disable=SC2086
	rjail -w "$NETWD" $_args -- python3 netc.py "$@"
}

# Whether a private resolv.conf can be given to sbxrun here; if not, says
# why in RJAIL_WHY (an unprivileged caller needs user namespaces).
rjail_ok() {
	if "$PY" "$T/nswrap.py" "$NET_RESOLV" /bin/sh -c \
	    'grep -q "^nameserver $1\$" /etc/resolv.conf' sh "$NET_REMOTE4" 2>"$T/rjail.err"; then
		return 0
	fi
	RJAIL_WHY="cannot bind a private /etc/resolv.conf in a mount namespace ($(cat "$T/rjail.err")); an unprivileged caller needs user namespaces"
	return 1
}

# net_fence SPEC...: the fence that ends a step whose verdict is a log that
# stays empty (what a sandbox must not reach). A fixed sleep before reading
# the log lets a late line -- a listener slow to log on a loaded machine --
# make such a check pass without seeing the leak. Instead, after the run,
# this machine sends one tagged attempt to each listener the step targeted
# and waits (at most 20 s) until every one of them is logged. Each listener
# logs in arrival order per socket: a datagram socket is read by one thread
# in order; a TCP or unix one is accepted in order by one thread, and each
# connection's thread logs before anything else (the remote host) or after
# one recv that returns at once because the sandbox's side is closed by
# then (the host listeners), so a leak's line is written before the fence's
# (and the verdict reads every line since the mark, later ones included).
# SPEC: tcp:PORT (a remote echo port), http, udp, dns (the remote host's
# 8080, 7007, 53), stub (the loopback stub resolver), hltcp, hltcp2, hludp,
# abstract, sock, wsock (the host listeners, hostlsn_start).
# Leaves in $T/rl.step and $T/hl.step what the remote host and the host
# listeners logged since rl_mark / hl_mark, less the fence's own lines; a
# fence that does not arrive is a failure, and a line there too.
net_fence() {
	_ft=$(uniq_tag fence)
	_fa=
	_fn=0
	for _fs; do
		_fn=$((_fn + 1))
		case $_fs in
		tcp:*) _fa="$_fa tcp,$NET_REMOTE4,${_fs#tcp:}" ;;
		http) _fa="$_fa http,$NET_REMOTE4,$NET_HTTP_PORT" ;;
		udp) _fa="$_fa udp,$NET_REMOTE4,$NET_UDP_PORT" ;;
		dns) _fa="$_fa dns,$NET_REMOTE4,$NET_DNS_PORT" ;;
		stub) _fa="$_fa dns,$NET_STUB,53" ;;
		hltcp) _fa="$_fa tcp,127.0.0.1,$HL_TCP" ;;
		hltcp2) _fa="$_fa tcp,127.0.0.1,$HL_TCP2" ;;
		hludp) _fa="$_fa udp,127.0.0.1,$HL_UDP" ;;
		abstract) _fa="$_fa unix,@$HL_ABS" ;;
		sock) _fa="$_fa unix,$HL_SOCK" ;;
		wsock) _fa="$_fa unix,$HL_WSOCK" ;;
		*) _fa="$_fa bad,$_fs" ;;
		esac
	done
	# Each attempt waits for its answer (the echo, the HTTP or DNS reply, the
	# listener's close), sent after the line is logged; a datagram to the
	# host listener gets none, hence the wait on the logs below too.
	# shellcheck disable=SC2086
	"$PY" - "$_ft" $_fa >"$T/fence.out" 2>&1 <<'PYEOF'
import socket, sys
tag = sys.argv[1]
def fam(h):
    return socket.AF_UNIX if h.startswith("/") or h.startswith("@") else \
        socket.AF_INET6 if ":" in h else socket.AF_INET
def dnsq(name):
    import struct
    q = struct.pack("!HHHHHH", 0x5b5c, 0x0100, 1, 0, 0, 0)
    for label in name.split("."):
        q += bytes([len(label)]) + label.encode()
    return q + b"\0" + struct.pack("!HH", 1, 1)
for a in sys.argv[2:]:
    kind, host, *port = a.split(",")
    try:
        if kind in ("tcp", "http", "unix"):
            s = socket.socket(fam(host), socket.SOCK_STREAM)
            s.settimeout(20)
            s.connect(("\0" + host[1:] if host.startswith("@") else host) if kind == "unix"
                      else (host, int(port[0])))
            if kind != "unix":
                me = s.getsockname()
                h = me[0][7:] if me[0].startswith("::ffff:") else me[0]
                print("P:%s/%s:%d" % (port[0], h, me[1]), flush=True)
            s.sendall(b"GET /%s HTTP/1.0\r\n\r\n" % tag.encode() if kind == "http"
                      else tag.encode() + b"\n")
            s.recv(100)
            s.close()
        elif kind in ("udp", "dns"):
            s = socket.socket(fam(host), socket.SOCK_DGRAM)
            s.sendto(dnsq("fence-%s.sbx.test" % tag) if kind == "dns" else tag.encode() + b"\n",
                     (host, int(port[0])))
            s.close()
        else:
            print("F:%s:bad fence" % a, flush=True)
            continue
        print("F:%s:sent" % a, flush=True)
    except OSError as e:
        print("F:%s:%s" % (a, e), flush=True)
PYEOF
	# One line a fence, with its tag, in either log.
	if ! wait_for '[ "$(cat "$NET_LOG" "${HL:-/nonexistent}/log" 2>/dev/null | grep -cF "$_ft")" -ge "$_fn" ]' 20; then
		_fm="FENCE MISSING: $(cat "$NET_LOG" "${HL:-/nonexistent}/log" 2>/dev/null | grep -cF "$_ft") of $_fn fences ($*) logged in 20 s"
		fail "the fence after the step ($*) arrived"
		diag "$_fm" "$(sed -n 's/^F://p' "$T/fence.out")"
	else
		_fm=
	fi
	# The fence's TCP connections are also logged without the tag (on
	# accept, "tcp PORT from PEER"): by destination port and peer, and only
	# the last such line of each (a racer's earlier connection may have had
	# the same source port towards another port, or even the same one once
	# that connection had ended: removing it would lose a line).
	rl_new | awk -v tag="$_ft" -v peers=" $(sed -n 's/^P://p' "$T/fence.out" | tr '\n' ' ')" '
		{ line[NR] = $0 }
		index($0, tag) { skip[NR] = 1; next }
		$1 == "tcp" { for (i = 1; i < NF; i++) if ($i == "from") {
			p = $(i + 1); sub(/:$/, "", p)
			if (index(peers, " " $2 "/" p " ")) last[$2 "/" p] = NR
		} }
		END {
			for (k in last) skip[last[k]] = 1
			for (n = 1; n <= NR; n++) if (!(n in skip)) print line[n]
		}' >"$T/rl.step"
	if [ -n "${HL:-}" ] && [ -n "${HL_MARK:-}" ]; then
		hl_new | grep -vF -- "$_ft" >"$T/hl.step"
	else
		: >"$T/hl.step"
	fi
	if [ -n "$_fm" ]; then
		echo "$_fm" >>"$T/rl.step"
		echo "$_fm" >>"$T/hl.step"
		return 1
	fi
	return 0
}
