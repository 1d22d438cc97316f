# --network on and --loopback (sbxrun(1), NETWORK): outbound to every
# non-local address, TCP and UDP, while every service of this machine stays
# out of reach -- 127/8, ::1, IPv4-mapped loopback, 0.0.0.0, ::, and every
# address of every interface (eth0, docker0, the fixture's veth end, link-
# local ones) -- and "--loopback P" gives back exactly host TCP port P on
# loopback. Verdicts are read in the remote host's log and in the host
# listeners' log (net-lib.sh). Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/net-lib.sh"

net_fixture
hostlsn_start || net_abort "the host listeners" "they did not start"

ADDRS="$(host_addrs | tr '\n' ' ')$LOOP_SPELLINGS"
diag "this machine: $ADDRS"

# Controls: from outside the sandbox the remote host and every host
# address reach the listeners, so a silent log below means something.
rl_mark
hl_mark
att=
i=0
for a in $ADDRS; do
	i=$((i + 1))
	att="$att tcp,c$i,$a,$HL_TCP"
done
# shellcheck disable=SC2086
netc_bare tcp,cr4,"$NET_REMOTE4",8001 tcp,cr6,"$NET_REMOTE6",8002 udp,cru,"$NET_REMOTE4",7007 $att
ok "control: the remote host logs a TCP connection from here" \
    wait_for "rl_got data 8001 '$NET_LOCAL4' cr4" 20
ok "control: the remote host logs a TCP connection over IPv6" \
    wait_for "rl_got data 8002 '$NET_LOCAL6' cr6" 20
ok "control: the remote host logs a datagram from here" \
    wait_for "rl_got udp 7007 '$NET_LOCAL4' cru" 20
hl_missed() {
	missed=
	i=0
	for a in $ADDRS; do
		i=$((i + 1))
		case $a in fe80:* | ::127.0.0.1) continue ;; esac   # tentative / not routed
		hl_new | grep -qF "b'c$i\\n'" || missed="$missed $a"
	done
	[ -z "$missed" ]
}
wait_for hl_missed 20
is "$missed" "" "control: the host listener answers on every address of this machine"
net_settle

# --- network on: the remote host, every port, TCP and UDP -----------------
rl_mark
hl_mark
att=
i=0
for a in $ADDRS; do
	i=$((i + 1))
	att="$att tcp,h$i,$a,$HL_TCP udp,u$i,$a,$HL_UDP"
done
# shellcheck disable=SC2086
netc --network on -- tcp,r1,"$NET_REMOTE4",8001 tcp,r2,"$NET_REMOTE4",8002 \
    tcp,r3,"$NET_REMOTE4",8003 tcp,r6,"$NET_REMOTE6",8003 \
    udp,ru,"$NET_REMOTE4",7007 udpc,ru6,"$NET_REMOTE6",7007 $att
is_status 0 "network on: the client ran"
like "$(cat "$T/out")" "R:done:OK" "network on: every attempt returned"
# The host listeners' verdicts wait for a fence of this machine's on each
# (net_fence); the fence on the remote ports has the sandbox's lines
# logged before it too.
net_fence hltcp hludp tcp:8001 tcp:8002 tcp:8003 udp
ok "network on: remote TCP port 8001 reached (logged there)" rl_got data 8001 "$NET_LOCAL4" r1
ok "network on: remote TCP port 8002 reached" rl_got data 8002 "$NET_LOCAL4" r2
ok "network on: remote TCP port 8003 reached" rl_got data 8003 "$NET_LOCAL4" r3
ok "network on: the remote host over IPv6 reached" rl_got data 8003 "$NET_LOCAL6" r6
ok "network on: UDP to the remote host reached" rl_got udp 7007 "$NET_LOCAL4" ru
ok "network on: connected UDP over IPv6 reached" rl_got udp 7007 "$NET_LOCAL6" ru6
cp "$T/hl.step" "$T/hl.new"
i=0
for a in $ADDRS; do
	i=$((i + 1))
	nok "network on: TCP to $a (a host listener) logged nothing" grep -qF "b'h$i\\n'" "$T/hl.new"
done
i=0
for a in $ADDRS; do
	i=$((i + 1))
	nok "network on: UDP to $a logged nothing" grep -qF "b'u$i\\n'" "$T/hl.new"
done
is "$(cat "$T/hl.new")" "" "network on: no service of this machine logged anything at all"
# Under namespaces a loopback or unspecified address is the jail's own
# (empty) loopback: nothing answers there, and nothing is refused.
own=0
if [ "$SBX_BACKEND" = landlock ]; then
	is "$(res_of h1)" EACCES "network on: the sandbox saw EACCES for $(echo $ADDRS | cut -d' ' -f1) (second opinion)"
else
	is "$(res_of h1)" ECONNREFUSED "network on: $(echo $ADDRS | cut -d' ' -f1) is the jail's own, empty loopback (second opinion)"
	for a in $ADDRS; do
		case $a in
		127.* | ::1 | 0.0.0.0 | :: | ::ffff:127.* | ::ffff:0.0.0.0) own=$((own + 1)) ;;
		# A link-local address names an interface the jail does not
		# have: the client cannot even spell it (no attempt, no denial).
		*%*) own=$((own + 1)) ;;
		esac
	done
