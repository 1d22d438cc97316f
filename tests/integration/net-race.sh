# The time-of-check race (doc/design/network.md): the supervisor must judge and use
# one copy of the address, or a second thread that rewrites it after the
# check reaches a forbidden place. Here an attacker does exactly that: one
# thread calls connect() (sendto() for UDP and TCP Fast Open) on fresh
# sockets, thousands of times, with a buffer that another thread keeps
# flipping between an allowed destination and forbidden ones (this
# machine's listeners, a remote port not declared). The forbidden
# listeners must log nothing; each success the sandbox counts must be one
# connection at the allowed destination. Outside the sandbox the same
# racer lands on both (the control), so it does race. Run for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
hostlsn_start || net_abort "the host listeners" "they did not start"
N=${SBX_RACE_N:-2500}
R4=$NET_REMOTE4
R6=$NET_REMOTE6
ETH=$(host_addrs | grep -v -e '^127\.' -e '^::1$' -e : | head -n 1)
: "${ETH:=$NET_LOCAL4}"

cat >"$NETWD/race.py" <<'EOF'
# race.py KIND N ALLOWED FORBIDDEN...   (each HOST:PORT, IPv6 as [H]:P)
# KIND: connect, udp (sendto) or tfo (sendto with MSG_FASTOPEN).
import ctypes, errno, socket, sys, threading
kind, n = sys.argv[1], int(sys.argv[2])
def parse(s):
    h, p = s.rsplit(":", 1)
    h = h.strip("[]")
    fam = socket.AF_INET6 if ":" in h else socket.AF_INET
    if fam == socket.AF_INET:
        b = (socket.AF_INET).to_bytes(2, "little") + int(p).to_bytes(2, "big") + \
            socket.inet_pton(fam, h) + b"\0" * 8
    else:
        b = (socket.AF_INET6).to_bytes(2, "little") + int(p).to_bytes(2, "big") + \
            b"\0" * 4 + socket.inet_pton(fam, h) + b"\0" * 4
    return fam, b
fam, allowed = parse(sys.argv[3])
forbidden = [parse(s)[1] for s in sys.argv[4:]]
size = len(allowed)
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(allowed, size)
stop = False
flips = 0
def flipper():
    global flips
    srcs = [ctypes.create_string_buffer(b, size) for b in [allowed] + forbidden]
    while not stop:
        for s in srcs:
            ctypes.memmove(buf, s, size)
        flips += 1
sys.setswitchinterval(1e-5)
t = threading.Thread(target=flipper, daemon=True)  # an error here must not hang
t.start()
ok = refused = other = 0
data = ctypes.create_string_buffer(b"race\n", 5)
for i in range(n):
    s = socket.socket(fam, socket.SOCK_DGRAM if kind == "udp" else socket.SOCK_STREAM)
    if kind == "connect":
        r = libc.connect(s.fileno(), buf, size)
    elif kind == "udp":
        r = libc.sendto(s.fileno(), data, 5, 0, buf, size)
    else:
        r = libc.sendto(s.fileno(), data, 5, 0x20000000, buf, size)   # MSG_FASTOPEN
    e = ctypes.get_errno()
    s.close()
    if r >= 0:
        ok += 1
    elif e == errno.EACCES:
        refused += 1
    else:
        other += 1
stop = True
t.join()
print("R:ok:%d" % ok)
print("R:refused:%d" % refused)
print("R:other:%d" % other)
print("R:flips:%d" % flips)
EOF
chmod 644 "$NETWD/race.py"

