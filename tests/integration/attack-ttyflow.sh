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
cat >"$T/ptyrun.py" <<'EOF'
import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.Popen(sys.argv[2:], stdin=s, stdout=s, stderr=s)
try:
    rc = p.wait(timeout=60)  # a stalled sbxrun is a failure, not a hang
except subprocess.TimeoutExpired:
    p.kill()
    rc = "stalled"
os.set_blocking(m, False)
out = b""
try:
    while True:
        b = os.read(m, 65536)
        if not b:
            break
        out += b
except Exception:
    pass
open(sys.argv[1] + ".tty", "wb").write(out)
os.set_blocking(s, False)
try:
    os.write(s, b"still flowing\n")
    flowing = "yes"
except BlockingIOError:
    flowing = "no"
print("rc", rc, "flowing", flowing)
with open(sys.argv[1], "w") as f:
    f.write(flowing)
EOF
# The payload stops the terminal's output on its standard output, says
# nothing more and ends.
printf '%s\n' 'import termios
try:
    termios.tcflow(1, termios.TCOOFF)
except Exception:
    pass' >"$WD/stop.py"
"$PY" "$T/ptyrun.py" "$T/flowing" "$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" -- python3 stop.py \
    >"$T/tty.out" 2>&1
like "$(cat "$T/tty.out")" "rc 0 " "sbxrun ended, well" || diag "$(cat "$T/tty.out")"
is "$(cat "$T/flowing" 2>/dev/null)" yes "the terminal still takes output after the run"
like "$(cat "$T/flowing.tty")" '"status":0' "the diagnostics line reached the terminal"
done_testing
