# An allowed connect costs no thread (sbxrun(1), NETWORK;
# doc/design/supervisor.md, "The connect the dispatcher makes itself"):
# the supervisor's dispatcher makes an allowed TCP connect itself and
# hands the socket in, for every caller, a root one under namespaces
# included (its dispatcher sets its one capability aside around the
# call). Judged on the host: while the sandbox waits after twenty
# connects that all reached the remote host (logged there), sbxrun has
# no worker thread ("sbxrun-worker" in /proc/PID/task/*/comm). The
# control: a connect to a silent address outlives the dispatcher's bound,
# and a worker takes it over, so the count does see workers. Run for
# $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture

cat >"$NETWD/inline.py" <<'PY'
import os, socket, sys, threading, time
live, silent, port, tag = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
if silent != "-":
    def wait():
        s = socket.socket()  # blocking: a worker waits for it
        try:
            s.connect((silent, port))
        except OSError:
            pass
    threading.Thread(target=wait, daemon=True).start()
n = 0
for i in range(20):
    c = socket.create_connection((live, port), timeout=5)
    c.sendall(("%s-%d\n" % (tag, i)).encode())
    if c.recv(100):
        n += 1
    c.close()
os.write(1, ("R:echoed:%d\n" % n).encode())
open("ready", "w").close()
for _ in range(400):  # 20 s at most, by count
    if os.path.exists("go"):
        break
    time.sleep(0.05)
os._exit(0)
PY
chmod 644 "$NETWD/inline.py"

workers() {
	_w=0
	for _c in /proc/"$SBX_PID"/task/*/comm; do
		[ "$(cat "$_c" 2>/dev/null)" = sbxrun-worker ] && _w=$((_w + 1))
	done
	echo "$_w"
}

# once SILENT DESC: one run; leaves the worker count in $W.
once() {
	rm -f "$NETWD/ready" "$NETWD/go"
	tag=$(uniq_tag i)
	rl_mark
	sbx_bg -w "$NETWD" --timeout 60 --connect 8001 -- python3 inline.py "$NET_REMOTE4" "$1" 8001 "$tag"
	wait_for "[ -e '$NETWD/ready' ]" 30
	W=$(workers)
	: >"$NETWD/go"
	sbx_bg_wait 30
	is "$SBX_STATUS" 0 "$2: the run ended on its own"
	is "$(sed -n 's/^R:echoed://p' "$T/bg.out")" 20 "$2: twenty connections echoed"
	sleep 0.5
	ok "$2: the remote host logged the first and the last" eval \
	    'rl_got data 8001 "$NET_LOCAL4" "$tag-0" && rl_got data 8001 "$NET_LOCAL4" "$tag-19"'
	net_settle
}

once - "twenty connects"
is "$W" 0 "no worker thread was made for them (the dispatcher connected)"

if [ -n "${NET_SILENT4:-}" ]; then
	once "$NET_SILENT4" "control, with a connect to a silent address"
	ok "control: that connect went to a worker, which the count sees" [ "$W" -ge 1 ]
else
	skip "the fixture at $NETFX has no silent address (made by an older tests/net-fixture)" 4
fi

done_testing
