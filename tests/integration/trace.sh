# --trace FILE (sbxrun(1), TRACING): one JSON object a line, made fresh
# for the run, 0600, never through a symbolic link; what the run touched
# at the syscall layer, for any binary. Every verdict is read on the host:
# the trace file itself (parsed line by line), its mode and links, the
# remote host's log (the connection and the name lookup really happened),
# the exit status; --print-backend says which traps the filter holds.
# Run for $SBX_BACKEND; trace-landlock.sh runs it under landlock.
. "$(dirname "$0")/net-lib.sh"

net_fixture
if ! rjail_ok; then
	skip "$RJAIL_WHY"
	done_testing
	exit
fi

# tq TRACE valid: every line one JSON object, the count printed.
# tq TRACE has EXPR: some event e makes the Python expression EXPR true.
# tq TRACE none EXPR: no event does.
cat >"$T/tq.py" <<'EOF'
import json, sys
fname, cmd = sys.argv[1], sys.argv[2]
raw = open(fname, "rb").read()
events = []
if raw and not raw.endswith(b"\n"):
    print("# the last line is not terminated"); sys.exit(1)
for n, line in enumerate(raw.split(b"\n")[:-1], 1):
    try:
        e = json.loads(line.decode("utf-8"))
    except Exception as x:
        print("# line %d is not JSON (%s): %r" % (n, x, line[:200])); sys.exit(1)
    if not isinstance(e, dict) or "ms" not in e or "pid" not in e or "kind" not in e:
        print("# line %d lacks ms, pid or kind: %r" % (n, line[:200])); sys.exit(1)
    events.append(e)
if cmd == "valid":
    print(len(events)); sys.exit(0)
expr = sys.argv[3]
# E(key, default): a member, or the default where it is absent or null
# (an event whose path could not be read has a null path).
def getter(e):
    return lambda k, d=None: d if e.get(k) is None else e.get(k)
hits = [e for e in events if eval(expr, {"e": e, "E": getter(e)})]
if cmd == "has":
    sys.exit(0 if hits else 1)
if hits:
    print("# %s" % json.dumps(hits[0])[:300])
sys.exit(1 if hits else 0)
EOF
tq() {
	"$PY" "$T/tq.py" "$@"
}
TR=$JT/trace.jsonl

# 1. One real run: a file write, a file read, a process spawn with its
# argv, a connection and a name lookup, all in one trace.
NAME=tr-$$.$NET_DOMAIN
TAG=in-$$
echo "$TAG" >"$NETWD/in-$$.txt"
chmod 644 "$NETWD/in-$$.txt"
rl_mark
rjail -w "$NETWD" --network on --trace "$TR" -- sh -c \
    "cat in-$$.txt >/dev/null; echo hi >out-$$.txt; /bin/echo 'arg one' two; python3 netc.py tcp,c,$NET_REMOTE4,8001 gai,g,$NAME dnsq,q,$NET_REMOTE4,raw$NAME"
is_status 0 "a traced run with the network on ran"
net_settle
ok "the connection really reached the remote host" rl_got data 8001 "$NET_LOCAL4" c
ok "the name lookup really reached the resolver" rl_has "dns $NAME "
N=$(tq "$TR" valid)
ok "every line of the trace is one JSON object with ms, pid and kind ($N events)" \
    test -n "$N" -a "$N" -gt 0
is "$(jget trace.events)" "$N" "the diagnostics line counts the events the file holds"
is "$(jget trace.path)" "$TR" "... and names the file"
ok "a file write: out-$$.txt opened O_WRONLY|O_CREAT|O_TRUNC" tq "$TR" has \
    "E('kind')=='write' and E('path','').endswith('/out-$$.txt') and 'O_CREAT' in E('flags','')"
ok "a file read: in-$$.txt" tq "$TR" has \
    "E('kind')=='read' and E('path','').endswith('/in-$$.txt')"
ok "a process spawn with its full argv" tq "$TR" has \
    "E('kind')=='exec' and E('path')=='/bin/echo' and E('argv')==['/bin/echo','arg one','two']"
ok "... the interpreter too" tq "$TR" has \
    "E('kind')=='exec' and E('argv',[])[:2]==['python3','netc.py']"
ok "a connection: address, port and result" tq "$TR" has \
    "E('kind')=='connect' and E('addr')=='$NET_REMOTE4' and E('port')==8001 and E('result') in ('ok','EINPROGRESS')"
