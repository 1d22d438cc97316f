# The allowlist proxy parses what the sandbox sends, so it must hold no
# more than it needs (doc/design/proxy.md): a helper process of its own,
# judged here from the host through /proc while a run is in progress --
# its ids, capabilities, no_new_privs and seccomp mode, the descriptors it
# holds (the listener, the channel to sbxrun, its own stop pipe; nothing
# of sbxrun's or the sandbox's), and what its Landlock domain lets it
# open. The kernel shows no Landlock domain in /proc, so the run asks the
# confined helper to open a file (SBXRUN_TEST_PROXY_OPEN): a file it can
# open stays open in /proc/PID/fd, one it cannot leaves no trace. The
# resolver's /etc/hosts must show (the probe works), a world-readable
# canary and a caller-only one must not. Then the sandbox attacks the
# helper (signals, /proc), a refused request must still be counted in the
# JSON line, the helper must be reaped at the end, and it must die with
# sbxrun when sbxrun is killed. Last, another process on the proxy's port
# must be neither served nor counted. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

if ! command -v curl >/dev/null; then
	skip "curl is missing (apt-get install curl)"
	done_testing
	exit
fi
ROOT_CALLER=false
[ "$(id -u)" = 0 ] && ROOT_CALLER=true

# The canaries: readable by the caller's ids (the world one by anyone), so
# that only the helper's Landlock domain can keep them shut.
TAG=$(uniq_tag proxy)
echo "$TAG-world" >"$JT/canary-world"
chmod 644 "$JT/canary-world"
echo "$TAG-private" >"$JT/canary-private"
chmod 600 "$JT/canary-private"

# The pid that serves the proxy for sbxrun $1: its child sbxrun-proxy, or
# sbxrun itself when there is no such child (the proxy ran on sbxrun's
# own threads before it had a helper).
proxy_of() {
	for _c in $(cat /proc/"$1"/task/*/children 2>/dev/null); do
		if [ "$(cat /proc/"$_c"/comm 2>/dev/null)" = sbxrun-proxy ]; then
			echo "$_c"
			return
		fi
	done
	echo "$1"
}

# The descriptors of pid $1, one "N:target" per line, sockets, pipes and
# anonymous inodes by kind only.
fds_of() {
	for _f in /proc/"$1"/fd/*; do
		_t=$(readlink "$_f" 2>/dev/null) || continue
		case $_t in
		socket:*) _t=socket ;;
		pipe:*) _t=pipe ;;
		anon_inode:*) _t=${_t%%\]*}] ;;
		esac
		echo "${_f##*/}:$_t"
	done | sort -n | tr '\n' ' '
}

# fds_of $1 once it equals $2, or as it is after 50 tries: the sandbox's
# own connection to the proxy may still be closing when the host looks.
fds_settled() {
	_i=0
	while :; do
		_got=$(fds_of "$1")
		[ "$_got" = "$2" ] || [ $_i -ge 50 ] && break
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "$_got"
}

status_line() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null | tr -s ' \t' ' '
}

