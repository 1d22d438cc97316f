# Why was it denied: the diagnostics line's "denied" lists the first 20
# refusals of the run, each {"kind","what"}, in agreement with "denials";
# -v prints each one as it happens, one whole line on stderr. One refusal
# of each kind is provoked (connect, send, bind, a unix connect, the
# proxy, and under the landlock backend a metadata call); each is judged
# from the host: the listener that must log nothing, the file mode that
# must not change, and sbxrun's own stderr and JSON line. Run for
# $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

listener_start || {
	fail "the host listeners did not start"
	done_testing
	exit 1
}

# A host unix socket (in $JT, outside the workdir) whose name holds an
# escape sequence, a newline and a byte that is not UTF-8: what the sandbox
# names must reach the terminal and the JSON line only escaped.
"$PY" - "$JT" "$JT/weird.log" <<'EOF' &
import os, socket, sys, time
path = os.path.join(sys.argv[1].encode(), b"e\x1b[2J\n\xff.sock")
s = socket.socket(socket.AF_UNIX); s.bind(path); os.chmod(path, 0o777); s.listen(64)
log = open(sys.argv[2], "a", buffering=1)
log.write("ready\n")
s.settimeout(1)
end = time.time() + 300
while time.time() < end:
    try:
        c, _ = s.accept()
        log.write("accepted\n")
        c.close()
    except socket.timeout:
        pass
EOF
JAIL_PIDS="$JAIL_PIDS $!"
wait_for "grep -qs ready '$JT/weird.log'" 10 || fail "the weird-named host socket did not start"

# denied_has KIND WHAT DESC: the JSON line lists {"kind":KIND,"what":WHAT}.
denied_has() {
	"$PY" - "$T/diag" "$1" "$2" <<'EOF'
import json, sys
v = json.loads(open(sys.argv[1], "rb").read().decode("utf-8").splitlines()[-1])
sys.exit(0 if {"kind": sys.argv[2], "what": sys.argv[3]} in v["denied"] else 1)
EOF
	ok "$3" [ $? = 0 ]
}

# vlines: sbxrun's -v refusal lines on stderr.
vlines() {
	grep -a '^sbxrun: denied ' "$T/err"
}

# --- nothing refused: an empty list, no line ------------------------------------
jail_sh "echo hello" -v -w "$WD"
is_status 0 "a run without refusals"
is "$(jget denied)" "[]" "no refusal: denied is []"
is "$(vlines | wc -l | tr -d ' ')" 0 "no refusal: -v prints no 'denied' line"
ok "the line is well-formed" check_diag "$T/diag"

# --- the network supervisor: connect, send, bind, unix --------------------------
cat >"$NETWD/net.py" <<'EOF'
import socket, sys
tcp, udp, sock = int(sys.argv[1]), int(sys.argv[2]), sys.argv[-1]
def t(name, f):
    try:
        f()
        print("R:%s:0" % name)
    except OSError as e:
        print("R:%s:%d" % (name, e.errno))
