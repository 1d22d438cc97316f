# This machine's services are out of reach with --network on, also at
# addresses no interface holds (threat model: the host is not the
# network; sbxrun(1), NETWORK).
#
# The supervisor, the UDP relay and the proxy told "this machine" by the
# interfaces' addresses (a bind that works, getifaddrs). The kernel also
# takes in what its routing table sends to the local table: an IPv6
# subnet-router anycast address on a forwarding host (2001:db8:5:: for
# 2001:db8:5::1/64: any Docker or Kubernetes host with IPv6), and every
# address of a prefix with a "local" route (AnyIP). The sandbox reached a
# service of the host at both. Now the routing table is asked
# (linux-route.c).
# Made in a network namespace of the test's own, standing for the host:
# sbxrun runs there, as root and as sbxtest. Verdict: what the host's
# listener logged.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=9
if ! root_only "only root makes the network namespace standing for the host" "$N_TESTS"; then
	done_testing
	exit 0
fi
NS=sbxt-anyip-$$
ip netns add "$NS" || {
	echo "Bail out! cannot create the network namespace $NS"
	exit 1
}
anyip_cleanup() {
	ip netns pids "$NS" 2>/dev/null | xargs -r kill -KILL 2>/dev/null
	ip netns del "$NS" 2>/dev/null
	rm -rf "/etc/netns/$NS"
	[ -z "${NETNS_DIR_MADE:-}" ] || rmdir /etc/netns 2>/dev/null
	_jail_cleanup
}
trap anyip_cleanup EXIT
nsx() {
	ip netns exec "$NS" "$@"
}
# ip netns exec shows /etc/netns/NS/hosts as /etc/hosts (the proxy's
# resolver reads it).
[ -d /etc/netns ] || NETNS_DIR_MADE=1
mkdir -p "/etc/netns/$NS"
printf '127.0.0.1 localhost\n::1 localhost\n2001:db8:7::5 anyip.test\n' >"/etc/netns/$NS/hosts"
nsx ip link set lo up
nsx ip link add sbxad0 type veth peer name sbxad1
nsx ip link set sbxad0 up
nsx ip link set sbxad1 up
nsx sysctl -q -w net.ipv6.conf.all.forwarding=1
nsx ip -6 addr add 2001:db8:5::1/64 dev sbxad0 nodad
nsx ip -6 route add local 2001:db8:7::/64 dev lo

# The host's service: TCP on 9998 and UDP on 9999, every address.
chmod 711 "$T"
LOG=$JT/anyip.log
: >"$LOG"
chmod 666 "$LOG"
cat >"$JT/listen.py" <<'EOF'
import select, socket, sys
log = open(sys.argv[1], "a", buffering=1)
t = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
t.bind(("::", 9998))
t.listen(16)
u = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
u.bind(("::", 9999))
open(sys.argv[1] + ".up", "w").close()
while True:
    for s in select.select([t, u], [], [])[0]:
        if s is t:
            c, a = t.accept()
            log.write("tcp %s\n" % a[0])
            c.sendall(b"secret-from-host\n")
            c.close()
        else:
            d, a = u.recvfrom(2048)
            log.write("udp %s %r\n" % (a[0], d))
EOF
chmod 644 "$JT/listen.py"
# (Not a job of this shell: the clean-up kills it with the namespace's
# processes.)
(ip netns exec "$NS" "$PY" "$JT/listen.py" "$LOG" &)
wait_for "[ -e '$LOG.up' ]" 30

cat >"$JT/reach.py" <<'EOF'
import socket
for what in ("tcp", "udp"):
    try:
        if what == "tcp":
            s = socket.create_connection(("2001:db8:7::5", 9998), timeout=5)
            print("tcp", s.recv(64))
        else:
            s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
            s.sendto(b"anycast", ("2001:db8:5::", 9999))
            print("udp sent")
    except OSError as e:
        print(what, "refused", e.errno)
EOF
chmod 644 "$JT/reach.py"

cat >"$JT/tunnel.py" <<'EOF'
import os, socket, urllib.parse
u = urllib.parse.urlparse(os.environ.get("HTTPS_PROXY", "http://none:0"))
s = socket.create_connection((u.hostname, u.port), timeout=10)
s.sendall(b"CONNECT anyip.test:9998 HTTP/1.1\r\nHost: anyip.test:9998\r\n\r\n")
print("proxy", s.recv(200).split(b"\r\n")[0].decode())
EOF
chmod 644 "$JT/tunnel.py"

# Control: from the namespace itself, both reach the service.
nsx "$PY" "$JT/reach.py" >/dev/null 2>&1
wait_for "[ \$(wc -l <'$LOG') -ge 2 ]" 10
is "$(cut -d' ' -f1 "$LOG" | sort | tr '\n' ' ')" "tcp udp " \
    "control: the AnyIP and anycast addresses reach the host's service"

for caller in root sbxtest; do
	: >"$LOG"
	new_wd
	chown "$caller" "$WD"
	cp "$JT/reach.py" "$WD/reach.py"
	_as=
	[ "$caller" = root ] || _as="runuser -u $caller -- env TMPDIR=/tmp"
	# shellcheck disable=SC2086
	nsx $_as "$SBXRUN" --backend "$SBX_BACKEND" --network on -w "$WD" --diag none \
	    -- python3 reach.py >"$T/reach.out" 2>"$T/reach.err" </dev/null
	is "$?" 0 "$caller: the run ended well"
	# The UDP relay or the supervisor has sent, or refused, by the time
	# the run ends: what the listener got is in the log, read after a
	# datagram of the test's own that follows it.
	nsx "$PY" -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b"end", ("::1", 9999))'
	wait_for "grep -q \"'end'\" '$LOG'" 10
	is "$(grep -v "'end'" "$LOG")" "" "$caller: the host's service logged nothing" ||
	    diag "$(cat "$T/reach.out" "$T/reach.err")"
	# The proxy: a name the hosts file of the namespace gives the AnyIP
	# address, allowed by name.
	: >"$LOG"
	cp "$JT/tunnel.py" "$WD/tunnel.py"
	# shellcheck disable=SC2086
	nsx $_as "$SBXRUN" --backend "$SBX_BACKEND" --allow-host anyip.test:9998 -w "$WD" \
	    --diag none -- python3 tunnel.py >"$T/tunnel.out" 2>"$T/tunnel.err" </dev/null
	is "$(cat "$T/tunnel.out")" "proxy HTTP/1.1 403 Forbidden" \
	    "$caller: the proxy refuses a CONNECT to an allowed name at an AnyIP address" ||
	    diag "$(cat "$T/tunnel.err")"
	nsx "$PY" -c 'import socket; socket.socket(socket.AF_INET6, socket.SOCK_DGRAM).sendto(b"end", ("::1", 9999))'
	wait_for "grep -q \"'end'\" '$LOG'" 10
	is "$(grep -v "'end'" "$LOG")" "" "$caller: ... and the host's service logged nothing"
done

done_testing
