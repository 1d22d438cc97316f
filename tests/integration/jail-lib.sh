# Shared helpers of the jail-*.sh integration tests (POSIX sh).
#
# Each jail-TOPIC.sh is the test body and runs the backend named by
# $SBX_BACKEND (default: namespaces); jail-TOPIC-landlock.sh sets
# SBX_BACKEND=landlock and sources the body, so "make check" runs every
# body once per backend. Run one by hand with
#
#	SBXRUN=/path/to/sbxrun [SBX_BACKEND=landlock] sh tests/integration/jail-fs.sh
#
# Every verdict is taken from the host side: a marker file that must not
# appear, a file whose content must not change, a heartbeat that must stop
# growing, a host listener that must log nothing, /proc/PID/status of the
# sandboxed process read from outside. What the sandboxed script prints
# about itself is at most a second opinion.
#
# On top of lib.sh (plan/ok/is/like/unlike/skip, $T, sbx) this gives:
#
#   jail [ARG]...            sbx --backend "$SBX_BACKEND" ARG...
#   jail_sh SCRIPT [ARG]...  jail with SCRIPT on standard input
#   output                   stdout and stderr of the last run
#   rc_of NAME               the status a sandboxed "t NAME CMD" reported
#   ns_only WHY [N]          true under namespaces; else skips N tests with
#                            "namespaces-only: WHY" and is false
#   root_only WHY [N]        true for a root caller; else skips N tests
#   $JT                      a private directory outside /tmp (which the
#                            jail replaces), for files that "open" shows
#   $WD                      a fresh workdir (new_wd makes another)
#   $PWHOME                  the caller's home from the password database
#   $SBX_T_PRELUDE           shell prelude for scripts run in the jail:
#                            "t NAME CMD..." prints "R:NAME:STATUS"
#   sbx_bg [ARG]...          jail in the background, $SBX_PID, output in
#                            $T/bg.out; SIGINT/SIGHUP at their defaults;
#                            stdin from $BG_STDIN (default /dev/null: an
#                            async command gets that whatever its caller's)
#   sbx_bg_wait SECS         waits for it (kills it after SECS); $SBX_STATUS
#   payload_of PID           the sandboxed payload: init's child
#   survivors MARKER         pids whose command line holds MARKER (pgrep
#                            -f); each is killed so one failure stays one
#   listener_start           host TCP/UDP/abstract/unix listeners, logging
#                            each connection to $LSN/log
#   uniq_tag NAME            a unique string for canaries and markers
#   is_status N DESC         $SBX_STATUS is N (else shows sbxrun's stderr)
#   absent DESC PATH         PATH does not exist on the host
#   failed_inside DESC NAME  the sandboxed step NAME reported a failure
#   fsum FILE                a checksum of FILE, or "missing"
#   daemon_code FILE MARKER [IGNTERM]
#                            shell code starting a setsid'd, double-forked
#                            daemon that appends to FILE every 0.1 s
#   no_survivors DESC MARKER no process carries MARKER any more

: "${SBX_BACKEND:=namespaces}"
export SBX_BACKEND
. "$(dirname "$0")/lib.sh"

diag "backend $SBX_BACKEND, caller uid $(id -u)"

# A root caller's sandbox may run as another uid outside (landlock: 65534)
# and must still reach the workdirs made below $T.
chmod 755 "$T" "$T/tmp"

JAIL_OUTSIDE=${SBX_OUTSIDE_DIR:-/var/tmp}
JT=$(mktemp -d "$JAIL_OUTSIDE/sbxjail.XXXXXX") || {
	echo "Bail out! cannot create a directory in $JAIL_OUTSIDE"
	exit 1
}
chmod 755 "$JT"
JAIL_CLEAN=
_jail_cleanup() {
	for _p in ${JAIL_PIDS:-}; do
		kill -KILL "$_p" 2>/dev/null
	done
	# Paths made outside $T and $JT (in the caller's real home): only
	# what this script created, recorded as it went.
	for _p in $JAIL_CLEAN; do
		if [ -d "$_p" ]; then rmdir "$_p" 2>/dev/null; else rm -f "$_p"; fi
	done
	chmod -R u+rwx "$JT" 2>/dev/null
	rm -rf "$JT"
	# lib.sh's own cleanup, which this trap replaces.
	if command -v _cleanup >/dev/null 2>&1; then
		_cleanup
	fi
}
trap _jail_cleanup EXIT
JAIL_PIDS=

