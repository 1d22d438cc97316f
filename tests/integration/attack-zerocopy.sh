# A send the network supervisor makes for the sandbox goes from sbxrun's
# own copy of the data, which sbxrun frees once the call returns. With
# MSG_ZEROCOPY on a socket given SO_ZEROCOPY the kernel pinned those pages
# instead of copying them, and what was still queued (the peer's window
# full) went out later as whatever sbxrun wrote there since: its pointers
# and its heap's metadata, to the sandbox's own listener. The sandbox
# sends a known stream to itself over loopback; the verdict is the stream
# it received, written to the workdir, against the one the test computes
# here. Run for $SBX_BACKEND (default namespaces), as root and as sbxtest.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=4
plan "$N_TESTS"
cat >"$WD/zc.py" <<'PY'
import os, socket, threading
SO_ZEROCOPY, MSG_ZEROCOPY = 60, 0x4000000
L = socket.socket(); L.bind(("127.0.0.1", 0)); L.listen(1)
c = socket.socket(); c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 4 << 20)
try:
    c.setsockopt(socket.SOL_SOCKET, SO_ZEROCOPY, 1)
    print("R:zc:0", flush=True)
except OSError as e:
    print("R:zc:%s" % os.strerror(e.errno), flush=True)
c.connect(L.getsockname()); s, _ = L.accept()
keep = []
def send(d):
    keep.append(d)
    n = 0
    while n < len(d):
        n += c.sendmsg([d[n:]], [], MSG_ZEROCOPY)
send(b"P" * 400000)
def poke():
    os.setpriority(os.PRIO_PROCESS, os.getpid(), 0)
for k in range(200):
    send((b"<%06d>" % k) * 59)
    t = threading.Thread(target=poke); t.start(); t.join()
c.shutdown(socket.SHUT_WR)
s.settimeout(10)
with open("got", "wb") as f:
    while True:
        b = s.recv(65536)
        if not b:
            break
        f.write(b)
PY
chmod 644 "$WD/zc.py"
/usr/bin/python3 -c '
import sys
sys.stdout.buffer.write(b"P" * 400000 + b"".join((b"<%06d>" % k) * 59 for k in range(200)))' >"$T/want"

zc_run() {
	_who=$1
	new_wd
	cp "$T/zc.py.src" "$WD/zc.py"
	if [ "$_who" = caller ]; then
		jail_sh 'python3 zc.py' -q -t 60 -w "$WD" >"$T/out" 2>"$T/err"
	else
		chown -R sbxtest: "$WD"
		printf 'python3 zc.py\n' >"$T/script"
		chmod 644 "$T/script"
		(cd "$WD" && as sbxtest env TMPDIR=/tmp "$SBXRUN" --backend "$SBX_BACKEND" -q -t 60 -w "$WD" \
		    <"$T/script" >"$T/out" 2>"$T/err")
	fi
	if cmp -s "$T/want" "$WD/got"; then
		pass "$_who: the stream sent with MSG_ZEROCOPY arrives as it was sent ($SBX_BACKEND)"
	else
		fail "$_who: the stream sent with MSG_ZEROCOPY arrives as it was sent ($SBX_BACKEND)"
		diag "$(cmp "$T/want" "$WD/got" 2>&1 | head -n 2)"
		output | head -n 5 | sed 's/^/# /'
	fi
	is "$(sed -n 's/^R:zc://p' "$T/out")" "Protocol not available" \
	    "$_who: SO_ZEROCOPY is refused as a kernel without it would ($SBX_BACKEND)"
}
cp "$WD/zc.py" "$T/zc.py.src"
zc_run caller
other_users_only 2
zc_run sbxtest
done_testing