# The sandbox's part: wait for the host to write the helper's pid, attack
# it (stop, kill, read its environment), make one request the proxy must
# refuse (a name not listed: 403), say so, and wait for the host's "go".
# Every wait is bounded by a count.
cat >"$JT/attack.sh" <<'EOF'
i=0
while [ ! -s pid ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
pid=$(cat pid)
kill -STOP "$pid" 2>/dev/null && echo "STOPPED"
kill -KILL "$pid" 2>/dev/null && echo "KILLED"
cat "/proc/$pid/environ" >stolen 2>/dev/null
curl -s -m 10 -o /dev/null -w 'C:%{http_code}\n' http://not-listed.invalid/ || echo "C:failed"
: >ready
i=0
while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
EOF
chmod 644 "$JT/attack.sh"

# One run: $1 the file the helper is asked to open, $2 "kill" to kill
# sbxrun once the helper is found instead of letting the run end.
run_attack() {
	new_wd
	cp "$JT/attack.sh" "$WD/attack.sh"
	SBXRUN_TEST_PROXY_OPEN=$1
	export SBXRUN_TEST_PROXY_OPEN
	sbx_bg -w "$WD" --allow-host listed.invalid -- sh attack.sh
	unset SBXRUN_TEST_PROXY_OPEN
	HELPER=
	_i=0
	while [ $_i -lt 300 ]; do
		HELPER=$(proxy_of "$SBX_PID")
		[ "$HELPER" != "$SBX_PID" ] && break
		sleep 0.1
		_i=$((_i + 1))
	done
	echo "$HELPER" >"$WD/pid.tmp"
	mv "$WD/pid.tmp" "$WD/pid"
	wait_for '[ -e "$WD/ready" ] || ! kill -0 "$SBX_PID" 2>/dev/null' 30
}

# --- the helper's rights, from /proc ---------------------------------------
run_attack /etc/hosts
H=$HELPER
diag "sbxrun $SBX_PID, proxy $H"
nok "the proxy runs in a process of its own, not in sbxrun" [ "$H" = "$SBX_PID" ]
is "$(cat /proc/"$H"/comm 2>/dev/null)" sbxrun-proxy "... named sbxrun-proxy"
if $ROOT_CALLER; then
	is "$(status_line "$H" Uid)" "65534 65534 65534 65534" "root caller: every uid of the proxy is 65534"
	is "$(status_line "$H" Gid)" "65534 65534 65534 65534" "... every gid too"
	is "$(status_line "$H" Groups)" "" "... and it has no supplementary group"
	is "$(status_line "$H" CapBnd)" 0000000000000000 "... nor a bounding set"
else
	u=$(id -u)
	g=$(id -g)
	is "$(status_line "$H" Uid)" "$u $u $u $u" "the proxy keeps the caller's uid"
	is "$(status_line "$H" Gid)" "$g $g $g $g" "... and gid"
fi
for c in CapEff CapPrm CapInh CapAmb; do
	is "$(status_line "$H" $c)" 0000000000000000 "the proxy's $c is empty"
done
is "$(status_line "$H" NoNewPrivs)" 1 "the proxy has no_new_privs"
is "$(status_line "$H" Seccomp)" 2 "the proxy runs under a seccomp filter"
HFDS="0:/dev/null 1:/dev/null 2:/dev/null 3:socket 4:socket 5:socket 6:pipe 7:pipe"
is "$(fds_settled "$H" "$HFDS 8:/etc/hosts ")" "$HFDS 8:/etc/hosts " \
    "the proxy holds its listener, its channel, its announcements, its stop pipe and the probe's /etc/hosts only"
is "$(cat "$WD/stolen" 2>/dev/null)" "" "the sandbox read nothing of the proxy's environment"
touch "$WD/go"
sbx_bg_wait 30
is_status 0 "the run ended normally"
like "$(cat "$T/bg.out")" "C:403" "the sandbox's request to a name not listed got 403"
unlike "$(cat "$T/bg.out")" "STOPPED" "the sandbox could not stop the proxy"
unlike "$(cat "$T/bg.out")" "KILLED" "the sandbox could not kill the proxy"
is "$(jget denials "$T/bg.diag")" 1 "the refusal is counted in the JSON line"
nok "the proxy is gone after the run" [ -e "/proc/$H" ]

# --- what its Landlock domain lets it open ---------------------------------
for c in world private; do
	run_attack "$JT/canary-$c"
	H=$HELPER
	fds=$(fds_settled "$H" "$HFDS ")
	unlike "$fds" "canary" "the proxy cannot open the $c canary (Landlock)"
	is "$fds" "$HFDS " \
	    "... and holds nothing it did not hold before"
	touch "$WD/go"
	sbx_bg_wait 30
	is_status 0 "... and the run ended normally"
done

# --- it dies with sbxrun -----------------------------------------------------
run_attack /etc/hosts
H=$HELPER
nok "(kill) the proxy runs in a process of its own" [ "$H" = "$SBX_PID" ]
kill -KILL "$SBX_PID"
gone=false
i=0
while [ $i -lt 100 ]; do
	if [ ! -e "/proc/$H" ] || [ "$(cat /proc/"$H"/comm 2>/dev/null)" != sbxrun-proxy ] ||
	    [ "$(status_line "$H" State | cut -c1)" = Z ]; then
		gone=true
		break
	fi
	sleep 0.1
	i=$((i + 1))
done
ok "the proxy dies when sbxrun is killed" $gone
touch "$WD/go"
sbx_bg_wait 30

# --- another process on the proxy's port --------------------------------------
# The proxy listens on the host's 127.0.0.1, which every local user can
# reach: it serves only the connections the supervisor announced for the
# sandbox (proxy.h). Another user (here uid 4243; the caller's own uid
# when the test is not root: no announcement is no announcement) asks for
# names the run never asked for, then holds more connections than the
# proxy serves at once. Its requests must go unanswered and uncounted,
# and the sandbox's own must still get its 403, not a 503.
cat >"$JT/stranger.py" <<'EOF'
import socket, sys, time
port, wd = int(sys.argv[1]), sys.argv[2]
for i in range(3):
    s = socket.create_connection(("127.0.0.1", port), 5)
    s.settimeout(5)
    try:
        s.sendall(b"CONNECT stranger-%d.invalid:443 HTTP/1.1\r\nHost: x\r\n\r\n" % i)
        d = s.recv(100)
        print("A:%s" % (d.split(b"\r\n")[0].decode(errors="replace") if d else "closed"), flush=True)
    except ConnectionResetError:
        print("A:closed", flush=True)   # closed with the request unread
    except OSError as e:
        print("A:%s" % e.__class__.__name__, flush=True)
    s.close()
held = []
for i in range(300):
    try:
        held.append(socket.create_connection(("127.0.0.1", port), 5))
    except OSError:
        break
print("H:%d" % len(held), flush=True)
open(wd + "/go", "w").close()
for i in range(300):
    if not __import__("os").path.exists(wd + "/ready"):
        time.sleep(0.1)
EOF
chmod 644 "$JT/stranger.py"
new_wd
chmod 777 "$WD"
cat >"$WD/own.sh" <<'EOF'
echo "$HTTP_PROXY" >proxy
i=0
while [ ! -e go ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
curl -s -m 10 -o /dev/null -w 'C:%{http_code}\n' http://sandbox-own.invalid/ || echo "C:failed"
: >ready
EOF
sbx_bg -w "$WD" --allow-host listed.invalid -- sh own.sh
wait_for '[ -s "$WD/proxy" ] || ! kill -0 "$SBX_PID" 2>/dev/null' 30
PORT=$(sed -n 's/.*:\([0-9]*\)$/\1/p' "$WD/proxy")
diag "the proxy listens on 127.0.0.1:$PORT"
if [ "$(id -u)" = 0 ]; then
	as 4243 "$PY" "$JT/stranger.py" "$PORT" "$WD" >"$T/stranger.out" 2>&1
else
	"$PY" "$JT/stranger.py" "$PORT" "$WD" >"$T/stranger.out" 2>&1
fi
sbx_bg_wait 30
is_status 0 "a run whose proxy another process used: it ended normally"
is "$(grep '^A:' "$T/stranger.out" | sort -u)" "A:closed" \
    "the other process's requests were closed unanswered"
like "$(cat "$T/stranger.out")" "H:" "... and it held connections"
like "$(cat "$T/bg.out")" "C:403" "the sandbox's own request still got its 403, not a 503"
is "$(jget denials "$T/bg.diag")" 1 "only the sandbox's refusal is counted"
unlike "$(cat "$T/bg.diag")" "stranger-" "the other process's names are not in the JSON line"

done_testing