# race DESC KIND POLICY ALLOWED LOGPAT-ALLOWED FORBIDDEN...: runs the racer
# in the sandbox under POLICY (one word-split string) and judges the logs.
race() {
	_desc=$1 _kind=$2 _policy=$3 _allowed=$4 _pat=$5
	shift 5
	net_settle
	rl_mark
	hl_mark
	# Up to three runs until both outcomes happened: on a busy machine the
	# flipping thread may not get the CPU while the call is judged. Every
	# run's traffic counts in the checks below.
	_ok=0 _ref=0 _st=0
	for _try in 1 2 3; do
		# shellcheck disable=SC2086
		jail -w "$NETWD" $_policy -- python3 race.py "$_kind" "$N" "$_allowed" "$@"
		[ "$SBX_STATUS" = 0 ] || _st=$SBX_STATUS
		_ok=$((_ok + $(res_of ok | grep -E '^[0-9]+$' || echo 0)))
		_ref=$((_ref + $(res_of refused | grep -E '^[0-9]+$' || echo 0)))
		diag "$_desc: inside, run $_try: $(sed -n 's/^R://p' "$T/out" | tr '\n' ' ')"
		[ "$_ok" -gt 0 ] && [ "$_ref" -gt 0 ] && break
	done
	is "$_st" 0 "$_desc: the racer ran ($N attempts a run)"
	ok "$_desc: both outcomes happened inside (the flips landed)" \
	    sh -c '[ "$1" -gt 0 ] && [ "$2" -gt 0 ]' sh "$_ok" "$_ref"
	# The remote host accepts at its own pace (thousands of connections):
	# wait until it has them all, then fence every listener the racer
	# aimed at, so that whatever it got through is logged before the
	# verdicts below (the fence's own lines are left out of them).
	[ "$_kind" = udp ] || wait_for '[ "$(rl_new | grep -c "$_pat")" -ge "${_ok:-0}" ]' 60
	net_fence hltcp hludp tcp:8001 tcp:8002 tcp:8003 udp
	_n=$(grep -c "$_pat" "$T/rl.step")
	if [ "$_kind" = udp ]; then
		ok "$_desc: the allowed destination got datagrams ($_n)" [ "$_n" -gt 0 ]
	else
		is "$_n" "${_ok:-0}" "$_desc: each success was a connection at the allowed destination"
	fi
	is "$(wc -l <"$T/hl.step" | tr -d ' ')" 0 "$_desc: this machine's listeners logged nothing"
	_bad=$(grep -v "$_pat" "$T/rl.step" | grep -v '^data ' | wc -l | tr -d ' ')
	is "$_bad" 0 "$_desc: the remote host logged nothing but the allowed destination"
	[ "$_bad" = 0 ] || diag "$(grep -v "$_pat" "$T/rl.step" | head -n 5)"
}

# Control, outside: the same racer lands on both sides (given a few tries:
# on a busy machine the flipping thread may not get the CPU in time). Each
# try is judged once its connections are all logged (the fence).
for try in 1 2 3; do
	rl_mark
	hl_mark
	(cd "$NETWD" && "$PY" race.py connect 1000 "$R4:8001" "127.0.0.1:$HL_TCP") >"$T/control" 2>&1
	net_fence hltcp tcp:8001
	[ -s "$T/hl.step" ] && grep -q "^tcp 8001 " "$T/rl.step" && break
done
diag "outside: $(sed -n 's/^R://p' "$T/control" | tr '\n' ' ') -> remote $(grep -c '^tcp 8001 ' "$T/rl.step"), host $(wc -l <"$T/hl.step" | tr -d ' ')"
ok "control: outside the sandbox the racer reaches the forbidden listener" [ -s "$T/hl.step" ]
ok "control: ... and the allowed one" grep -q "^tcp 8001 " "$T/rl.step"
net_settle

race "network on, connect, IPv4" connect "--network on" "$R4:8001" "^tcp 8001 from " \
    "127.0.0.1:$HL_TCP" "$ETH:$HL_TCP" "$NET_LOCAL4:$HL_TCP"
race "network on, connect, IPv6" connect "--network on" "[$R6]:8001" "^tcp 8001 from " \
    "[::1]:$HL_TCP" "[::ffff:127.0.0.1]:$HL_TCP" "[$NET_LOCAL6]:$HL_TCP"
race "connect list, connect" connect "--connect 8001,$HL_TCP" "$R4:8001" "^tcp 8001 from " \
    "$R4:8002" "127.0.0.1:$HL_TCP"
race "connect list, Fast Open" tfo "--connect 8001,$HL_TCP" "$R4:8001" "^tcp 8001 from " \
    "$R4:8003" "127.0.0.1:$HL_TCP"
race "network on, UDP sendto" udp "--network on" "$R4:7007" "^udp 7007 from " \
    "127.0.0.1:$HL_UDP" "$ETH:$HL_UDP"

# --- the socket under the descriptor number ---------------------------------
cat >"$NETWD/fdrace.py" <<'EOF'
# fdrace.py MODE N HOST PORT: MODE udp: sendto(fd, HOST:PORT) while fd flips
# between an unconnected TCP socket and a UDP socket; tcp: connect(fd,
# HOST:PORT) while it flips between a unix socket and a fresh TCP socket;
# listen: listen(fd) likewise. Prints the counts; for listen, each port a
# TCP socket ended up listening on goes to ports.txt, and those sockets
# stay open until the file "done" appears (at most 10 s).
import ctypes, errno, os, resource, socket, sys, threading, time
mode, n, host, port = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
# Every successful listen keeps its socket: more than the 1024 descriptors
# an unprivileged caller's soft limit allows.
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
libc = ctypes.CDLL(None, use_errno=True)
sa = ctypes.create_string_buffer((2).to_bytes(2, "little") + port.to_bytes(2, "big") +
                                 socket.inet_aton(host) + b"\0" * 8, 16)
if mode == "udp":
    decoy = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    make = lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
else:
    decoy = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    make = lambda: socket.socket(socket.AF_INET, socket.SOCK_STREAM)
