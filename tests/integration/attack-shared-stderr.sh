# The caller's standard error is handed down as it is when it is a pipe, a
# socket or a terminal (sbxrun(1), "Standard input, output and error"), so
# the sandbox shares the open file sbxrun later writes its diagnostics
# line to. It must not be able to have that line dropped, or sbxrun
# ended, through what it does to the file (threat model: sbxrun is never
# the weak wall):
#
#  - made non-blocking and filled to the brim ending with a forged line,
#    the pipe made sbxrun's write fail with EAGAIN: the line was dropped
#    and a reader took the forged one, the last, for sbxrun's; and the
#    flag stayed on the caller's pipe (and terminal) after the run;
#  - a socket shut down for writing made sbxrun's write raise SIGPIPE:
#    sbxrun died (141) instead of passing on the payload's status; then,
#    with SIGPIPE held off, the write failed (EPIPE): the line was lost,
#    a forged one the sandbox wrote before the shutdown stayed last, and
#    the caller's socket stayed shut after the run. A socket now reaches
#    the sandbox as a pipe (linux-stdio.c), so it holds nothing to shut.
#
# The harness holds stderr full until sbxrun is seen (its /proc/PID/syscall,
# root's to read) in a write there, or gone; then it reads. Verdicts
# on the host: sbxrun's status, the last line of what it read, the flags
# of the caller's own copy of the open file after the run. Both callers:
# root, and sbxtest run by the harness with its ids.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=20
if ! root_only "the harness reads sbxrun's /proc/PID/syscall, and runs sbxtest itself" \
    "$N_TESTS"; then
	done_testing
	exit 0
fi
if ! id sbxtest >/dev/null 2>&1; then
	echo "Bail out! the user sbxtest is missing (.ci/run makes it)"
	exit 1
fi
chmod 711 "$T"

cat >"$T/fill.py" <<'EOF'
import fcntl, os, sys
# Non-blocking, then filled to the last byte, the last line a forged one.
os.set_blocking(2, False)
os.set_blocking(1, False)
forged = b'{"version":"0.1.0","status":0,"exit_code":0,"isolation":"full","FORGED":true}\n'
room = fcntl.fcntl(2, 1032) # F_GETPIPE_SZ
os.write(2, b"x" * (room - len(forged) - 1) + b"\n")
os.write(2, forged)
try:
    os.write(2, b"y")
    print("not full", flush=True)
except BlockingIOError:
    pass
os.set_blocking(1, True)
print("filled", flush=True)
sys.exit(7)
EOF
cat >"$T/shut.py" <<'EOF'
import os, socket, sys
# Standard input first, the caller's socket as well: it still arrives.
said = [sys.stdin.readline().strip()]
forged = b'{"version":"0.1.0","status":0,"exit_code":0,"isolation":"full","FORGED":true}\n'
os.write(2, forged)
for fd in (0, 2):
    try:
        s = socket.socket(fileno=fd)
    except OSError:
        said.append("%d:none" % fd)
        continue
    s.shutdown(socket.SHUT_RDWR)
    s.detach()
    said.append("%d:shut" % fd)
print(" ".join(said), flush=True)
sys.exit(5)
EOF
cat >"$T/harness.py" <<'EOF'
import fcntl, json, os, socket, subprocess, sys, time
kind, who, wd, out = sys.argv[1:5]
argv = sys.argv[5:]
ids = {}
if who != "root":
    env = dict(os.environ, HOME="/", TMPDIR="/tmp", USER=who, LOGNAME=who)
    ids = {"user": who, "group": who, "extra_groups": [], "env": env}
res = {}
if kind == "pipe":
    r, w = os.pipe()
    fcntl.fcntl(w, 1031, 4096)  # F_SETPIPE_SZ: one page
    mine = os.dup(w)            # the caller's own copy of the open file
    p = subprocess.Popen(argv, cwd=wd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=w, **ids)
    os.close(w)
    said = b""
    while b"filled\n" not in said:
        b = os.read(p.stdout.fileno(), 4096)
        if not b:
            break
        said += b
    # Full now: wait until sbxrun ended or sits in a write to fd 2, a
    # minute at most (a hang guard, not a timing).
    state = "none"
    end = time.monotonic() + 60
    while time.monotonic() < end:
        if p.poll() is not None:
            state = "ended"
            break
        try:
            f = open("/proc/%d/syscall" % p.pid).read().split()
        except OSError:
            f = []
        if f[:2] == ["1", "0x2"]:
            state = "waiting"
            break
        time.sleep(0.005)
    # Read while sbxrun runs (the caller's copy keeps the pipe open),
    # then what is left once it has ended.
    err = b""
    os.set_blocking(r, False)
    end = time.monotonic() + 60
    while p.poll() is None and time.monotonic() < end:
        try:
            err += os.read(r, 65536)
        except BlockingIOError:
            time.sleep(0.005)
    rc = p.wait(timeout=60)
    nonblock = bool(fcntl.fcntl(mine, fcntl.F_GETFL) & os.O_NONBLOCK)
    os.close(mine)
    os.set_blocking(r, True)
    while True:
        b = os.read(r, 65536)
        if not b:
            break
        err += b
    last = err.rstrip(b"\n").split(b"\n")[-1]
    try:
        d = json.loads(last)
    except ValueError:
        d = {}
    res = {"rc": rc, "state": state, "said": said.decode(errors="replace"),
           "last_status": d.get("status"), "forged": "FORGED" in d, "error": d.get("error"),
           "genuine": err.count(b'"wall_ms"'),
           "nonblock": nonblock}
