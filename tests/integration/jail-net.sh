# Network fully off (sbxrun(1), NETWORK, the default): nothing is reachable.
# Host listeners (TCP on loopback and on every address, UDP, an abstract
# unix socket, unix sockets in /tmp, /var/tmp and the workdir) log every connection
# or datagram; after the sandbox has tried them all, the logs must hold
# nothing new. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

if ! listener_start; then
	echo "Bail out! the host listeners did not start"
	exit 1
fi
ADDRS=$( (hostname -I 2>/dev/null || ip -4 -o addr show 2>/dev/null | awk '{sub("/.*", "", $4); print $4}') |
    tr ' ' '\n' | grep -E '^[0-9.]+$' | grep -v '^127\.' | tr '\n' ' ')
diag "host addresses: ${ADDRS:-none besides loopback}"

cat >"$T/try.py" <<'EOF'
import socket, sys
tcp, anyp, udp, absname, sock, sock2, sock3 = sys.argv[1:8]
addrs = sys.argv[8:]
def attempt(tag, fn):
    try:
        fn()
        print("R:%s:OK" % tag, flush=True)
    except OSError as e:
        print("R:%s:%s" % (tag, e.__class__.__name__), flush=True)
def tcp_to(host, port):
    def f():
        socket.create_connection((host, int(port)), timeout=2).close()
    return f
def udp_to(host, port):
    def f():
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.sendto(b"hello from the sandbox", (host, int(port)))
        s.connect((host, int(port)))
        s.send(b"hello again")
    return f
def unix_to(path):
    def f():
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(2)
        s.connect(path)
        s.close()
    return f
attempt("tcp", tcp_to("127.0.0.1", tcp))
attempt("tcp_any_lo", tcp_to("127.0.0.1", anyp))
attempt("tcp_localhost", tcp_to("localhost", tcp))
for a in addrs:
    attempt("tcp_" + a, tcp_to(a, anyp))
attempt("udp", udp_to("127.0.0.1", udp))
attempt("abstract", unix_to("\0" + absname))
attempt("sock_tmp", unix_to(sock))
attempt("sock_vartmp", unix_to(sock2))
attempt("sock_workdir", unix_to(sock3))
print("R:done:OK")
EOF
chmod a+r "$T/try.py"

# The control: the host itself reaches every listener. ($ADDRS is split
# on purpose: one argument per address.)
# shellcheck disable=SC2086
"$PY" "$T/try.py" "$LSN_TCP" "$LSN_ANY" "$LSN_UDP" "$LSN_ABS" "$LSN_SOCK" "$LSN_SOCK2" \
    "$LSN_SOCK3" $ADDRS >"$T/control" 2>&1
for k in tcp any udp abstract sock sock2 sock3; do
	ok "control: the host reaches the $k listener" wait_for "grep -q '^$k ' '$LSN/log'" 20
done

for mode in strict open; do
	# The workdir holds a host service's socket too.
	WD=$NETWD
	cp "$T/try.py" "$WD/try.py"
	base=$(log_lines)
	# shellcheck disable=SC2086
	jail -w "$WD" --fs "$mode" -- python3 try.py "$LSN_TCP" "$LSN_ANY" "$LSN_UDP" "$LSN_ABS" \
	    "$LSN_SOCK" "$LSN_SOCK2" "$LSN_SOCK3" $ADDRS
	is_status 0 "$mode: the connecting script ran"
	like "$(cat "$T/out")" "R:done:OK" "$mode: every attempt returned"
	lsn_fence "$base" tcp any udp abstract sock sock2 sock3
	cp "$T/lsn.step" "$T/new"
	diag "$(sed -n 's/^R://p' "$T/out" | tr '\n' ' ')"
	for k in tcp:"TCP to 127.0.0.1" any:"TCP to the host's addresses" udp:"UDP to 127.0.0.1" \
	    abstract:"an abstract unix socket" sock:"a unix socket in /tmp" \
	    sock2:"a unix socket in /var/tmp" sock3:"a unix socket in the workdir"; do
		what=${k#*:}
		k=${k%%:*}
		nok "$mode: $what logs no connection from the sandbox" grep -q "^$k " "$T/new"
	done
done

# A datagram the supervisor sends for the sandbox carries descriptors: they
# must be the sandbox's own, never sbxrun's (a listener among them would let
# the sandbox answer its own trapped calls). The sandbox passes numbers it
# does not hold; whatever arrives must be a file it made itself.
cat >"$T/scm.py" <<'PY'
import array, os, socket
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
own = os.open("own-file", os.O_CREAT | os.O_RDWR)
for fd in [own] + list(range(3, 64)):
    try:
        a.sendmsg([b"x"], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", [fd]))])
    except OSError:
        continue
    msg, anc, flags, addr = b.recvmsg(4, socket.CMSG_SPACE(4))
    for lvl, typ, data in anc:
        for got in array.array("i", data):
            print("R:" + os.readlink("/proc/self/fd/%d" % got))
print("R:end")
PY
# Under landlock with the network off no socket can be made at all; a
# declared listen port gives it a supervised network with socket pairs.
net_args=
[ "$SBX_BACKEND" = landlock ] && net_args="--listen 19999"
for mode in strict open; do
	new_wd
	cp "$T/scm.py" "$WD/scm.py"
	# shellcheck disable=SC2086
	jail -w "$WD" --fs "$mode" $net_args -- python3 scm.py
	like "$(cat "$T/out")" "R:end" "$mode: passing descriptors on a unix datagram socket works"
	unlike "$(grep '^R:' "$T/out" | grep -v -e "R:end" -e "$WD" -e 'socket:' -e 'pipe:')" "R:" \
	    "$mode: every descriptor that arrives is the sandbox's own"
	unlike "$(cat "$T/out")" "seccomp" "$mode: no seccomp listener reaches the sandbox"
done

done_testing
