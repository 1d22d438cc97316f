# TAP helpers for the integration tests (POSIX sh: dash runs them under
# "make check"). A test script starts with
#
#	. "$(dirname "$0")/lib.sh"
#
# and ends with done_testing. It gets:
#
#   ok DESC CMD [ARG]...     passes when CMD succeeds
#   nok DESC CMD [ARG]...    passes when CMD fails
#   is GOT WANT DESC         string equality
#   like GOT TEXT DESC       GOT contains TEXT (a fixed string)
#   unlike GOT TEXT DESC     GOT does not contain TEXT
#   pass DESC / fail DESC    a result decided by the script itself
#   skip REASON [N]          N (default 1) skipped tests; REASON is required
#                            and must name the missing kernel feature
#   diag TEXT                a "#" line
#   plan N                   optional: the plan up front (else done_testing)
#   done_testing             prints the plan; the script's exit status
#
#   sbx [ARG]...             runs "$SBXRUN --diag fd:3 ARG..." (a later --diag
#                            wins) with the caller's stdin; leaves stdout in
#                            $T/out, stderr in $T/err, the diagnostics line in
#                            $T/diag and the exit status in $SBX_STATUS
#   sbxn [ARG]...            sbx --backend none ARG...
#   sbx_script TEXT [ARG]... sbx ARG... with TEXT and a newline on stdin (never
#                            pipe into sbx: the pipeline's subshell would
#                            lose $SBX_STATUS)
#   jget PATH [FILE]         a member of the JSON line in FILE ($T/diag):
#                            PATH is dotted ("ports.listen", "warnings.0");
#                            strings print raw, others as JSON, a missing
#                            member as <missing>
#   json_line FILE           FILE is exactly one newline-terminated line
#                            holding one JSON object
#   check_diag FILE          that line has every member sbxrun(1) lists for
#                            it, with the right type, and "denied" agrees
#                            with "denials" (prints what is wrong)
#   last_line FILE           the last line of FILE
#   leftovers                lists what is left in $TMPDIR (must be nothing)
#   wait_for COND_CMD SECS   polls until COND_CMD succeeds; fails after SECS
#   still_growing FILE       whether FILE grows within 1.5 s
#
# Each script gets a private directory $T, removed on exit, and runs with
# TMPDIR=$T/tmp (so a temp workdir left behind shows), HOME=$T/home (a
# fake home: refusing ~/.ssh never touches the real one) and
# XDG_CONFIG_HOME=$T/xdg. $SBXRUN, $SRCDIR and $GOLDEN come from make check.

set -u

: "${SBXRUN:?SBXRUN must name the sbxrun binary (make check sets it)}"
: "${SRCDIR:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${GOLDEN:=$SRCDIR/tests/golden}"
export SBXRUN SRCDIR GOLDEN

TAP_N=0
TAP_FAILED=0
TAP_PLANNED=

if [ -x /usr/bin/python3 ]; then
	PY=/usr/bin/python3
else
	PY=python3
fi

_tap_line() {
	# $1: "ok" or "not ok"; $2: description (newlines flattened)
	TAP_N=$((TAP_N + 1))
	printf '%s %d - %s\n' "$1" "$TAP_N" "$(printf '%s' "$2" | tr '\n#' ' _')"
}

pass() {
	_tap_line ok "$1"
}

fail() {
	TAP_FAILED=$((TAP_FAILED + 1))
	_tap_line "not ok" "$1"
}

diag() {
	for _l in "$@"; do
		printf '%s\n' "$_l"
	done | sed 's/^/# /'
}

plan() {
	TAP_PLANNED=$1
	echo "1..$1"
}

ok() {
	_d=$1
	shift
	if "$@"; then
		pass "$_d"
	else
		fail "$_d"
		return 1
	fi
}

nok() {
	_d=$1
	shift
	if "$@"; then
		fail "$_d"
		return 1
	else
		pass "$_d"
	fi
}

is() {
	if [ "$1" = "$2" ]; then
		pass "$3"
	else
		fail "$3"
		diag "     got: '$1'" "expected: '$2'"
		return 1
	fi
}

like() {
	case $1 in
	*"$2"*)
		pass "$3" ;;
	*)
		fail "$3"
		diag "   got: '$1'" "wanted: '$2'"
		return 1 ;;
	esac
}

unlike() {
	case $1 in
	*"$2"*)
		fail "$3"
		diag "     got: '$1'" "unwanted: '$2'"
		return 1 ;;
	*)
		pass "$3" ;;
	esac
}

