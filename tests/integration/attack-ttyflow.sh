# A terminal the sandbox inherits must not let it stall sbxrun (threat
# model: nothing it does may stall us). Terminals on the standard
# descriptors are handed down as they are (sbxrun(1)); tcflow(TCOOFF), the
# TCXONC ioctl, suspends the terminal's output for every writer, and
# sbxrun's own messages and diagnostics line on that terminal then waited
# for ever. TCXONC now fails with EPERM in every jail.
# Verdict on the host: whether the terminal still takes output after the
# run (a non-blocking write to it), and whether sbxrun, whose diagnostics
# line goes to that terminal, ended at all (a minute allowed).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=12
# ptyanswer.py CMD...: runs CMD on a new terminal, answering a query
# (ESC [ c) as xterm does, for up to a minute (a stalled sbxrun is a
# failure, not a hang); then prints sbxrun's status, whether output still
# flows on the terminal, its exclusive mode, whether its modes are as
# they were and whether the diagnostics line reached it.
cat >"$T/ptyanswer.py" <<'EOF'
import fcntl, os, pty, select, struct, subprocess, sys, termios, time
m, s = pty.openpty()
before = termios.tcgetattr(s)
p = subprocess.Popen(sys.argv[1:], stdin=s, stdout=s, stderr=s)
out, answered, t0 = b"", False, time.time()
while time.time() - t0 < 60 and p.poll() is None:
    r, _, _ = select.select([m], [], [], 0.1)
    if r:
        out += os.read(m, 65536)
        if not answered and b"\x1b[c" in out:
            os.write(m, b"\x1b[?1;2c")
            answered = True
rc = p.poll()
if rc is None:
    p.kill()
    rc = "stalled"
time.sleep(0.2)
os.set_blocking(m, False)
try:
    while True:
        b = os.read(m, 65536)
        if not b:
            break
        out += b
except Exception:
    pass
after = termios.tcgetattr(s)
excl = struct.unpack("i", fcntl.ioctl(s, 0x80045440, struct.pack("i", 0)))[0]
os.set_blocking(s, False)
try:
    os.write(s, b"still flowing\n")
    flowing = "yes"
except BlockingIOError:
    flowing = "no"
print("rc", rc, "answered", answered, "flowing", flowing, "excl", excl,
      "modes", "same" if after == before else "changed",
      "diag", b'"status":0' in out)
EOF
# The payload stops the terminal's output on its standard output, says
# nothing more and ends.
printf '%s\n' 'import termios
try:
    termios.tcflow(1, termios.TCOOFF)
except Exception:
    pass' >"$WD/stop.py"
"$PY" "$T/ptyanswer.py" "$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" -- python3 stop.py \
    >"$T/tty.out" 2>&1
like "$(cat "$T/tty.out")" "rc 0 " "sbxrun ended, well" || diag "$(cat "$T/tty.out")"
like "$(cat "$T/tty.out")" "flowing yes" "the terminal still takes output after the run"
like "$(cat "$T/tty.out")" "diag True" "the diagnostics line reached the terminal"

# The same without TCXONC: the payload turns IXON on with ESC as the STOP
# character and asks the terminal for its attributes; the answer (ESC [
# ? 1 ; 2 c, as xterm's) stops the output. Its modes (no echo, raw) and
# its exclusive mode and line discipline would outlive the run too. Now
# sbxrun puts the modes back, output started, once the tree is gone, and
# TIOCEXCL and TIOCSETD fail with EPERM.
printf '%s\n' 'import fcntl, os, struct, termios, time
res = []
for name, req in (("setd", termios.TIOCSETD), ("excl", termios.TIOCEXCL)):
    try:
        fcntl.ioctl(2, req, struct.pack("i", 0))
        res.append(name + "-ok")
    except OSError:
        res.append(name + "-refused")
open("ioctls", "w").write(" ".join(res))
a = termios.tcgetattr(2)
a[3] &= ~(termios.ECHO | termios.ICANON)
a[0] |= termios.IXON
a[0] &= ~termios.IXANY
a[6][termios.VSTOP] = b"\x1b"
a[6][termios.VSTART] = b"\x00"
termios.tcsetattr(2, termios.TCSANOW, a)
os.write(2, b"\x1b[c")
time.sleep(1)' >"$WD/answer.py"
"$PY" "$T/ptyanswer.py" "$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" -- python3 answer.py \
    >"$T/tty2.out" 2>&1
like "$(cat "$T/tty2.out")" "rc 0 answered True" "stopped by its own answer: sbxrun ended, well" ||
	diag "$(cat "$T/tty2.out")"
like "$(cat "$T/tty2.out")" "flowing yes" "... the terminal takes output after the run"
like "$(cat "$T/tty2.out")" "diag True" "... the diagnostics line reached it"
like "$(cat "$T/tty2.out")" "modes same" "... with its modes as they were (echo, canonical)"
like "$(cat "$T/tty2.out")" "excl 0" "... and not exclusive"
is "$(cat "$WD/ioctls" 2>/dev/null)" "setd-refused excl-refused" \
    "TIOCSETD and TIOCEXCL on the caller's terminal: refused"