FD = 200
real = make()
keep = []
stop = False
def flipper():
    while not stop:
        try:
            os.dup2(decoy.fileno(), FD)
            os.dup2(real.fileno(), FD)
        except OSError:
            pass
sys.setswitchinterval(1e-5)
os.dup2(decoy.fileno(), FD)
t = threading.Thread(target=flipper, daemon=True)  # an error here must not hang
t.start()
counts = {}
for i in range(n):
    if mode == "udp":
        r = libc.sendto(FD, b"fdrace\n", 7, 0, sa, 16)
    elif mode == "tcp":
        r = libc.connect(FD, sa, 16)
    else:
        r = libc.listen(FD, 8)
    e = "OK" if r >= 0 else errno.errorcode.get(ctypes.get_errno(), "?")
    counts[e] = counts.get(e, 0) + 1
    if r >= 0 and mode != "udp":
        # Whichever socket it was, go on with a fresh TCP socket.
        keep.append(real)
        real = make()
stop = True
t.join()
print("R:counts:%s" % " ".join("%s=%d" % kv for kv in sorted(counts.items())))
if mode == "listen":
    ports = []
    for s in keep:
        try:
            p = s.getsockname()[1]
            if p:
                ports.append(p)
        except OSError:
            pass
    with open("ports.txt", "w") as f:
        f.write(" ".join(str(p) for p in ports) + "\n")
    print("R:listening:%d" % len(ports), flush=True)
    for i in range(100):
        if os.path.exists("done"):
            break
        time.sleep(0.1)
EOF
chmod 644 "$NETWD/fdrace.py"

# fdrace DESC MODE POLICY HOST PORT: the sandbox races; this machine's
# listeners and the remote host must log nothing.
fdrace() {
	net_settle
	rl_mark
	hl_mark
	# shellcheck disable=SC2086
	jail -w "$NETWD" $3 -- python3 fdrace.py "$2" "$N" "$4" "$5"
	is_status 0 "$1: the racer ran ($N attempts)"
	diag "$1: inside: $(sed -n 's/^R://p' "$T/out" | tr '\n' ' ')"
	net_fence hltcp hludp udp
	is "$(wc -l <"$T/hl.step" | tr -d ' ')" 0 "$1: this machine's listeners logged nothing"
	[ ! -s "$T/hl.step" ] || diag "$(head -n 3 "$T/hl.step")"
	is "$(wc -l <"$T/rl.step" | tr -d ' ')" 0 "$1: the remote host logged nothing"
}
fdrace "fd swap, UDP under a TCP send, network on" udp "--network on" 127.0.0.1 "$HL_UDP"
fdrace "fd swap, UDP under a TCP send, connect list" udp "--connect 8001" "$R4" 7007
fdrace "fd swap, TCP under a unix connect, network on" tcp "--network on" 127.0.0.1 "$HL_TCP"
fdrace "fd swap, TCP under a unix connect, connect list" tcp "--connect $HL_TCP" 127.0.0.1 "$HL_TCP"

# listen(): a TCP socket under a unix one would bind a random port.
for policy in "--network on" "--listen 1"; do
	net_settle
	rm -f "$NETWD/ports.txt" "$NETWD/done"
	# shellcheck disable=SC2086
	sbx_bg -w "$NETWD" $policy -- python3 fdrace.py listen "$N" 127.0.0.1 0
	wait_for "[ -s '$NETWD/ports.txt' ]" 60 || diag "the listen racer wrote no ports.txt"
	# A port answers the host only if a socket of the racer listens on it
	# in the host's network namespace: ss names the owning process. (A
	# connect to 127.0.0.1:PORT would also count another test's listener
	# that happens to hold the same number, and under namespaces the
	# racer's own listeners are in the jail's namespace, not the host's.)
	racer=$(pgrep -f "fdrace.py listen" | tr '\n' ' ')
	open=
	for p in $(cat "$NETWD/ports.txt" 2>/dev/null); do
		held=$(ss -Hltnp "sport = :$p" 2>/dev/null)
		for r in $racer; do
			case $held in *"pid=$r,"*) open="$open $p" ;; esac
		done
	done
	ok "fd swap, listen, $policy: the racer was found on the host" test -n "$racer"
	touch "$NETWD/done"
	sbx_bg_wait 20
	is "$SBX_STATUS" 0 "fd swap, listen, $policy: the racer ran"
	diag "fd swap, listen, $policy: $(sed -n 's/^R://p' "$T/bg.out" | tr '\n' ' ')"
	is "$(echo $open | wc -w | tr -d ' ')" 0 "fd swap, listen, $policy: no random port answers the host"
	[ -z "$open" ] || diag "answering:$(echo $open | cut -d' ' -f1-10)"
done

done_testing
