# The network fully off (sbxrun(1), NETWORK, the default), against a real
# remote host and every service of this machine: no TCP, no UDP, no DNS,
# no host loopback, none of the host's own interface addresses, no host
# abstract socket, no host unix socket (in the workdir, or elsewhere under
# --fs open). jail-net.sh covers loopback listeners; this adds the remote
# host (net-lib.sh), IPv6, every interface address, Fast Open and the
# resolver. Every verdict is a log that stays empty. Run for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
hostlsn_start || net_abort "the host listeners" "they did not start"
ADDRS="$(host_addrs | tr '\n' ' ')$LOOP_SPELLINGS"
diag "this machine: $ADDRS"

att=
for a in $ADDRS; do
	att="$att tcp,t,$a,$HL_TCP udp,u,$a,$HL_UDP tfo,f,$a,$HL_TCP2"
done
remote="tcp,r1,$NET_REMOTE4,8001 tcp,r2,$NET_REMOTE6,8002 tcp,r3,$NET_REMOTE4,$NET_HTTP_PORT \
tfo,r4,$NET_REMOTE4,8003 udp,r5,$NET_REMOTE4,7007 udpc,r6,$NET_REMOTE6,7007 \
udp,r7,$NET_REMOTE4,53 udp,r8,$NET_REMOTE6,53"
local_unix="unix,abs,@$HL_ABS unix,wsock,wd.sock unix,hsock,$HL_SOCK"

# Control: outside the sandbox all of it gets through.
rl_mark
hl_mark
# shellcheck disable=SC2086
netc_bare $remote tcp,t,127.0.0.1,"$HL_TCP" udp,u,::1,"$HL_UDP" $local_unix
# r1-r8: data on 8001-8003 (r1, r2, r4), a connection to 8080 (r3), two
# datagrams to 7007 and two to 53 (not DNS questions: "dns garbage").
rl_count() {
	rl_new | grep -c -e '^data 800' -e '^tcp 8080 ' -e '^udp 7007 ' -e '^dns garbage '
}
hl_kinds() {
	hl_new | cut -d' ' -f1 | sort -u | tr '\n' ' '
}
wait_for '[ "$(rl_count)" -ge 8 ] && [ "$(hl_kinds)" = "abstract sock tcp udp wsock " ]' 20
is "$(rl_count)" 8 "control: the remote host logs each TCP, Fast Open and UDP attempt from here"
is "$(hl_kinds)" "abstract sock tcp udp wsock " \
    "control: the host listeners log TCP, UDP and unix connections from here"
net_settle

for mode in strict open; do
	rl_mark
	hl_mark
	# The workdir holds a host service's socket (wd.sock); under open, the
	# one in $HL (outside /tmp) is in view too.
	# shellcheck disable=SC2086
	netc --fs "$mode" -- $remote $att $local_unix
	is_status 0 "$mode: the client ran"
	like "$(cat "$T/out")" "R:done:OK" "$mode: every attempt returned"
	# Every listener targeted above logs a fence of this machine's after
	# the run: what the sandbox got through is in the logs by then.
	net_fence tcp:8001 tcp:8002 tcp:8003 http udp dns hltcp hltcp2 hludp abstract wsock sock
	is "$(cat "$T/rl.step")" "" "$mode: the remote host logged nothing (TCP, Fast Open, UDP, DNS, IPv4 and IPv6)"
	cp "$T/hl.step" "$T/hl.new"
	nok "$mode: no TCP connection reached this machine's addresses" grep -q "^tcp " "$T/hl.new"
	nok "$mode: no Fast Open connection reached them" grep -q "^tcp2 " "$T/hl.new"
	nok "$mode: no datagram reached them" grep -q "^udp " "$T/hl.new"
	nok "$mode: the host's abstract socket logged nothing" grep -q "^abstract " "$T/hl.new"
	nok "$mode: the host socket in the workdir logged nothing" grep -q "^wsock " "$T/hl.new"
	nok "$mode: the host socket outside the workdir logged nothing" grep -q "^sock " "$T/hl.new"
	# (Under namespaces a datagram to a loopback spelling goes to the
	# jail's own lo: sent, and received by nobody, as the host shows.)
	kinds=rtuf
	[ "$SBX_BACKEND" = namespaces ] && kinds=rtf
	ok "$mode: the sandbox saw its connects fail (second opinion)" \
	    sh -c '! grep -q "^R:[$2][0-9]*:OK" "$1"' sh "$T/out" "$kinds"
	diag "$mode: $(sed -n 's/^R://p' "$T/out" | sort | uniq -c | tr -s ' \n' '  ')"
done

# DNS: a resolver named in resolv.conf is still out of reach.
if rjail_ok; then
	name=off-$$.$NET_DOMAIN
	rl_mark
	rnetc -- gai,g,"$name" udp,q,"$NET_REMOTE4",53
	is_status 0 "dns: the client ran with the fixture's resolv.conf"
	net_fence dns
	nok "dns: the resolver in resolv.conf got no query" grep -qF "dns $name" "$T/rl.step"
	is "$(cat "$T/rl.step")" "" "dns: the resolver's host logged nothing at all"
	unlike "$(res_of g)" OK "dns: the name did not resolve inside (second opinion)"
else
	skip "$RJAIL_WHY" 4
fi

done_testing
