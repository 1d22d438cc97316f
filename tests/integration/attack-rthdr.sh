# An IPv6 routing header on the sandbox's socket sends its packets first
# to an address of the header's, not to the one the rules judged: a
# segment routing header (type 4) needs no privilege. The supervisor
# judged a connect to an allowed loopback address (the sandbox's own
# listener under landlock; a port given back with --loopback under
# namespaces, on the host socket handed in) and made it on that socket:
# the SYN, with the header's segments as data, left for any host.
#
# Made in network namespaces of the test's own: sbxrun runs in one
# standing for the host, joined by a veth pair to another standing for a
# remote host, where a capture logs every IPv6 packet that arrives with a
# routing header. Verdict: what the capture logged, as root and as
# sbxtest.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=7
if ! root_only "only root makes the network namespaces" "$N_TESTS"; then
	done_testing
	exit 0
fi
NS=sbxt-rth-$$
RNS=sbxt-rthr-$$
ip netns add "$NS" && ip netns add "$RNS" || {
	echo "Bail out! cannot create the network namespaces"
	exit 1
}
rthdr_cleanup() {
	for n in "$NS" "$RNS"; do
		ip netns pids "$n" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
		ip netns del "$n" 2>/dev/null
	done
	_jail_cleanup
}
trap rthdr_cleanup EXIT
nsx() {
	ip netns exec "$NS" "$@"
}
nsx ip link set lo up
ip netns exec "$RNS" ip link set lo up
nsx ip link add sbxrh0 type veth peer name sbxrh1 netns "$RNS"
nsx ip link set sbxrh0 up
ip netns exec "$RNS" ip link set sbxrh1 up
nsx ip -6 addr add fd00:5c::1/64 dev sbxrh0 nodad
ip netns exec "$RNS" ip -6 addr add fd00:5c::2/64 dev sbxrh1 nodad

chmod 711 "$T"
LOG=$JT/capture.log
: >"$LOG"
chmod 644 "$LOG"
cat >"$JT/capture.py" <<'EOF'
import socket, sys
log = open(sys.argv[2], "a", buffering=1)
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(0x86dd))
s.bind((sys.argv[1], 0))
open(sys.argv[2] + ".up", "w").close()
while True:
    p = s.recv(65535)[14:]
    if len(p) > 48 and p[6] == 43:
        rh = p[40:]
        data = rh[8:(rh[1] + 1) * 8]
        log.write("rthdr type %d to %s: %r\n" % (rh[2],
            socket.inet_ntop(socket.AF_INET6, p[24:40]), data[16:-16]))
EOF
(ip netns exec "$RNS" "$PY" "$JT/capture.py" sbxrh1 "$LOG" &)
wait_for "[ -e '$LOG.up' ]" 30

# send.py HOP MARK [PORT]: a TCP socket with a segment routing header
# whose first hop is HOP and whose segments carry MARK, connected to
# [::1]:PORT. Without PORT, to a listener of its own there. A socket
# whose first connect was refused (a port given back and nobody there)
# is connected again, as the sandbox gets a host socket that way.
cat >"$JT/send.py" <<'EOF'
import socket, struct, sys, time
hop, mark = sys.argv[1], sys.argv[2].encode()
if len(sys.argv) > 3:
    port = int(sys.argv[3])
else:
    l = socket.socket(socket.AF_INET6)
    l.bind(("::1", 0))
    l.listen(1)
    port = l.getsockname()[1]
s = socket.socket(socket.AF_INET6)
s.setblocking(False)
if len(sys.argv) > 3:
    try:
        s.connect(("::1", port))
    except OSError:
        pass
    time.sleep(0.3)
    s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR)
segs = [bytes(16), mark.ljust(16, b".")[:16], socket.inet_pton(socket.AF_INET6, hop)]
hdr = struct.pack("!BBBBBBH", 0, 2 * len(segs), 4, len(segs) - 1, len(segs) - 1, 0, 0)
try:
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_RTHDR, hdr + b"".join(segs))
    print("rthdr set")
except OSError as e:
    print("rthdr refused", e.errno)
for _ in range(2):
    try:
        s.connect(("::1", port))
    except OSError as e:
        print("connect", e.errno)
time.sleep(0.5)
EOF
chmod 644 "$JT/send.py"

# Control: from the host's namespace itself, the header takes the SYN to
# the remote host, where the capture logs it.
nsx "$PY" "$JT/send.py" fd00:5c::2 control >/dev/null 2>&1
wait_for "grep -q control '$LOG'" 10
like "$(cat "$LOG")" "rthdr type 4 to fd00:5c::2: b'control" \
    "control: a routing header takes a loopback connect's SYN to the remote host"

for caller in root sbxtest; do
	: >"$LOG"
	new_wd
	chown "$caller" "$WD"
	cp "$JT/send.py" "$WD/send.py"
	_as=
	[ "$caller" = root ] || _as="runuser -u $caller -- env TMPDIR=/tmp"
	# Under landlock the sandbox's own listener; under namespaces a
	# port given back on the host's loopback with nobody there.
	# shellcheck disable=SC2086
	nsx $_as "$SBXRUN" --backend "$SBX_BACKEND" --network off --loopback 9556 -w "$WD" \
	    --diag none -- sh -c "python3 send.py fd00:5c::2 $caller-own;
		python3 send.py fd00:5c::2 $caller-given 9556" \
	    >"$T/send.out" 2>"$T/send.err" </dev/null
	is "$?" 0 "$caller: the run ended well"
	like "$(cat "$T/send.out")" "rthdr refused 1" "$caller: the header is refused (EPERM)" ||
	    diag "$(cat "$T/send.out" "$T/send.err")"
	# What left before the run ended is in the log once the test's own
	# packet that follows it is.
	nsx "$PY" "$JT/send.py" fd00:5c::2 end >/dev/null 2>&1
	wait_for "grep -q end '$LOG'" 10
	is "$(grep -v "b'end" "$LOG")" "" "$caller: the remote host got no packet of the sandbox's"
done

done_testing