skip() {
	if [ -z "${1:-}" ]; then
		echo "Bail out! skip needs a reason"
		exit 1
	fi
	_n=${2:-1}
	while [ "$_n" -gt 0 ]; do
		TAP_N=$((TAP_N + 1))
		printf 'ok %d # SKIP %s\n' "$TAP_N" "$1"
		_n=$((_n - 1))
	done
}

done_testing() {
	if [ -z "$TAP_PLANNED" ]; then
		echo "1..$TAP_N"
	elif [ "$TAP_PLANNED" != "$TAP_N" ]; then
		diag "planned $TAP_PLANNED tests but ran $TAP_N"
		return 1
	fi
	[ "$TAP_FAILED" -eq 0 ] || diag "$TAP_FAILED of $TAP_N tests failed"
	[ "$TAP_FAILED" -eq 0 ]
}

# The private directory.
T=$(mktemp -d "${TMPDIR:-/tmp}/sbxtest.XXXXXX") || {
	echo "Bail out! cannot create a temporary directory"
	exit 1
}
_cleanup() {
	# Kill what a test left running (by its recorded pid only).
	for _pid in ${BG_PIDS:-}; do
		kill -KILL "$_pid" 2>/dev/null
	done
	chmod -R u+rwx "$T" 2>/dev/null
	rm -rf "$T"
}
trap _cleanup EXIT
trap 'exit 130' INT TERM HUP
BG_PIDS=
mkdir "$T/tmp" "$T/home" "$T/xdg"
TMPDIR=$T/tmp
HOME=$T/home
XDG_CONFIG_HOME=$T/xdg
export TMPDIR HOME XDG_CONFIG_HOME

sbx() {
	"$SBXRUN" --diag fd:3 "$@" >"$T/out" 2>"$T/err" 3>"$T/diag"
	SBX_STATUS=$?
}

sbxn() {
	sbx --backend none "$@"
}

# sbx_script SCRIPT [ARG]...: sbx ARG... with SCRIPT (text) on stdin. Not a
# pipeline: a pipeline would run sbx in a subshell and lose $SBX_STATUS.
sbx_script() {
	printf '%s\n' "$1" >"$T/stdin"
	shift
	sbx "$@" <"$T/stdin"
}

jget() {
	"$PY" - "$1" "${2:-$T/diag}" <<'EOF'
import json, sys
path, fname = sys.argv[1], sys.argv[2]
try:
    with open(fname, "rb") as f:
        lines = f.read().decode("utf-8").splitlines()
    v = json.loads(lines[-1])
except Exception as e:
    print("<no json: %s>" % e)
    sys.exit(1)
for part in path.split(".") if path else []:
    if isinstance(v, list) and part.isdigit() and int(part) < len(v):
        v = v[int(part)]
    elif isinstance(v, dict) and part in v:
        v = v[part]
    else:
        print("<missing>")
        sys.exit(1)
if isinstance(v, str):
    print(v)
else:
    print(json.dumps(v, sort_keys=True, separators=(",", ":")))
EOF
}

json_line() {
	"$PY" - "$1" <<'EOF'
import json, sys
data = open(sys.argv[1], "rb").read()
if not data.endswith(b"\n") or data.count(b"\n") != 1:
    print("# not exactly one newline-terminated line: %r" % data[:200])
    sys.exit(1)
try:
    v = json.loads(data.decode("utf-8"))
except Exception as e:
    print("# not JSON: %s: %r" % (e, data[:200]))
    sys.exit(1)
if not isinstance(v, dict):
    print("# not an object")
    sys.exit(1)
EOF
}

