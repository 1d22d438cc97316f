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

N_TESTS=3
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
done_testing