addr = sys.argv[3]
t("connect", lambda: socket.create_connection((addr, tcp), timeout=2))
t("send", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", (addr, udp)))
t("bind", lambda: socket.socket().bind(("127.0.0.1", 18081)))
if len(sys.argv) > 4:
    t("unix", lambda: socket.socket(socket.AF_UNIX).connect(sock))
EOF
# A host unix socket outside the workdir is refused under landlock (the
# jail sees the host's files); under namespaces it is not in the jail's
# view at all (ENOENT, the kernel's answer), and the workdir's sockets are
# the sandbox's to use under both.
#
# Under namespaces 127.0.0.1 is the jail's own loopback (nothing of the
# host's to refuse there, and a bind on it is the jail's own), so the
# refused target is this machine's own non-loopback address, which is
# local and never given (the host's listener on 0.0.0.0 must log nothing);
# under landlock, without a network namespace, it is the host's loopback.
if [ "$SBX_BACKEND" = landlock ]; then
	UNIX=$LSN_SOCK ADDR=127.0.0.1 TCPP=$LSN_TCP
else
	UNIX= TCPP=$LSN_ANY
	ADDR=$(ip -4 -o addr show scope global 2>/dev/null | awk '{ sub("/.*", "", $4); print $4; exit }')
	[ -n "$ADDR" ] || ADDR=$(hostname -I 2>/dev/null | awk '{ print $1 }')
fi
before=$(log_lines)
jail -v --network on --listen 18080 -w "$NETWD" -- python3 net.py "$TCPP" "$LSN_UDP" "$ADDR" $UNIX
is_status 0 "the refused network calls ran"
lsn_fence "$before" tcp any udp ${UNIX:+sock}
is "$(cat "$T/lsn.step")" "" "the host listeners got nothing"
for step in connect send ${UNIX:+unix}; do
	failed_inside "$step is refused inside" "$step"
done
ok "the line is well-formed, denied agrees with denials" check_diag "$T/diag"
denied_has connect "$ADDR:$TCPP" "denied: {connect, $ADDR:$TCPP}"
denied_has send "$ADDR:$LSN_UDP" "denied: {send, $ADDR:$LSN_UDP}"
if [ "$SBX_BACKEND" = landlock ]; then
	failed_inside "bind is refused inside" bind
	denied_has bind "127.0.0.1:18081" "denied: {bind, 127.0.0.1:18081} (not a --listen port)"
	like "$(vlines)" "sbxrun: denied bind 127.0.0.1:18081 (" "-v: the bind"
else
	is "$(rc_of bind)" 0 "namespaces: a bind on the jail's own loopback is the jail's"
	unlike "$(jget denied)" '"bind"' "namespaces: ... and not a denial"
	is "$(vlines | grep -c 'denied bind')" 0 "namespaces: ... and no -v line for it"
fi
if [ -n "$UNIX" ]; then
	denied_has connect "$LSN_SOCK" "denied: {connect, $LSN_SOCK} (a host unix socket)"
	like "$(vlines)" "sbxrun: denied connect $LSN_SOCK (" "-v: the unix connect"
else
	skip "namespaces: a host unix socket is either the workdir's or out of view" 2
fi
like "$(vlines)" "sbxrun: denied connect $ADDR:$TCPP (" "-v: the connect, with its reason"
like "$(vlines)" "sbxrun: denied send $ADDR:$LSN_UDP (" "-v: the send"
is "$(vlines | wc -l | tr -d ' ')" "$(jget denials)" "-v: one line per denial"

# --- the proxy ---------------------------------------------------------------
cat >"$WD/proxy.py" <<'EOF'
import os, socket, sys
port = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
s = socket.create_connection(("127.0.0.1", port), timeout=5)
s.sendall(b"CONNECT evil.example.com:443 HTTP/1.1\r\nHost: evil.example.com:443\r\n\r\n")
print("P:" + s.recv(100).split(b"\r\n")[0].decode())
EOF
jail -v --allow-host good.example.com -w "$WD" -- python3 proxy.py
is_status 0 "a CONNECT the proxy refuses"
like "$(cat "$T/out")" "P:HTTP/1.1 403" "the proxy answered 403"
denied_has proxy "evil.example.com:443" "denied: {proxy, evil.example.com:443}"
like "$(vlines)" "sbxrun: denied proxy evil.example.com:443 (" "-v: the proxy's refusal"
ok "the proxy's refusal: the line is well-formed" check_diag "$T/diag"

# --- metadata (landlock: the supervisor judges chmod and friends) ---------------
new_wd
mkdir -p "$WD/.git/hooks"
chmod 755 "$WD/.git/hooks"
jail_sh "$SBX_T_PRELUDE
t chmod chmod 777 .git/hooks
exit 0" -v -w "$WD"
is "$(stat -c %a "$WD/.git/hooks")" 755 "chmod .git/hooks from inside changed nothing on the host"
failed_inside "chmod .git/hooks fails inside" chmod
if [ "$SBX_BACKEND" = landlock ]; then
	denied_has metadata "fchmodat .git/hooks" "denied: {metadata, fchmodat .git/hooks}"
	like "$(vlines)" "sbxrun: denied metadata fchmodat .git/hooks (a protected path)" \
	    "-v: the metadata refusal with its reason"
else
	# A read-only mount refuses it: the kernel's answer, not a refusal
	# of sbxrun's own.
	is "$(jget denied)" "[]" "namespaces: the kernel refuses the chmod, sbxrun lists nothing"
	skip "namespaces: metadata calls are not trapped (read-only mounts hold them)" 1
fi

# The refusal names what was judged: the path as copied for the decision,
# not read again from the sandbox's memory afterwards (a thread of its own
# rewrote it between the decision and the report, and the list named a
# harmless file instead of the protected one).
new_wd
mkdir -p "$WD/.git/hooks"
: >"$WD/harmless"
printf '%s\n' 'import ctypes, threading
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(64)
a, b = b".git/hooks\0", b"harmless\0\0\0"
stop = False
def flip():
    while not stop:
        ctypes.memmove(buf, a, len(a))
        ctypes.memmove(buf, b, len(b))
threading.Thread(target=flip, daemon=True).start()
for _ in range(3000):
    libc.chmod(buf, 0o777)
stop = True' >"$WD/flip.py"
jail -w "$WD" -- python3 flip.py
if [ "$SBX_BACKEND" = landlock ]; then
	unlike "$(jget denied)" "harmless" \
	    "a path rewritten after the decision: the refusals name only .git/hooks"
	like "$(jget denied)" '"what":"chmod .git/hooks"' "... which they do"
else
	is "$(jget denied)" "[]" "namespaces: the kernel refuses, sbxrun lists nothing"
	skip "namespaces: metadata calls are not trapped (read-only mounts hold them)" 1
fi

# A long path is cut visibly, and keeps its end: where the call aimed. A
# path padded with "./" in front was cut at 160 bytes with no marker, so
# the list showed "setxattr ./././..." and not the ../../etc/passwd the
# call was aimed at.
new_wd
cat >"$WD/long.py" <<'EOF'
import os
try:
    os.setxattr("./" * 100 + "../../../etc/passwd", "trusted.x", b"1")
except OSError as e:
    print("R:long:%d" % e.errno)
EOF
jail -v -w "$WD" -- python3 long.py
if [ "$SBX_BACKEND" = landlock ]; then
	ok "a long path: the cut marked, the end where the call aimed kept" \
	    grep -Eq '"what":"setxattr \.\.\.[./]*/\.\./\.\./\.\./etc/passwd"' "$T/diag"
	ok "-v: the same" \
	    grep -Eq '^sbxrun: denied metadata setxattr \.\.\.[./]*/\.\./\.\./\.\./etc/passwd \(' "$T/err"
	ok "the line is well-formed" check_diag "$T/diag"
else
	is "$(jget denied)" "[]" "namespaces: the kernel refuses, sbxrun lists nothing"
	skip "namespaces: metadata calls are not trapped (read-only mounts hold them)" 2
fi

# --- the first 20 and whole lines under concurrency -----------------------
# 25 threads connect at once to a local address ($ADDR, as above) while
# the proxy refuses five requests: the list keeps 20 and every -v line is
# whole.
cat >"$NETWD/many.py" <<'EOF'
import os, socket, sys, threading
port = int(os.environ["HTTPS_PROXY"].rsplit(":", 1)[1])
def connect(i):
    try:
        socket.create_connection((sys.argv[2], int(sys.argv[1])), timeout=2)
    except OSError:
        pass
def proxy(i):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"CONNECT evil%d.example.com:443 HTTP/1.1\r\n\r\n" % i)
    s.recv(100)
