# --connect (sbxrun(1), NETWORK): outbound TCP to non-local addresses on the
# declared ports only. The remote host (net-lib.sh) listens on 8001 (the
# declared port), 8002, 8003 and 8080, and logs every connection; the
# sandbox tries them all over IPv4 and IPv6, plainly, with TCP Fast Open
# (sendto and sendmsg with MSG_FASTOPEN, which connect without connect())
# and with MPTCP (which Landlock's TCP port rules do not see), plus UDP,
# plus this machine's own listener on a port that IS declared, on every
# address of every interface. Only the declared remote port may log
# anything. Run for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
hostlsn_start || net_abort "the host listeners" "they did not start"
ADDRS="$(host_addrs | tr '\n' ' ')$LOOP_SPELLINGS"
R4=$NET_REMOTE4
R6=$NET_REMOTE6

# Control: outside the sandbox, Fast Open and MPTCP do reach the ports that
# the sandbox will be refused.
rl_mark
netc_bare tfo,c1,"$R4",8002 tfom,c2,"$R6",8003 mptcp,c3,"$R4",8002
ok "control: Fast Open (sendto) reaches an undeclared port from outside" \
    wait_for "rl_got data 8002 '$NET_LOCAL4' c1" 20
ok "control: Fast Open (sendmsg) reaches one over IPv6 from outside" \
    wait_for "rl_got data 8003 '$NET_LOCAL6' c2" 20
ok "control: MPTCP reaches an undeclared port from outside" \
    wait_for "rl_got data 8002 '$NET_LOCAL4' c3" 20
net_settle

rl_mark
hl_mark
att=
for a in $ADDRS; do
	att="$att tcp,l,$a,$HL_TCP tfo,lf,$a,$HL_TCP"
done
# shellcheck disable=SC2086
netc --connect "8001,$HL_TCP" -- \
    tcp,a1,"$R4",8001 tcp,a2,"$R6",8001 tfo,a3,"$R4",8001 tfom,a4,"$R6",8001 \
    tcp,b1,"$R4",8002 tcp,b2,"$R6",8003 tcp,b3,"$R4",8080 tfo,b4,"$R4",8002 tfom,b5,"$R4",8003 \
    udp,b6,"$R4",7007 udpc,b7,"$R6",7007 mptcp,b8,"$R4",8002 mptcp,b9,"$R4",8001 $att
is_status 0 "connect: the client ran"
like "$(cat "$T/out")" "R:done:OK" "connect: every attempt returned"
# A fence of this machine's on every listener aimed at (net_fence): what
# the sandbox got through is logged before it.
net_fence tcp:8001 tcp:8002 tcp:8003 http udp hltcp
cp "$T/rl.step" "$T/rl.new"
ok "connect: the declared port is reached over IPv4 (logged there)" rl_got data 8001 "$NET_LOCAL4" a1
ok "connect: ... and over IPv6" rl_got data 8001 "$NET_LOCAL6" a2
ok "connect: Fast Open to the declared port works (sendto)" rl_got data 8001 "$NET_LOCAL4" a3
ok "connect: Fast Open to the declared port works (sendmsg, IPv6)" rl_got data 8001 "$NET_LOCAL6" a4
nok "connect: undeclared port 8002 logged no connection" grep -q "^tcp 8002 " "$T/rl.new"
nok "connect: undeclared port 8003 (IPv6, and Fast Open by sendmsg) logged none" grep -q "^tcp 8003 " "$T/rl.new"
nok "connect: undeclared port 8080 logged none" grep -q "^tcp 8080 " "$T/rl.new"
nok "connect: UDP to the remote host logged nothing" grep -q "^udp " "$T/rl.new"
nok "connect: MPTCP, even to the declared port, sent nothing" grep -qF "b'b9\\n'" "$T/rl.new"
is "$(res_of b8)" EPERM "connect: an MPTCP socket cannot be made (EPERM)"
is "$(res_of b4)" EACCES "connect: Fast Open to an undeclared port fails with EACCES (second opinion)"
cp "$T/hl.step" "$T/hl.new"
nok "connect: this machine's listener on a declared port logged no plain connect" grep -q " b'l\\\\n'" "$T/hl.new"
nok "connect: ... and no Fast Open connect" grep -q " b'lf\\\\n'" "$T/hl.new"
is "$(cat "$T/hl.new")" "" "connect: no service of this machine logged anything, on any of its addresses"
# b1-b7 and two per local address were sbxrun's own refusals; MPTCP is
# refused by the seccomp filter (no decision to count). Under namespaces a
# loopback or unspecified address is the jail's own lo (refused by nobody)
# and a link-local one names an interface the jail lacks (no attempt).
own=0
if [ "$SBX_BACKEND" = namespaces ]; then
	for a in $ADDRS; do
		case $a in
		127.* | ::1 | 0.0.0.0 | :: | ::ffff:127.* | ::ffff:0.0.0.0 | *%*) own=$((own + 1)) ;;
		esac
	done
fi
is "$(jget denials)" "$((7 + ($(echo $ADDRS | wc -w) - own) * 2))" "connect: denials counts each refused connect and send"
diag "$(sed -n 's/^R://p' "$T/out" | tr '\n' ' ')"

# Blocking and non-blocking connects keep their semantics.
cat >"$NETWD/nb.py" <<'EOF'
import errno, select, socket, sys
r4 = sys.argv[1]
s = socket.socket()
s.setblocking(False)
e = s.connect_ex((r4, 8001))
print("R:nb:%s" % errno.errorcode.get(e, e))
select.select([], [s], [], 20)
print("R:nbres:%s" % errno.errorcode.get(s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR), "0"))
s.send(b"nb\n")
s.close()
t = socket.socket()
e = t.connect_ex((r4, 8002))
print("R:refused:%s" % errno.errorcode.get(e, e))
EOF
chmod 644 "$NETWD/nb.py"
rl_mark
jail -w "$NETWD" --connect 8001 -- python3 nb.py "$R4"
is "$(res_of nb)" EINPROGRESS "connect: a non-blocking connect still answers EINPROGRESS"
is "$(res_of nbres)" 0 "connect: ... and completes"
# It sent and closed without waiting for the echo: the log may come later.
ok "connect: ... reaching the declared port" wait_for "rl_got data 8001 '$NET_LOCAL4' nb" 20
is "$(res_of refused)" EACCES "connect: a connect to an undeclared port fails with EACCES"

done_testing