elif kind == "socket":
    # One socket on stdin and stderr, as an inetd or socket-activated
    # service has; the caller keeps its own copy of it.
    a, b = socket.socketpair()
    mine = b.dup()
    a.sendall(b"hello\n")
    p = subprocess.Popen(argv, cwd=wd, stdin=b, stdout=subprocess.PIPE,
                         stderr=b, **ids)
    b.close()
    said = p.stdout.read()
    rc = p.wait(timeout=60)
    # After the run the caller's socket works both ways.
    try:
        mine.sendall(b"after\n")
        after = "sent"
    except OSError as e:
        after = e.strerror
    mine.settimeout(5)
    try:
        a.sendall(b"back\n")
        back = mine.recv(16).decode(errors="replace").strip()
    except OSError as e:
        back = e.strerror or "timeout"
    mine.close()
    err = b""
    a.settimeout(60)
    while True:
        d = a.recv(65536)
        if not d:
            break
        err += d
    lines = err.rstrip(b"\n").split(b"\n")
    try:
        d = json.loads(lines[-2] if len(lines) > 1 else b"")
    except ValueError:
        d = {}
    res = {"rc": rc, "said": said.decode(errors="replace"), "after": after,
           "back": back, "last": lines[-1].decode(errors="replace"),
           "last_status": d.get("status"), "forged": "FORGED" in d,
           "genuine": err.count(b'"wall_ms"')}
json.dump(res, open(out, "w"))
print(res)
EOF

get() {
	"$PY" -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

for who in root sbxtest; do
	w=$T/w-$who
	mkdir "$w"
	cp "$T/fill.py" "$T/shut.py" "$w/"
	[ "$who" = root ] || chown -R "$who:" "$w"
	chmod 755 "$w"
	"$PY" "$T/harness.py" pipe "$who" "$w" "$T/pipe-$who.json" \
	    "$SBXRUN" --backend "$SBX_BACKEND" -w "$w" -- python3 fill.py >"$T/h.out" 2>&1
	diag "$(cat "$T/h.out")"
	is "$(get "$T/pipe-$who.json" said)" "filled" "$who, pipe: the sandbox filled the caller's stderr, its last line a forged one"
	is "$(get "$T/pipe-$who.json" rc)" 7 "$who, pipe: sbxrun passed on the payload's status"
	is "$(get "$T/pipe-$who.json" last_status)" 7 \
	    "$who, pipe: the last line read is sbxrun's own, not the forged one"
	is "$(get "$T/pipe-$who.json" genuine)" 1 "$who, pipe: sbxrun's line was written"
	is "$(get "$T/pipe-$who.json" nonblock)" False \
	    "$who, pipe: the caller's pipe is blocking again after the run"
	"$PY" "$T/harness.py" socket "$who" "$w" "$T/sock-$who.json" \
	    "$SBXRUN" --backend "$SBX_BACKEND" -w "$w" -- python3 shut.py >"$T/h.out" 2>&1
	diag "$(cat "$T/h.out")"
	is "$(get "$T/sock-$who.json" said)" "hello 0:none 2:none" \
	    "$who, socket: standard input arrived, and the sandbox held no socket to shut down"
	is "$(get "$T/sock-$who.json" rc)" 5 \
	    "$who, socket: sbxrun passed on the payload's status (no SIGPIPE ended it)"
	is "$(get "$T/sock-$who.json" genuine)" 1 "$who, socket: sbxrun's line arrived"
	is "$(get "$T/sock-$who.json" last_status)" 5 \
	    "$who, socket: the last line before the caller's is sbxrun's own, not the forged one"
	is "$(get "$T/sock-$who.json" last)/$(get "$T/sock-$who.json" after)/$(get "$T/sock-$who.json" back)" \
	    "after/sent/back" "$who, socket: the caller's socket works both ways after the run"
done
done_testing