ts = [threading.Thread(target=connect, args=(i,)) for i in range(25)]
ts += [threading.Thread(target=proxy, args=(i,)) for i in range(5)]
for t in ts: t.start()
for t in ts: t.join()
EOF
before=$(log_lines)
jail -v --network on --allow-host good.example.com -w "$NETWD" -- python3 many.py "$TCPP" "$ADDR"
is_status 0 "30 concurrent refusals"
lsn_fence "$before" tcp any
is "$(cat "$T/lsn.step")" "" "the host listener got none of the 25 connects"
is "$(jget denials)" 30 "denials counts the 25 connects and the 5 proxy refusals"
is "$("$PY" -c 'import json,sys; print(len(json.loads(open(sys.argv[1]).read().splitlines()[-1])["denied"]))' "$T/diag")" 20 \
    "denied keeps the first 20"
ok "the line is well-formed, denied agrees with denials" check_diag "$T/diag"
is "$(vlines | wc -l | tr -d ' ')" 30 "-v: one line per denial, the 21st and later too"
is "$(grep -ac '^sbxrun: denied \(connect\|proxy\) [!-~]* ([ -~]*)$' "$T/err")" 30 \
    "-v: every line whole (kind, target, reason), none interleaved"

# --- a target the sandbox names is escaped ---------------------------------
# A host unix socket whose name holds an escape sequence, a newline and a
# byte that is not UTF-8 (refused under landlock only: see above).
cat >"$NETWD/weird.py" <<'EOF'
import os, socket, sys
try:
    socket.socket(socket.AF_UNIX).connect(os.path.join(sys.argv[1].encode(), b"e\x1b[2J\n\xff.sock"))
except OSError as e:
    print("R:weird:%d" % e.errno)
EOF
if [ -n "$UNIX" ]; then
	jail -v --network on -w "$NETWD" -- python3 weird.py "$JT"
	is_status 0 "a unix connect to a name with control bytes"
	is "$(grep -c accepted "$JT/weird.log")" 0 "the weird-named host socket accepted nothing"
	ok "-v: no raw escape byte reaches the terminal" \
	    sh -c "! grep -aq \"\$(printf '\\033')\" '$T/err'"
	like "$(vlines)" '/e\x1b[2J\x0a\xff.sock (' "-v: the target's bytes as \\\\xHH"
	ok "the JSON keeps the target, escaped by the writer" \
	    grep -q '/e\\u001b\[2J\\n\\ufffd.sock"' "$T/diag"
	ok "the line is well-formed" check_diag "$T/diag"
else
	skip "namespaces: no unix path is refused by sbxrun (see above); test-json covers the escaping" 5
fi

done_testing