check_diag() {
	"$PY" - "$1" <<'EOF'
import json, sys
v = json.loads(open(sys.argv[1], "rb").read().decode("utf-8").splitlines()[-1])
S, I, B, N, O, A = str, int, bool, type(None), dict, list
want = {
    "version": (S,), "backend": (S,), "isolation": (S,), "unenforced": (A,),
    "fs": (S, N), "network": (S, N), "ports": (O,), "proxy": (O, N),
    "workdir": (S, N), "status": (I,), "exit_code": (I, N), "signal": (S, N),
    "timed_out": (B,), "oom_killed": (B,), "wall_ms": (I,), "cpu_user_ms": (I,),
    "cpu_sys_ms": (I,), "max_rss_kb": (I,), "limits": (O,), "warnings": (A,),
    "error": (S, N), "trace": (O, N), "layers": (O,), "denials": (I,),
    "denied": (A,),
}
bad = []
for k, types in want.items():
    if k not in v:
        bad.append("missing " + k)
    elif type(v[k]) not in types:
        bad.append("%s has type %s" % (k, type(v[k]).__name__))
if v.get("backend") not in ("namespaces", "landlock", "seatbelt", "docker", "none"):
    bad.append("backend %r" % v.get("backend"))
if v.get("isolation") not in ("full", "partial", "none"):
    bad.append("isolation %r" % v.get("isolation"))
if v.get("fs") not in (None, "strict", "allowlist", "open"):
    bad.append("fs %r" % v.get("fs"))
if v.get("network") not in (None, "on", "off"):
    bad.append("network %r" % v.get("network"))
p = v.get("ports") or {}
for k in ("listen", "connect", "loopback"):
    if not isinstance(p.get(k), list) or not all(type(x) is int for x in p[k]):
        bad.append("ports." + k)
l = v.get("layers") or {}
for k in ("userns", "netns", "seccomp", "cgroup"):
    if type(l.get(k)) is not bool:
        bad.append("layers." + k)
if type(l.get("landlock_abi")) is not int:
    bad.append("layers.landlock_abi")
for k in ("unenforced", "warnings"):
    if not all(isinstance(x, str) for x in v.get(k) or []):
        bad.append(k + " holds a non-string")
# denied: the first 20 of the denials, each {"kind": str, "what": str}
d = v.get("denied")
if isinstance(d, list):
    if len(d) != min(v.get("denials") if type(v.get("denials")) is int else 0, 20):
        bad.append("denied holds %d entries for %r denials" % (len(d), v.get("denials")))
    for x in d:
        if not isinstance(x, dict) or set(x) != {"kind", "what"} or \
                not all(isinstance(x[k], str) for k in x):
            bad.append("denied entry %r" % (x,))
        elif x["kind"] not in ("connect", "bind", "listen", "send", "metadata", "name", "proxy"):
            bad.append("denied kind %r" % x["kind"])
for name, lim in (v.get("limits") or {}).items():
    if not isinstance(lim, dict) or "by" not in lim:
        bad.append("limits." + name)
# error: a string when sbxrun failed (status 125, no exit code of a child)
# or could not find (127) or execute (126) the command, null otherwise. (A
# child's own "exit 125" is a status 125 with an exit code.)
if isinstance(v.get("error"), str) and v.get("status") not in (125, 126, 127):
    bad.append("error set but status is not 125, 126 or 127")
if v.get("status") == 125 and v.get("exit_code") is None and not isinstance(v.get("error"), str):
    bad.append("status 125 without a child exit code needs an error string")
if v.get("signal") is not None and not v["signal"].startswith("SIG"):
    bad.append("signal %r" % v["signal"])
for b in bad:
    print("# " + b)
sys.exit(1 if bad else 0)
EOF
}

last_line() {
	tail -n 1 "$1"
}

leftovers() {
	ls -A "$TMPDIR"
}

wait_for() {
	# wait_for "COND" SECS: COND is evaluated by the shell.
	_i=0
	while ! eval "$1"; do
		_i=$((_i + 1))
		[ "$_i" -ge $(($2 * 10)) ] && return 1
		sleep 0.1
	done
	return 0
}

fsize() {
	if [ -e "$1" ]; then wc -c <"$1" | tr -d ' '; else echo 0; fi
}

still_growing() {
	_a=$(fsize "$1")
	sleep 1.5
	_b=$(fsize "$1")
	[ "$_a" != "$_b" ]
}

# Host facts, measured here without asking sbxrun, so that a broken
# --probe shows up as a failure rather than turning into a skip.
#
# host_userns: this caller can make a user namespace with mount rights, a
# fresh /proc and a PID namespace (what the namespaces backend needs).
host_userns() {
	unshare -Urmpf --mount-proc true >/dev/null 2>&1
}

# host_landlock_abi: prints the Landlock ABI version of this kernel (0
# when it has none or Landlock is not active).
host_landlock_abi() {
	python3 -c '
import ctypes, platform
nr = {"x86_64": 444, "aarch64": 444}.get(platform.machine())
libc = ctypes.CDLL(None, use_errno=True)
v = libc.syscall(nr, None, 0, 1) if nr else -1
print(v if v > 0 else 0)' 2>/dev/null || echo 0
}
