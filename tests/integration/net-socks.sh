# The proxy's SOCKS5 side as the sandbox sees it (sbxrun(1), --allow-host):
# non-HTTP TCP clients inside -- a plain Python socket through a minimal
# SOCKS5 client, ssh with a ProxyCommand and git clone over ssh:// --
# reach an allowed host:port of the remote test host through
# ALL_PROXY=socks5h://..., and are refused (SOCKS reply 2, counted as
# denials) on another port of the same host and for a denied name. Every
# verdict is read from the remote host's log; the remote host runs TCP
# echo servers, not sshd, so ssh and git get as far as sending their
# banner, which the log shows. Run for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
if ! rjail_ok; then
	skip "$RJAIL_WHY"
	done_testing
	exit
fi
D=$NET_DOMAIN
ALLOW="--allow-host remote.$D:8001 --allow-host git.$D:8003 --allow-host *.$D:8001 --deny-host denied.$D"

# socks.py: a minimal SOCKS5 client taking the proxy from ALL_PROXY.
#   socks.py try TAG HOST PORT   connect, send "TAG\n", read the echo;
#                                prints "S:TAG:OK" or "S:TAG:REPn"
#   socks.py pipe HOST PORT      an ssh ProxyCommand: stdin relayed to the
#                                peer, and its first answer back; then it
#                                ends. The peer is an echo server, not sshd:
#                                its first answer is ssh's own banner, which
#                                it logged on arrival, and ending there ends
#                                ssh and git at once, not at their timeout.
cat >"$NETWD/socks.py" <<'EOF'
import os, socket, struct, sys, threading

def connect(host, port):
    url = os.environ["ALL_PROXY"]
    assert url.startswith("socks5h://"), url
    phost, pport = url[len("socks5h://"):].rstrip("/").rsplit(":", 1)
    s = socket.create_connection((phost, int(pport)), timeout=60)
    s.sendall(b"\x05\x01\x00")
    if s.recv(2) != b"\x05\x00":
        raise OSError("no method")
    name = host.encode()
    s.sendall(b"\x05\x01\x00\x03" + bytes([len(name)]) + name + struct.pack("!H", int(port)))
    rep = b""
    while len(rep) < 10:
        b = s.recv(10 - len(rep))
        if not b:
            break
        rep += b
    return s, rep[1] if len(rep) > 1 else -1

if sys.argv[1] == "try":
    tag, host, port = sys.argv[2:5]
    try:
        s, rep = connect(host, port)
        if rep != 0:
            print("S:%s:REP%d" % (tag, rep), flush=True)
        else:
            s.sendall(tag.encode() + b"\n")
            print("S:%s:OK:%r" % (tag, s.recv(100)), flush=True)
    except OSError as e:
        print("S:%s:%s" % (tag, e), flush=True)
else:
    s, rep = connect(sys.argv[2], sys.argv[3])
    if rep != 0:
        sys.stderr.write("socks: reply %d\n" % rep)
        sys.exit(1)
    s.settimeout(None)
    def up():
        while True:
            b = os.read(0, 65536)
            if not b:
                s.shutdown(socket.SHUT_WR)
                return
            s.sendall(b)
    threading.Thread(target=up, daemon=True).start()
    b = s.recv(65536)
    if b:
        os.write(1, b)
EOF
chmod 644 "$NETWD/socks.py"

SSH_OPTS="-F /dev/null -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o ConnectTimeout=60"
cat >"$NETWD/run.sh" <<EOF
echo "ENV:ALL_PROXY=\$ALL_PROXY"
python3 socks.py try ok remote.$D 8001
python3 socks.py try port remote.$D 8002
python3 socks.py try deny denied.$D 8001
python3 socks.py try other other.$D 8001
timeout 60 ssh $SSH_OPTS -o ProxyCommand='python3 socks.py pipe %h %p' -p 8001 probe@remote.$D true >ssh-ok.out 2>&1
echo "X:ssh-ok:\$?"
timeout 60 ssh $SSH_OPTS -o ProxyCommand='python3 socks.py pipe %h %p' -p 8002 probe@remote.$D true >ssh-port.out 2>&1
echo "X:ssh-port:\$?"
GIT_SSH_COMMAND="ssh $SSH_OPTS -o ProxyCommand='python3 socks.py pipe %h %p'" \
    timeout 60 git clone -q ssh://git@git.$D:8003/repo.git clone-ok >git-ok.out 2>&1
echo "X:git-ok:\$?"
GIT_SSH_COMMAND="ssh $SSH_OPTS -o ProxyCommand='python3 socks.py pipe %h %p'" \
    timeout 60 git clone -q ssh://git@denied.$D:8001/repo.git clone-deny >git-deny.out 2>&1
echo "X:git-deny:\$?"
EOF
chmod 644 "$NETWD/run.sh"
chmod 777 "$NETWD"

sres() {
	sed -n "s/^S:$1://p" "$T/out" | head -n 1
}

rl_mark
# shellcheck disable=SC2086
rjail -w "$NETWD" $ALLOW -- sh run.sh
is_status 0 "the script ran"
port=$(jget proxy.port)
like "$(cat "$T/out")" "ENV:ALL_PROXY=socks5h://127.0.0.1:$port
" "ALL_PROXY names the proxy's port, socks5h"
# A fence of this machine's on each port tried (net_fence): what got
# through is logged before it; $T/rl.step holds the run's lines.
net_fence tcp:8001 tcp:8002 tcp:8003
rl_step_has() {
	grep -qF -- "$1" "$T/rl.step"
}

# The plain TCP client.
like "$(sres ok)" "OK:b'ok\\n'" "a plain TCP client reaches remote.$D:8001 and gets its echo"
ok "... and the remote host logged its bytes on 8001" rl_step_has "data 8001 from"
is "$(sres port)" REP2 "another port of the same host: SOCKS reply 2 (not allowed by ruleset)"
is "$(sres deny)" REP2 "a denied name (though *.$D:8001 allows it): reply 2"
like "$(sres other)" "OK:b'other\\n'" "another name under *.$D on 8001: allowed"
# The remote host's word: what reached it, and what did not.
ok "the remote host got the allowed client's bytes" sh -c "grep -F \"b'ok\\\\n'\" '$NET_LOG' | grep -q 'data 8001'"
nok "the remote host logged no connection on 8002" rl_step_has "tcp 8002 from"
nok "the remote host never saw the denied attempt's bytes" rl_step_has "b'deny\\n'"

# ssh and git over ssh://, through the same proxy.
ok "ssh through SOCKS5: the remote host got its banner on 8001" \
	sh -c "grep 'data 8001' '$T/rl.step' | grep -q SSH-2.0-"
ok "git clone ssh://git.$D:8003: the remote host got ssh's banner on 8003" \
	sh -c "grep 'data 8003' '$T/rl.step' | grep -q SSH-2.0-"
nok "ssh to port 8002: nothing reached the remote host on 8002" rl_step_has " 8002 from"
like "$(cat "$NETWD/ssh-port.out" 2>/dev/null)" "reply 2" "... the ProxyCommand was told reply 2"
like "$(cat "$NETWD/git-deny.out" 2>/dev/null)" "reply 2" "git clone from a denied name: reply 2"
is "$(grep -c 'tcp 8001 from' "$T/rl.step")" 3 "the remote host logged exactly three connections on 8001 (client, other, ssh)"
denials_are 4 "denials counts the four refusals (port, deny, ssh port, git deny)"
diag "$(sed -n 's/^[SX]://p' "$T/out" | tr '\n' ' ')"

done_testing
