# The allowlist proxy listens on 127.0.0.1:P, and the rules give that one
# port back to the sandbox. The same number on another loopback address
# (127.0.0.2, 127.0.0.53, [::1], ::ffff:127.0.0.2) is whatever host socket
# holds it there: a host service that happened to get port P on ::1 (a
# server bound to "localhost" as ::1 only, on an ephemeral port like the
# proxy's) was reached from the sandbox, because the rules allowed the
# proxy's port on every loopback address. The sandbox tells the test its
# proxy port; the test puts host listeners on that port at those
# addresses; the sandbox connects to each. Verdict: what the listeners
# logged, then a connect of the test's own to each (the control). Run for
# $SBX_BACKEND (default namespaces), by the caller and, as root, as
# sbxtest.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=4
cat >"$T/pp.py" <<'PY'
import os, socket, time
port = int(os.environ["ALL_PROXY"].rsplit(":", 1)[1])
with open("port.tmp", "w") as f:
    f.write("%d\n" % port)
os.rename("port.tmp", "port")
end = time.time() + 20
while not os.path.exists("ready") and time.time() < end:
    time.sleep(0.05)
for fam, a in [(socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.2"),
               (socket.AF_INET, "127.0.0.53"), (socket.AF_INET6, "::ffff:127.0.0.2")]:
    s = socket.socket(fam, socket.SOCK_STREAM); s.settimeout(3)
    try:
        s.connect((a, port)); r = "connected"
    except OSError as e:
        r = os.strerror(e.errno) if e.errno else str(e)
    print("R:%s:%s" % (a, r), flush=True)
    s.close()
PY
cat >"$T/host.py" <<'PY'
import os, select, socket, sys, time
wd, log = sys.argv[1], sys.argv[2]
end = time.time() + 30
while not os.path.exists(os.path.join(wd, "port")) and time.time() < end:
    time.sleep(0.05)
port = int(open(os.path.join(wd, "port")).read())
out = open(log, "a", buffering=1)
socks = []
for fam, a in [(socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.2"),
               (socket.AF_INET, "127.0.0.53")]:
    s = socket.socket(fam, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    if fam == socket.AF_INET6:
        s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind((a, port)); s.listen(8); socks.append(s)
open(os.path.join(wd, "ready"), "w").close()
while time.time() < end:
    r, _, _ = select.select(socks, [], [], 0.5)
    for s in r:
        c, peer = s.accept()
        out.write("%s %r\n" % (s.getsockname()[0], peer[0]))
        c.close()
PY
chmod 644 "$T/pp.py" "$T/host.py"

pp_run() {
	_who=$1
	new_wd
	cp "$T/pp.py" "$WD/pp.py"
	: >"$T/log.$_who"
	"$PY" "$T/host.py" "$WD" "$T/log.$_who" &
	_host=$!
	JAIL_PIDS="$JAIL_PIDS $_host"
	if [ "$_who" = caller ]; then
		jail_sh 'python3 pp.py' --allow-host example.test:443 -q -t 30 -w "$WD" \
		    >"$T/out" 2>"$T/err"
	else
		chown -R sbxtest: "$WD"
		printf 'python3 pp.py\n' >"$T/script"
		(cd "$WD" && as sbxtest env TMPDIR=/tmp "$SBXRUN" --backend "$SBX_BACKEND" \
		    --allow-host example.test:443 -q -t 30 -w "$WD" <"$T/script" >"$T/out" 2>"$T/err")
	fi
	is "$(cat "$T/log.$_who")" "" \
	    "$_who: no host listener on the proxy's port at another loopback address was reached ($SBX_BACKEND)" ||
	    output | head -n 8 | sed 's/^/# /'
	# The control: the listeners were there, each reached from here.
	"$PY" - "$(cat "$WD/port" 2>/dev/null || echo 0)" <<'PY' >/dev/null 2>&1
import socket, sys
port = int(sys.argv[1])
for fam, a in [(socket.AF_INET6, "::1"), (socket.AF_INET, "127.0.0.2"), (socket.AF_INET, "127.0.0.53")]:
    s = socket.socket(fam, socket.SOCK_STREAM); s.settimeout(3); s.connect((a, port)); s.close()
PY
	wait_for "[ \$(wc -l <'$T/log.$_who') -ge 3 ]" 10
	is "$(wc -l <"$T/log.$_who" | tr -d ' ')" 3 \
	    "$_who: control: the three listeners took this machine's connects ($SBX_BACKEND)"
	kill "$_host" 2>/dev/null
	wait "$_host" 2>/dev/null
}
pp_run caller
other_users_only 2
pp_run sbxtest
done_testing