PWHOME=$(getent passwd "$(id -u)" | cut -d: -f6)
: "${PWHOME:=/nonexistent}"

# The tests' private home lives outside /tmp, so that "--fs open" shows it
# and the secret list, not the private /tmp, is what hides its secrets.
HOME=$JT/home
mkdir -p "$HOME"
export HOME

JAIL_SEQ=0
uniq_tag() {
	JAIL_SEQ=$((JAIL_SEQ + 1))
	echo "sbxjail-$1-$$-$JAIL_SEQ-$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')"
}

new_wd() {
	WD=$(mktemp -d "$T/wd.XXXXXX")
	chmod 755 "$WD"
}
new_wd

jail() {
	sbx --backend "$SBX_BACKEND" "$@"
}

jail_sh() {
	_s=$1
	shift
	# Not a pipeline: sbx must run in this shell to set $SBX_STATUS.
	printf '%s\n' "$_s" >"$T/script"
	jail "$@" <"$T/script"
}

output() {
	cat "$T/out" "$T/err"
}

# In the jail: "t NAME CMD..." runs CMD quietly and prints R:NAME:STATUS.
SBX_T_PRELUDE='t() { _n=$1; shift; "$@" >/dev/null 2>&1; echo "R:$_n:$?"; }'

rc_of() {
	sed -n "s/^R:$1:\\([0-9]*\\)\$/\\1/p" "$T/out" | head -n 1
}

# failed_inside DESC NAME: the sandboxed step NAME failed (a second opinion; the
# host-side check next to it is the verdict).
failed_inside() {
	_r=$(rc_of "$2")
	if [ -n "$_r" ] && [ "$_r" != 0 ]; then
		pass "$1"
	else
		fail "$1"
		diag "step $2 reported status '${_r:-<none>}'"
	fi
}

ns_only() {
	if [ "$SBX_BACKEND" = namespaces ]; then
		return 0
	fi
	skip "namespaces-only: $1" "${2:-1}"
	return 1
}

root_only() {
	if [ "$(id -u)" = 0 ]; then
		return 0
	fi
	skip "needs a root caller: $1" "${2:-1}"
	return 1
}

# other_users_only N: for a harness that acts as the caller and as other
# local users (root only): elsewhere its N checks are skipped with the
# reason and the test ends here; the user sbxtest must exist (.ci/run
# makes it). $T becomes searchable by them.
other_users_only() {
	if ! root_only "the harness runs the caller and the attacker as other users" "$1"; then
		done_testing
		exit
	fi
	if ! id sbxtest >/dev/null 2>&1; then
		echo "Bail out! the user sbxtest is missing (.ci/run makes it)"
		exit 1
	fi
	chmod 711 "$T"
}

# as USER CMD...: CMD run by USER (a name or a uid), with no other groups.
as() {
	_u=$1
	shift
	setpriv --reuid "$(id -u "$_u" 2>/dev/null || echo "$_u")" \
	    --regid "$(id -g "$_u" 2>/dev/null || echo "$_u")" --clear-groups "$@"
}

# need_skewfs: $SKEWFS, tests/skewfs next to $SBXRUN unless given;
# bails out when it is missing.
need_skewfs() {
	SKEWFS=${SKEWFS:-$(dirname "$SBXRUN")/tests/skewfs}
	if [ ! -x "$SKEWFS" ]; then
		echo "Bail out! tests/skewfs is missing at $SKEWFS (make check builds it when" \
		    "libfuse3-dev is installed: ./bootstrap installs it)"
		exit 1
	fi
}

is_status() {
	is "$SBX_STATUS" "$1" "$2" || { diag "stderr:"; diag "$(tail -n 5 "$T/err")"; return 1; }
}

fsum() {
	if [ -e "$1" ]; then cksum <"$1"; else echo missing; fi
}

# A file must not exist on the host.
absent() {
	if [ -e "$2" ] || [ -L "$2" ]; then
		fail "$1"
		diag "$2 exists on the host: $(head -c 200 "$2" 2>/dev/null)"
		rm -rf "$2"
		return 1
	fi
	pass "$1"
}