# sbxrun's controlling terminal through /dev/tty: the sandbox has none
# (init's setsid), but under landlock with a repository in the workdir an
# open for writing is judged by the name supervisor and made by one of
# sbxrun's threads, whose /dev/tty is the caller's terminal. The sandbox
# read what the user typed there and left its modes changed, with none of
# its standard descriptors on the terminal. Now such an open is ENXIO, as
# the sandbox's own is.
# Verdict on the host: what the terminal showed, and whether its modes
# are as they were, with sbxrun's standard descriptors on /dev/null.
cat >"$T/ctty.py" <<'EOF'
import fcntl, os, pty, select, subprocess, sys, termios, time
m, s = pty.openpty()
before = termios.tcgetattr(s)
def ctty():
    os.setsid()
    fcntl.ioctl(s, termios.TIOCSCTTY, 0)
null = os.open("/dev/null", os.O_RDWR)
p = subprocess.Popen(sys.argv[1:], stdin=null, stdout=null, stderr=null, preexec_fn=ctty)
os.write(m, b"typed-by-the-user\n")
out, t0 = b"", time.time()
while time.time() - t0 < 60 and p.poll() is None:
    if select.select([m], [], [], 0.1)[0]:
        out += os.read(m, 65536)
rc = p.poll()
if rc is None:
    p.kill()
    rc = "stalled"
print("rc", rc, "leaked", b"from-the-sandbox" in out,
      "modes", "same" if termios.tcgetattr(s) == before else "changed")
EOF
printf '%s\n' 'import os, termios
try:
    fd = os.open("/dev/tty", os.O_RDWR | os.O_NONBLOCK)
except OSError as e:
    open("ctty", "w").write("refused %d" % e.errno)
    raise SystemExit(0)
os.write(fd, b"from-the-sandbox\n")
a = termios.tcgetattr(fd)
a[3] &= ~(termios.ECHO | termios.ICANON)
termios.tcsetattr(fd, termios.TCSANOW, a)
try:
    got = os.read(fd, 100)
except OSError:
    got = b""
open("ctty", "w").write("opened " + repr(got))' >"$WD/ctty.py"
git init -q "$WD" 2>/dev/null || mkdir -p "$WD/.git"
rm -f "$WD/ctty"
"$PY" "$T/ctty.py" "$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" -- python3 ctty.py \
    >"$T/ctty.out" 2>&1
like "$(cat "$T/ctty.out")" "rc 0 leaked False modes same" \
    "/dev/tty in a workdir with a repository: the caller's terminal showed nothing, its modes kept" ||
	diag "$(cat "$T/ctty.out")"
is "$(cat "$WD/ctty" 2>/dev/null)" "refused 6" "... the open was ENXIO"

# A string the sandbox leaves open on the terminal (ESC P, a DCS) takes
# in everything written after it up to its terminator: sbxrun's line and
# the caller's next output vanished, and a forged line written before it
# was the last one on the screen. sbxrun now ends such a string (ST) and
# resets the attributes (SGR 0) before its line on a terminal.
# Verdict on the host: the terminal's output read as a terminal reads it
# (a DCS runs up to ST, or to the end), the last line left is sbxrun's.
cat >"$T/dcs.py" <<'EOF'
import json, os, pty, re, select, subprocess, sys, time
m, s = pty.openpty()
p = subprocess.Popen(sys.argv[1:], stdin=s, stdout=s, stderr=s)
os.close(s)
out, t0 = b"", time.time()
while time.time() - t0 < 60:
    try:
        r, _, _ = select.select([m], [], [], 0.1)
        if r:
            b = os.read(m, 65536)
            if not b:
                break
            out += b
        elif p.poll() is not None:
            break
    except OSError:
        break
shown = re.sub(rb"\x1bP.*?(\x1b\\|$)", b"", out, flags=re.S)
lines = [l for l in shown.replace(b"\r", b"").split(b"\n") if l.strip()]
try:
    last = json.loads(lines[-1].decode().replace("\x1b[0m", ""))
except (ValueError, IndexError):
    last = {}
print("rc", p.wait(), "shown status", last.get("status"), "forged", "FORGED" in last)
EOF
printf '%s\n' 'import os' \
    'os.write(2, b"{\"version\":\"0.1.0\",\"status\":0,\"FORGED\":true}\n\x1bP")' \
    'raise SystemExit(42)' >"$WD/dcs.py"
"$PY" "$T/dcs.py" "$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" -- python3 dcs.py \
    >"$T/dcs.out" 2>&1
is "$(cat "$T/dcs.out")" "rc 42 shown status 42 forged False" \
    "an open DCS left on the terminal: sbxrun's line is the last one shown, not the forged one"

done_testing