fi
# Each refusal is one of sbxrun's own decisions: two per address above
# (but the jail's own); the remote attempts were allowed. (Numeric
# addresses only: a name lookup may try nscd's unix socket, which the
# landlock backend refuses too.)
is "$(jget denials)" "$((($(echo $ADDRS | wc -w) - own) * 2))" "network on: denials counts each refused attempt"
diag "results: $(sed -n 's/^R://p' "$T/out" | tr '\n' ' ')"

# --- broadcasts: every interface's broadcast address is this machine too ---
hl_mark
att=
for b in $(host_bcasts) 255.255.255.255; do
	att="$att bcast,cb,$b,$HL_UDP"
done
# shellcheck disable=SC2086
netc_bare $att
ok "control: a broadcast from outside reaches the host listener" \
    wait_for "hl_new | grep -qF \"b'cb\\\\n'\"" 20
rl_mark
hl_mark
att=
for b in $(host_bcasts) 255.255.255.255; do
	att="$att bcast,b,$b,$HL_UDP bcast,br,$b,7007"
done
# shellcheck disable=SC2086
netc --network on -- $att
is_status 0 "network on, broadcast: the client ran"
net_fence hludp udp
is "$(cat "$T/hl.step")" "" "network on: broadcasts to $(host_bcasts | tr '\n' ' ')255.255.255.255 reached no listener here"
is "$(cat "$T/rl.step")" "" "network on: ... nor the remote host behind $NET_IF"
diag "broadcast: $(sed -n 's/^R://p' "$T/out" | sort | uniq -c | tr -s ' \n' '  ')"

# --- a name, and unix sockets, with the network on --------------------------
hl_mark
netc --network on -- tcp,lh,localhost,"$HL_TCP" unix,abs,"@$HL_ABS" unix,hsock,"$HL_SOCK" \
    unix,wsock,wd.sock
is_status 0 "network on, unix: the client ran"
net_fence hltcp abstract sock
cp "$T/hl.step" "$T/hl.new"
nok "network on: TCP to localhost logged nothing" grep -qF "b'lh\\n'" "$T/hl.new"
nok "network on: the host's abstract unix socket logged nothing" grep -q "^abstract " "$T/hl.new"
nok "network on: a host unix socket outside the workdir logged nothing" grep -q "^sock " "$T/hl.new"
# The workdir is shared with the caller: a socket there is the sandbox's to
# use (landlock judges paths inside its writable trees, namespaces whatever
# its private view shows).
diag "a unix socket inside the workdir: $(res_of wsock) (the workdir is shared, by design)"

# --- --loopback P: exactly that port, on loopback only ----------------------
for mode in "--network on" "--network off"; do
	m=${mode#--network }
	rl_mark
	hl_mark
	att=
	i=0
	for a in $(host_addrs); do
		i=$((i + 1))
		case $a in 127.* | ::1) continue ;; esac
		att="$att tcp,o$i,$a,$HL_TCP"
	done
	# shellcheck disable=SC2086
	netc $mode --loopback "$HL_TCP","$HL_UDP" -- tcp,lo4,127.0.0.1,"$HL_TCP" tcp,lo6,::1,"$HL_TCP" \
	    tcp,lo4b,127.0.0.1,"$HL_TCP2" tcp,lo6b,::1,"$HL_TCP2" udp,lou,127.0.0.1,"$HL_UDP" \
	    udp,lou6,::1,"$HL_UDP" tcp,lor,"$NET_REMOTE4",8001 $att
	is_status 0 "loopback, network $m: the client ran"
	net_fence hltcp hltcp2 hludp tcp:8001
	cp "$T/hl.step" "$T/hl.new"
	ok "loopback, network $m: 127.0.0.1:P reached" grep -q "^tcp $HL_TCP 127\\.0\\.0\\.1 from 127\\.0\\.0\\.1: b'lo4\\\\n'" "$T/hl.new"
	ok "loopback, network $m: [::1]:P reached" grep -q "^tcp $HL_TCP ::1 from ::1: b'lo6\\\\n'" "$T/hl.new"
	nok "loopback, network $m: another loopback port is not (IPv4)" grep -qF "b'lo4b\\n'" "$T/hl.new"
	nok "loopback, network $m: another loopback port is not (IPv6)" grep -qF "b'lo6b\\n'" "$T/hl.new"
	nok "loopback, network $m: UDP to a listed port is not given back" grep -q "^udp " "$T/hl.new"
	nok "loopback, network $m: port P on the interfaces' addresses is not" grep -q " b'o[0-9]" "$T/hl.new"
	if [ "$m" = on ]; then
		ok "loopback, network on: the remote host still reached" grep -qF "b'lor\\n'" "$T/rl.step"
	else
		nok "loopback alone: the remote host is not reachable" grep -qF "b'lor\\n'" "$T/rl.step"
	fi
done

done_testing