# payload_uid_sleepers N TAG: N "sleep TAG" processes on the host as the
# uid the payload runs as (65534 for a root caller under landlock, else the
# caller), each added to BG_PIDS.
payload_uid_sleepers() {
	if [ "$SBX_BACKEND" = landlock ] && [ "$(id -u)" = 0 ]; then
		_as="setpriv --reuid=65534 --regid=65534 --clear-groups"
	else
		_as=
	fi
	_i=0
	while [ "$_i" -lt "$1" ]; do
		$_as sleep "$2" &
		BG_PIDS="$BG_PIDS $!"
		_i=$((_i + 1))
	done
	# setpriv takes the uid after the fork: a run started before the last
	# one did would count one task fewer than the test expects.
	if [ -n "$_as" ]; then
		wait_for "[ \"\$(pgrep -U 65534 -fc 'sleep $2')\" -ge $1 ]" 10
	fi
}

# sbxrun in the background. A non-interactive shell starts background jobs
# with SIGINT ignored (and nohup-like callers SIGHUP); an ignored signal
# never reaches a signalfd, so put them back to their defaults first.
# With BG_ONE_CPU set, sbxrun runs on the first CPU of the caller's mask
# only.
sbx_bg() {
	"$PY" -c '
import os, signal, sys
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
    signal.signal(s, signal.SIG_DFL)
if os.environ.get("BG_ONE_CPU"):
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
os.execv(sys.argv[1], sys.argv[1:])
' "$SBXRUN" --diag fd:3 --backend "$SBX_BACKEND" "$@" \
	    <"${BG_STDIN:-/dev/null}" >"$T/bg.out" 2>"$T/bg.err" 3>"$T/bg.diag" &
	SBX_PID=$!
	JAIL_PIDS="$JAIL_PIDS $SBX_PID"
}

# sbx_bg_ready SCRIPT ARG...: sbx_bg ARG... with SCRIPT, then a line that
# writes "ready" in the working directory and waits a minute, on stdin;
# returns once $WD/ready is there (30 s at most, else a diagnostic).
sbx_bg_ready() {
	printf '%s\n' "$1" 'echo ready >ready; sleep 60' >"$T/script.bg"
	shift
	BG_STDIN=$T/script.bg
	sbx_bg "$@"
	BG_STDIN=
	wait_for "[ -s '$WD/ready' ]" 30 || diag "the script did not start: $(cat "$T/bg.err")"
}

# sbx_kill_wait: SIGKILLs the sbxrun sbx_bg started (a CI cancel, the
# OOM killer) and waits for it, then for its keeper, which outlives it and
# undoes the run, to have exited (a zombie of its new parent's counts),
# 30 s at most each.
sbx_kill_wait() {
	_keeper=$(pgrep -x -P "$SBX_PID" sbxrun-keeper | head -n 1)
	kill -KILL "$SBX_PID"
	sbx_bg_wait 30
	wait_for "! kill -0 '${_keeper:-0}' 2>/dev/null ||
	    grep -q '^State:[[:space:]]*Z' /proc/'${_keeper:-0}'/status 2>/dev/null" 30 ||
		diag "the keeper ($_keeper) still runs 30 s after sbxrun's SIGKILL"
}

sbx_bg_wait() {
	_i=0
	while kill -0 "$SBX_PID" 2>/dev/null; do
		# A zombie is done too (only wait reaps it).
		case $(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$SBX_PID/status" 2>/dev/null) in
		Z) break ;;
		esac
		_i=$((_i + 1))
		if [ "$_i" -ge $(($1 * 10)) ]; then
			diag "sbxrun (pid $SBX_PID) still running after $1 s: killed"
			kill -KILL "$SBX_PID" 2>/dev/null
			break
		fi
		sleep 0.1
	done
	wait "$SBX_PID"
	SBX_STATUS=$?
}

# The payload: sbxrun -> init -> payload (both backends).
# init_of PID: the jail's init, the child of sbxrun PID that is not its
# keeper (a child of sbxrun too: src/keeper.c).
init_of() {
	for _c in $(pgrep -P "$1"); do
		[ "$(cat "/proc/$_c/comm" 2>/dev/null)" = sbxrun-keeper ] && continue
		echo "$_c"
		return
	done
}