ok "a name lookup: the name the sandbox asked" tq "$TR" has \
    "E('kind')=='dns' and E('name')=='$NAME' and E('qtype') in ('A','AAAA')"
ok "... and one sent straight to port 53 with sendto" tq "$TR" has \
    "E('kind')=='dns' and E('name')=='raw$NAME' and E('addr')=='$NET_REMOTE4' and E('port')==53"
ok "each event has a pid and a time" tq "$TR" none \
    "E('kind') in ('read','write','exec') and not (isinstance(E('pid'),int) and E('pid')>0 and isinstance(E('ms'),int))"
ok "noise is dropped: no read of the system's libraries" tq "$TR" none \
    "E('kind')=='read' and E('path','').startswith(('/usr/lib','/lib','/etc/ld.so'))"
is "$(stat -c %a "$TR")" 600 "the trace is mode 0600"

# --trace-all keeps the noise.
rjail -w "$NETWD" --trace "$TR" --trace-all -- sh -c 'cat in-'$$'.txt >/dev/null'
is_status 0 "--trace-all: the run ran"
ok "--trace-all: the loader's reads are kept" tq "$TR" has \
    "E('kind')=='read' and E('path','').startswith(('/usr/lib','/lib','/etc/ld.so'))"

# 2. A static binary (busybox-static: no libc of the system's, no loader)
# is traced as fully as a dynamic one: the syscall layer sees it all.
BB=$(command -v busybox || true)
if [ -n "$BB" ] && ! ldd "$BB" >/dev/null 2>&1; then
	cp "$BB" "$NETWD/busybox"
	chmod 755 "$NETWD/busybox"
	rl_mark
	SNAME=st-$$.$NET_DOMAIN
	rjail -w "$NETWD" --network on --trace "$TR" -- ./busybox sh -c \
	    "./busybox cat in-$$.txt >/dev/null; ./busybox echo x >st-$$.txt; ./busybox mv st-$$.txt st2-$$.txt; ./busybox nslookup $SNAME $NET_REMOTE4 >/dev/null 2>&1; echo ping | ./busybox nc -w 1 $NET_REMOTE4 8001 >/dev/null"
	is_status 0 "static: the run ran"
	net_settle
	ok "static: its read" tq "$TR" has "E('kind')=='read' and E('path','').endswith('/in-$$.txt')"
	ok "static: its write" tq "$TR" has "E('kind')=='write' and E('path','').endswith('/st-$$.txt')"
	ok "static: its rename, as a write" tq "$TR" has \
	    "E('op')=='rename' and E('to','').endswith('/st2-$$.txt')"
	ok "static: its exec with argv" tq "$TR" has \
	    "E('kind')=='exec' and E('argv')==['./busybox','cat','in-$$.txt']"
	ok "static: its connection" tq "$TR" has \
	    "E('kind')=='connect' and E('addr')=='$NET_REMOTE4' and E('port')==8001"
	ok "static: the resolver really got its lookup" rl_has "dns $SNAME "
	# busybox's nslookup writes its query with write(2) on a connected
	# socket, which is not trapped (sbxrun(1), TRACING): its lookup shows
	# as the connection to the resolver's port 53.
	ok "static: its lookup, as the connection to the resolver's port 53" tq "$TR" has \
	    "E('kind')=='connect' and E('addr')=='$NET_REMOTE4' and E('port')==53"
else
	skip "busybox-static is not installed (bootstrap installs it)" 7
fi

# 3. Sandbox-made names stay one valid JSON line each: a newline, quotes,
# a backslash and bytes that are not UTF-8.
rjail -w "$NETWD" --trace "$TR" -- sh -c \
    'n=$(printf "w\nx\"y\\\\z\377\376-'$$'"); echo x >"$n"; rm -f "$n"'
is_status 0 "odd names: the run ran"
ok "odd names: still one JSON object a line" eval "tq \"\$TR\" valid >/dev/null"
ok "odd names: the newline and quote kept, the bad bytes as U+FFFD" tq "$TR" has \
    "E('kind')=='write' and E('path','').endswith('w\nx\"y\\\\z\ufffd\ufffd-$$')"
ok "odd names: the removal, as a write" tq "$TR" has \
    "E('op')=='unlink' and E('path','').endswith('-$$')"

