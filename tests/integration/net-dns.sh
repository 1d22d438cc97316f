# DNS (sbxrun(1), NETWORK): the resolvers named in /etc/resolv.conf are
# reachable only with outbound permission (--network on, or a connect
# list); --listen, --loopback and a proxy allowlist alone give no
# resolver. The resolver is the remote host's DNS server, named in a
# private resolv.conf bound over /etc/resolv.conf for sbxrun (rjail,
# net-lib.sh); each case looks up a name of its own, so the server's log
# says whether that case's query arrived. With a connect list the resolver
# is reachable on port 53 only: the same host's UDP echo, and a DNS server
# on its IPv6 address (not in resolv.conf), stay out of reach. The same
# again with a loopback stub resolver (127.88.N.53, like 127.0.0.53), a
# local address given back on port 53 alone. Run for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
if ! rjail_ok; then
	skip "$RJAIL_WHY"
	done_testing
	exit
fi

# Control: outside the sandbox, with the same resolv.conf, names resolve.
"$PY" "$T/nswrap.py" "$NET_RESOLV" /usr/bin/getent ahosts "control.$NET_DOMAIN" >"$T/control" 2>&1
like "$(cat "$T/control")" "$NET_REMOTE4" "control: getent resolves a fixture name through the fixture's resolver"
net_settle

# lookup_case CASE ARGS...: under the policy ARGS, looks up a fresh name
# inside (getaddrinfo), sends a DNS question of its own straight to the
# resolver's port 53 and to the same host's IPv6 address (a DNS server
# that resolv.conf does not name), and a datagram to its UDP echo port.
# Then a fence of this machine's on the DNS and echo ports (net_fence):
# what the sandbox got through is logged before it; $T/rl.step holds the
# step's lines.
lookup_case() {
	_c=$1
	shift
	NAME=$_c-$$.$NET_DOMAIN
	RAW=raw-$_c-$$.$NET_DOMAIN
	rl_mark
	# shellcheck disable=SC2086
	rnetc "$@" -- gai,g,"$NAME" dnsq,q,"$NET_REMOTE4","$RAW" udp,u,"$NET_REMOTE4",7007 \
	    dnsq,q6,"$NET_REMOTE6",v6"$RAW"
	net_fence dns udp
}
rl_step_has() {
	grep -qF -- "$1" "$T/rl.step"
}

for c in off:"--network off" listen:"--listen 1" loopback:"--loopback 1" \
    proxy:"--allow-host remote.$NET_DOMAIN"; do
	what=${c#*:}
	c=${c%%:*}
	# shellcheck disable=SC2086
	lookup_case "$c" $what
	is_status 0 "$c ($what): the client ran"
	nok "$c: the resolver got no query for the name looked up inside" rl_step_has "dns $NAME "
	nok "$c: nor the query sent straight to its port 53" rl_step_has "dns $RAW "
	is "$(cat "$T/rl.step")" "" "$c: the resolver's host logged nothing at all"
	unlike "$(res_of g)" OK "$c: the name did not resolve inside (second opinion)"
done

for c in connect:"--connect 8001" on:"--network on"; do
	what=${c#*:}
	c=${c%%:*}
	# shellcheck disable=SC2086
	lookup_case "$c" $what
	is_status 0 "$c ($what): the client ran"
	ok "$c: the resolver got the query for the name looked up inside" rl_step_has "dns $NAME A "
	ok "$c: ... for both address families" rl_step_has "dns $NAME AAAA "
	is "$(res_of g)" OK "$c: getaddrinfo() inside resolves the name"
	is "$(info_of g)" "$NET_REMOTE4 $NET_REMOTE6" "$c: ... to the remote host's addresses"
	ok "$c: a query sent straight to the resolver's port 53 arrives" rl_step_has "dns $RAW A "
	is "$(res_of q)" OK "$c: ... and its answer comes back"
	if [ "$c" = connect ]; then
		nok "$c: the resolver's host on another UDP port (7007) got nothing" rl_step_has "udp 7007 "
		nok "$c: a DNS server not in resolv.conf (its IPv6 address) got nothing" rl_step_has "dns v6$RAW "
		is "$(res_of u)" EACCES "$c: ... the sandbox saw EACCES for port 7007"
	else
		ok "$c: with the network on, any UDP port of the remote host is reached" rl_step_has "udp 7007 "
		ok "$c: ... and any DNS server" rl_step_has "dns v6$RAW "
	fi
	diag "$c: $(sed -n 's/^R://p' "$T/out" | tr '\n' ' ') $(grep -c . "$T/err") lines on stderr"
done

# A loopback stub resolver (like systemd-resolved's 127.0.0.53) is a
# local address, given back on port 53 only, and only with outbound
# permission; another loopback UDP port stays out of reach.
hostlsn_start || net_abort "the host listeners" "they did not start"
RESOLV=$NET_RESOLV_STUB
for c in off:"--network off" proxy:"--allow-host remote.$NET_DOMAIN" connect:"--connect 8001" \
    on:"--network on"; do
	what=${c#*:}
	c=${c%%:*}
	NAME=stub-$c-$$.$NET_DOMAIN
	RAW=stubraw-$c-$$.$NET_DOMAIN
	net_settle
	rl_mark
	hl_mark
	# shellcheck disable=SC2086
	rnetc $what -- gai,g,"$NAME" dnsq,q,"$NET_STUB","$RAW" udp,u,127.0.0.1,"$HL_UDP"
	is_status 0 "stub, $c ($what): the client ran"
	net_fence stub hludp
	case $c in
	off | proxy)
		nok "stub, $c: the stub got no query for the name looked up inside" rl_step_has "stub $NAME "
		nok "stub, $c: nor the one sent straight to it" rl_step_has "stub $RAW "
		;;
	*)
		ok "stub, $c: the stub got the query for the name looked up inside" rl_step_has "stub $NAME A "
		is "$(info_of g)" "$NET_REMOTE4 $NET_REMOTE6" "stub, $c: ... and getaddrinfo() resolves it"
		ok "stub, $c: a query sent straight to the stub arrives" rl_step_has "stub $RAW A "
		is "$(res_of q)" OK "stub, $c: ... and its answer comes back"
		;;
	esac
	is "$(cat "$T/hl.step")" "" "stub, $c: another loopback UDP port got nothing"
	diag "stub, $c: $(sed -n 's/^R://p' "$T/out" | tr '\n' ' ')"
done

done_testing