payload_of() {
	_init=
	_pl=
	_i=0
	while [ "$_i" -lt 50 ]; do
		_init=$(init_of "$1")
		[ -n "$_init" ] && _pl=$(pgrep -P "$_init" | head -n 1)
		[ -n "$_pl" ] && break
		_i=$((_i + 1))
		sleep 0.1
	done
	echo "$_pl"
}

status_field() {
	sed -n "s/^$2:[[:space:]]*//p" "/proc/$1/status" 2>/dev/null
}

survivors() {
	_s=$(pgrep -f "$1" | tr '\n' ' ')
	for _p in $_s; do
		kill -KILL "$_p" 2>/dev/null
	done
	echo "$_s"
}

no_survivors() {
	_s=$(survivors "$2")
	if [ -n "$_s" ]; then
		fail "$1"
		diag "still running: $_s"
		return 1
	fi
	pass "$1"
}

# Shell code for the jail: a setsid'd, double-forked daemon appending to
# FILE every 0.1 s; MARKER is its $0, for pgrep -f. With IGNTERM, it
# ignores SIGTERM.
daemon_code() {
	_trap=
	[ "${3:-}" = IGNTERM ] && _trap="trap '' TERM; "
	printf '( setsid sh -c '\''%swhile :; do echo x >>"$1"; sleep 0.1; done'\'' %s %s </dev/null >/dev/null 2>&1 & )\n' \
	    "$_trap" "$2" "$1"
	# Wait until it really runs.
	printf 'i=0; while [ ! -s %s ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i+1)); done\n' "$1"
}

# Host listeners: TCP on 127.0.0.1 and on 0.0.0.0, UDP on 127.0.0.1, an
# abstract unix socket and pathname unix sockets in /tmp, in $JT and in
# the workdir $NETWD. Each accepted connection or datagram is a line in
# $LSN/log. Sets LSN_TCP, LSN_ANY, LSN_UDP, LSN_ABS, LSN_SOCK, LSN_SOCK2,
# LSN_SOCK3.
listener_start() {
	LSN=$(mktemp -d /tmp/sbxjail-lsn.XXXXXX)
	chmod 755 "$LSN"
	JAIL_CLEAN="$JAIL_CLEAN $LSN/sock $LSN/ports $LSN/ports.tmp $LSN/log $LSN"
	NETWD=$T/netwd
	mkdir -p "$NETWD"
	chmod 755 "$NETWD"
	"$PY" - "$LSN" "$JT/lsn.sock" "$(uniq_tag abs)" "$NETWD/app.sock" <<'EOF' &
import os, select, socket, sys, time
d, sock2, absname, sock3 = sys.argv[1:5]
log = open(os.path.join(d, "log"), "a", buffering=1)
def unix(path):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(path)
    if path[0] != "\0":
        os.chmod(path, 0o777)
    s.listen(16)
    return s
tcp = socket.socket(); tcp.bind(("127.0.0.1", 0)); tcp.listen(16)
anyv4 = socket.socket(); anyv4.bind(("0.0.0.0", 0)); anyv4.listen(16)
udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); udp.bind(("127.0.0.1", 0))
names = {tcp: "tcp", anyv4: "any", udp: "udp",
         unix("\0" + absname): "abstract", unix(os.path.join(d, "sock")): "sock",
         unix(sock2): "sock2", unix(sock3): "sock3"}
with open(os.path.join(d, "ports.tmp"), "w") as f:
    f.write("LSN_TCP=%d\nLSN_ANY=%d\nLSN_UDP=%d\nLSN_ABS=%s\nLSN_SOCK=%s\nLSN_SOCK2=%s\nLSN_SOCK3=%s\n" % (
        tcp.getsockname()[1], anyv4.getsockname()[1], udp.getsockname()[1], absname,
        os.path.join(d, "sock"), sock2, sock3))
os.rename(os.path.join(d, "ports.tmp"), os.path.join(d, "ports"))
end = time.time() + 300
while time.time() < end:
    r, _, _ = select.select(list(names), [], [], 1)
    for s in r:
        if s is udp:
            data, peer = s.recvfrom(4096)
            log.write("udp %r %r\n" % (peer, data[:40]))
        else:
            c, peer = s.accept()
            log.write("%s %r\n" % (names[s], peer))
            c.close()
EOF
	LSN_PID=$!
	JAIL_PIDS="$JAIL_PIDS $LSN_PID"
	wait_for "[ -s '$LSN/ports' ]" 10 || return 1
	. "$LSN/ports"
	: >>"$LSN/log"
}

