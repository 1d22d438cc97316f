# A connect to a peer that never answers (sbxrun(1), NETWORK;
# doc/design/network.md, "What a trapped call costs"): the supervisor may
# begin an allowed connect on its dispatcher, but only for a bounded
# moment, so a silent peer must behave as without a sandbox (a
# non-blocking socket gets EINPROGRESS and stays pending; a blocking
# connect keeps waiting) and must hold nobody else up: while one thread
# of the sandbox waits on the silent address, another's connect to a live
# port goes through (the remote host logs its bytes) well within the
# run's timeout, and the run ends on its own. The silent addresses are the
# fixture's (tests/net-fixture: a neighbour nobody answers for). Run for
# $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
if [ -z "${NET_SILENT4:-}" ]; then
	skip "the fixture at $NETFX has no silent address (made by an older tests/net-fixture)"
	done_testing
	exit 0
fi

cat >"$NETWD/silent.py" <<'PY'
import errno, os, select, socket, struct, sys, threading, time
silent4, silent6, live, port, tag, timeo = sys.argv[1:7]
port = int(port)

def out(s):
    os.write(1, (s + "\n").encode())

def name(e):
    return errno.errorcode.get(e, str(e)) if e else "OK"

def blocking():
    s = socket.socket()
    try:
        s.connect((silent4, port))
        out("R:blk:OK")
    except OSError as e:
        out("R:blk:" + name(e.errno))

t = threading.Thread(target=blocking, daemon=True)
t.start()
# Until the thread sits in connect(2) (its syscall number, x86_64 42 or
# aarch64 203), by count: the live connect below must start after it. At
# most 20 s (a busy machine); said either way, and judged by the caller.
for _ in range(2000):
    try:
        nr = open("/proc/self/task/%d/syscall" % t.native_id).read().split()[0]
    except OSError:
        nr = ""
    if nr in ("42", "203"):
        out("R:inconnect:OK")
        break
    time.sleep(0.01)
else:
    out("R:inconnect:TIMEOUT")
nb = []
for a, fam in ((silent4, socket.AF_INET), (silent6, socket.AF_INET6)):
    s = socket.socket(fam)
    s.setblocking(False)
    out("R:nb%d:%s" % (len(nb), name(s.connect_ex((a, port)))))
    nb.append(s)
c = socket.create_connection((live, port))
c.sendall(tag.encode() + b"\n")
c.settimeout(5)
out("R:live:" + ("OK" if c.recv(100) == tag.encode() + b"\n" else "BAD"))
w = select.select([], nb, [], 0.5)[1]
out("R:nbwait:" + ("DONE" if w else "PENDING"))
if timeo == "timeo":
    # A blocking connect with a send timeout: in progress when it ends.
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", 0, 300000))
    out("R:timeo:" + name(s.connect_ex((silent4, port))))
out("R:blkalive:%s" % t.is_alive())
os._exit(0)
PY
chmod 644 "$NETWD/silent.py"

# Control: the same client outside any sandbox.
rl_mark
(cd "$NETWD" && timeout 60 "$PY" silent.py "$NET_SILENT4" "$NET_SILENT6" "$NET_REMOTE4" 8001 bare1 timeo) >"$T/bare.out" 2>&1
is "$(res_of inconnect "$T/bare.out")" OK "control: the blocking connect was under way before the others began"
is "$(res_of nb0 "$T/bare.out") $(res_of nb1 "$T/bare.out")" "EINPROGRESS EINPROGRESS" "control: a non-blocking connect to a silent address is in progress"
is "$(res_of nbwait "$T/bare.out")" PENDING "control: ... and stays pending"
is "$(res_of blkalive "$T/bare.out")" True "control: a blocking one keeps waiting"
is "$(res_of live "$T/bare.out")" OK "control: the live port answers meanwhile"
is "$(res_of timeo "$T/bare.out")" EINPROGRESS "control: a blocking connect whose SO_SNDTIMEO ends says EINPROGRESS"
# Under namespaces the host socket made for a connect does not take the
# caller's SO_SNDTIMEO (its options are copied, not that one): not asked.
timeo=
[ "$SBX_BACKEND" = landlock ] && timeo=timeo
net_settle

for mode in "--connect 8001" "--network on"; do
	tag=$(uniq_tag s)
	rl_mark
	# shellcheck disable=SC2086
	jail -w "$NETWD" --timeout 60 $mode -- python3 silent.py "$NET_SILENT4" "$NET_SILENT6" "$NET_REMOTE4" 8001 "$tag" "$timeo"
	is_status 0 "$mode: the run ended on its own, with a connect still waiting"
	is "$(res_of inconnect)" OK "$mode: the blocking connect was under way before the others began"
	ok "$mode: another thread's connect to a live port went through meanwhile (logged there)" \
	    wait_for "rl_got data 8001 '$NET_LOCAL4' '$tag'" 20
	is "$(res_of nb0) $(res_of nb1)" "EINPROGRESS EINPROGRESS" "$mode: a non-blocking connect to a silent address is in progress (IPv4, IPv6)"
	is "$(res_of nbwait)" PENDING "$mode: ... and stays pending, as without a sandbox"
	is "$(res_of blk)" "" "$mode: the blocking connect did not return early"
	is "$(res_of blkalive)" True "$mode: ... it was still waiting at the end"
	is "$(res_of live)" OK "$mode: the live connection echoed"
	if [ -n "$timeo" ]; then
		is "$(res_of timeo)" EINPROGRESS "$mode: a blocking connect whose SO_SNDTIMEO ends says EINPROGRESS, as bare"
	fi
	net_settle
done

done_testing