# 4. A second run into the same file does not replay the first's events;
# the name is replaced, so a symbolic link there (a caller's /dev/stderr)
# is refused before the run, its target untouched and the link kept.
rjail -w "$NETWD" --trace "$TR" -- sh -c 'echo a >first-'$$'.txt'
rjail -w "$NETWD" --trace "$TR" -- sh -c 'echo b >second-'$$'.txt'
ok "second run: its own event is there" tq "$TR" has "E('path','').endswith('/second-$$.txt')"
ok "second run: the first run's is not" tq "$TR" none "E('path','').endswith('/first-$$.txt')"
echo "victim-$$" >"$JT/victim"
rm -f "$TR"
ln -s "$JT/victim" "$TR"
rjail -w "$NETWD" --trace "$TR" -- true
is_status 125 "a symbolic link at the trace's name: refused (125)"
is "$(cat "$JT/victim")" "victim-$$" "... its target is untouched"
ok "... and the link is kept" test -L "$TR"
rm -f "$TR"
for dev in /dev/null /dev/stderr; do
	rjail -w "$NETWD" --trace "$dev" -- true
	is_status 125 "--trace $dev: refused (125)"
done
ok "... /dev/null is still the character device" test -c /dev/null
ok "... /dev/stderr is still a symbolic link" test -L /dev/stderr
no_temp=$(find "$JT" -maxdepth 1 -name '.trace.jsonl.sbxrun-*' | wc -l)
is "$no_temp" 0 "no hidden file of the trace is left"

# 5. Tracing never changes an outcome: the exit status, a refused call.
rjail -w "$NETWD" --trace "$TR" -- sh -c 'echo x >y-'$$'; exit 7'
is_status 7 "a traced run exits with the command's status"
OUTSIDE=$JT/outside-$$
rjail -w "$NETWD" --trace "$TR" -- sh -c "echo x >$OUTSIDE; exit 0"
absent "a write the jail refuses stays refused when it is traced (let go on, judged by the kernel)" \
    "$OUTSIDE"
rjail -w "$NETWD" --connect 8002 --trace "$TR" -- python3 netc.py tcp,r,$NET_REMOTE4,8001
is_status 0 "a refused connect under tracing: the client ran"
is "$(res_of r)" EACCES "... and saw EACCES, as without a trace"
ok "... the refusal is a denied event with its rule" tq "$TR" has \
    "E('kind')=='denied' and E('op')=='connect' and E('port')==8001 and E('rule')"

# The proxy's decisions, and its refusal as a denied event.
printf '%s\n' 'import sys, urllib.request' 'for u in sys.argv[1:]:' '    try:' \
    '        print("F:" + str(urllib.request.urlopen(u, timeout=3).status))' \
    '    except Exception as e:' '        print("F:" + str(e))' >"$NETWD/fetch-$$.py"
chmod 644 "$NETWD/fetch-$$.py"
rjail -w "$NETWD" --allow-host "$NET_REMOTE4:8080" --trace "$TR" -- python3 "fetch-$$.py" \
    "http://$NET_REMOTE4:8080/" "http://refused-$$.example/"
is_status 0 "proxy: the client ran"
ok "proxy: the allowed request" tq "$TR" has \
    "E('kind')=='proxy' and E('host')=='$NET_REMOTE4' and E('decision')=='allowed'"
ok "proxy: the refused one, with its rule" tq "$TR" has \
    "E('kind')=='proxy' and E('host')=='refused-$$.example' and E('decision')=='refused' and E('rule')"
ok "proxy: ... and as a denied event" tq "$TR" has \
    "E('kind')=='denied' and E('op')=='proxy' and E('host')=='refused-$$.example'"

# 6. With tracing off: no trace file, and no trap of the trace's in the
# filter (the description --print-backend gives of it).
rm -f "$TR"
rjail -w "$NETWD" -- sh -c 'cat in-'$$'.txt >/dev/null'
is_status 0 "untraced: the run ran"
absent "untraced: no trace file" "$TR"
is "$(jget trace)" null "untraced: the diagnostics line says trace null"
"$SBXRUN" --backend "$SBX_BACKEND" --print-backend >"$T/pb-off" 2>&1
"$SBXRUN" --backend "$SBX_BACKEND" --print-backend --trace "$TR" >"$T/pb-on" 2>&1
nok "untraced: the filter traps nothing for the trace" grep -q 'observed for --trace' "$T/pb-off"
ok "traced: the filter traps the file and exec calls" grep -q 'observed for --trace' "$T/pb-on"
absent "--print-backend made no trace file" "$TR"

done_testing