log_lines() {
	wc -l <"$LSN/log" | tr -d ' '
}

# lsn_fence BASE NAME...: the fence that ends a step whose verdict is a
# listener log that stays empty. A fixed sleep before reading the log lets
# a late line (a listener slow to log on a loaded machine) make the check
# pass without seeing the leak. Instead this machine connects to (or sends
# to) each listener NAME (tcp, any, udp, abstract, sock, sock2, sock3) once
# after the run: the listener is one thread reading its sockets in arrival
# order, so what the sandbox got through is logged before the fence's own
# line; a connect waits for the listener's close, which follows the line,
# and a datagram's tag is waited for in the log (at most 20 s). Leaves in
# $T/lsn.step the lines logged since line BASE less the fence's own (for a
# unix socket, whose peers are all '', one line of that socket's); a fence
# that does not arrive is a failure, and a line there too.
lsn_fence() {
	if ! "$PY" - "$LSN/log" "$1" "$(uniq_tag fence)" "$@" >"$T/lsn.step" 2>"$T/lsn.err" <<'PYEOF'
import os, socket, sys, time
log, base, tag, names = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[5:]
env = dict(l.split("=", 1) for l in open(os.path.join(os.path.dirname(log), "ports")).read().split())
own, missing = [], []
for n in names:
    try:
        if n == "udp":
            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            s.sendto(tag.encode(), ("127.0.0.1", int(env["LSN_UDP"])))
            own.append(("udp", tag))
            continue
        if n in ("tcp", "any"):
            s = socket.create_connection(("127.0.0.1", int(env["LSN_" + n.upper()])), timeout=20)
            own.append(("line", "%s %r" % (n, s.getsockname())))
        else:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(20)
            s.connect("\0" + env["LSN_ABS"] if n == "abstract" else
                      env["LSN_" + n.upper()])
            own.append(("line", "%s ''" % n))
        s.recv(1)   # the listener closes after logging
    except (OSError, KeyError) as e:
        missing.append("%s (%s)" % (n, e))
def new():
    with open(log) as f:
        return f.read().splitlines()[base:]
end = time.time() + 20
while any(k == "udp" for k, _ in own) and not any(tag in l for l in new()) and time.time() < end:
    time.sleep(0.1)
lines = new()
for k, v in own:
    for i, l in enumerate(lines):
        if (k == "udp" and v in l) or (k == "line" and l == v):
            del lines[i]
            break
    else:
        missing.append("%s %s" % (k, v))
for l in lines:
    print(l)
if missing:
    print("FENCE MISSING: " + ", ".join(missing))
    sys.exit(1)
PYEOF
	then
		fail "the fence after the step ($*) arrived"
		diag "$(grep '^FENCE' "$T/lsn.step")" "$(cat "$T/lsn.err")"
		return 1
	fi
}

# outside_file MODE: prints the path of a new file (mode MODE) outside the
# workdir and every writable tree, in a directory of its own under $JT,
# owned by the uid the sandbox acts as on the host (the caller's; a root
# caller's landlock sandbox is 65534): what a jail must keep the sandbox
# from changing although it owns it.
outside_file() {
	_d=$(mktemp -d "$JT/outside.XXXXXX")
	chmod 755 "$_d"
	echo data >"$_d/f"
	chmod "$1" "$_d/f"
	if [ "$(id -u)" = 0 ] && [ "$SBX_BACKEND" = landlock ]; then
		chown 65534 "$_d/f"
	fi
	echo "$_d/f"
}

# exchange_as USER A B: renameat2(A, B, RENAME_EXCHANGE) made by USER (a
# name or a uid), once, for the race tests that hold sbxrun with
# tests/holdcall; prints "swapped" or why not. (The system's python3: one
# under root's home is not another user's to run.)
exchange_as() {
	_xpy=/usr/bin/python3
	[ -x "$_xpy" ] || _xpy=$(command -v python3)
	setpriv --reuid "$(id -u "$1")" --regid "$(id -g "$1")" --clear-groups "$_xpy" -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
if libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(), 2) == 0:
    print("swapped")
else:
    print("renameat2: " + os.strerror(ctypes.get_errno()))' "$2" "$3" 2>&1
}
