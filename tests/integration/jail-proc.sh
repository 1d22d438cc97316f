# Processes and environment (sbxrun(1), LIMITS and SIGNALS): a new session without a
# controlling terminal (no TIOCSTI into the caller's terminal), no
# capabilities, no_new_privs, a seccomp filter, only fds 0-2, host
# processes out of reach, the environment built rather than inherited.
# Namespaces alone add: host processes invisible, pid 1 is sbxrun's init,
# the hostname. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

# --- the payload seen from the host --------------------------------------------
c_fd=$(uniq_tag fd)
c_key=$(uniq_tag apikey)
echo "$c_fd" >"$JT/fd-secret"
FAKE_API_KEY=$c_key
export FAKE_API_KEY
new_wd
# A descriptor the caller happens to hold (fd 5, on a file outside) must
# not reach the sandbox.
exec 5<"$JT/fd-secret"
sbx_bg -w "$WD" -- /bin/sh -c 'cat /proc/self/fd/5 >fd5.txt 2>&1; env >env.txt; cat /proc/self/status >status.txt; echo started >started; exec sleep 30'
exec 5<&-
wait_for "[ -s '$WD/started' ]" 10
pl=$(payload_of "$SBX_PID")
ok "the payload is running (pid ${pl:-none})" test -n "$pl"
for f in CapInh CapPrm CapEff CapBnd CapAmb; do
	# Emptying the bounding set needs CAP_SETPCAP: an unprivileged caller
	# without a user namespace cannot, and no_new_privs with nothing
	# permitted makes it moot. It must at least be no wider than ours.
	if [ "$f" = CapBnd ] && [ "$SBX_BACKEND" = landlock ] && [ "$(id -u)" != 0 ]; then
		is "$(status_field "$pl" $f)" "$(status_field $$ $f)" \
		    "host view: the payload's CapBnd is no wider than the caller's (landlock, unprivileged)"
		continue
	fi
	is "$(status_field "$pl" $f)" 0000000000000000 "host view: the payload's $f is empty"
done
is "$(status_field "$pl" NoNewPrivs)" 1 "host view: the payload has no_new_privs"
is "$(status_field "$pl" Seccomp)" 2 "host view: the payload runs under a seccomp filter"
is "$(ls /proc/"$pl"/fd 2>&1 | sort -n | tr '\n' ' ')" "0 1 2 " "host view: the payload holds only fds 0-2"
unlike "$(cat "$WD/fd5.txt" 2>&1)" "$c_fd" "a descriptor of the caller's does not reach the sandbox"
unlike "$(tr '\0' '\n' <"/proc/$pl/environ" 2>&1)" "$c_key" \
    "host view: the payload's environment holds no FAKE_API_KEY"
sid_pl=$(cut -d' ' -f6 "/proc/$pl/stat" 2>/dev/null)
sid_sbx=$(cut -d' ' -f6 "/proc/$SBX_PID/stat" 2>/dev/null)
ok "host view: the payload is in a session of its own ($sid_pl, sbxrun's $sid_sbx)" \
    test -n "$sid_pl" -a "$sid_pl" != "$sid_sbx"
is "$(cut -d' ' -f7 "/proc/$pl/stat" 2>/dev/null)" 0 "host view: the payload has no controlling terminal"
like "$(grep CapEff "$WD/status.txt")" 0000000000000000 "inside view agrees: CapEff 0"
like "$(grep NoNewPrivs "$WD/status.txt")" 1 "inside view agrees: NoNewPrivs 1"
kill -TERM "$SBX_PID"
sbx_bg_wait 10

# --- the environment ----------------------------------------------------------------
new_wd
FAKE_PASS=passed
export FAKE_PASS
jail -w "$WD" --env SET_BY_FLAG=flagged --pass-env FAKE_PASS -- /usr/bin/env
unset FAKE_PASS
is_status 0 "env ran"
unlike "$(output)" "$c_key" "the parent's FAKE_API_KEY is not visible"
like "$(output)" "SET_BY_FLAG=flagged" "--env NAME=VALUE is set"
like "$(output)" "FAKE_PASS=passed" "--pass-env NAME is copied"
like "$(output)" "HOME=$WD
" "HOME is the workdir"
like "$(output)" "TMPDIR=/tmp" "TMPDIR is /tmp"
extra=$(sed -n 's/=.*//p' "$T/out" | grep -Ev '^(PATH|HOME|TMPDIR|LANG|USER|LOGNAME|PWD|SHELL|SET_BY_FLAG|FAKE_PASS)$' | tr '\n' ' ')
is "$extra" "" "nothing else is in the environment"
unset FAKE_API_KEY

# --- host processes are out of reach ------------------------------------------------
# The host's process: a shell that exits 0 when it gets SIGUSR1 (after
# saying it is ready for it). Only a process that survived what the
# sandbox sent (SIGKILL, SIGTERM) can later answer the host's SIGUSR1 with
# status 0: a killed one is a zombie kill -0 still finds, with status 137
# or 143.
new_wd
rm -f "$JT/hp.ready"
sh -c 'trap "exit 0" USR1; : >"$1"; while :; do sleep 1; done' sh "$JT/hp.ready" &
hp=$!
JAIL_PIDS="$JAIL_PIDS $hp"
wait_for "[ -e '$JT/hp.ready' ]" 20 || diag "the host's process never said it was ready"
jail_sh "$SBX_T_PRELUDE
t kill0 kill -0 $hp
t kill9 kill -9 $hp
t killterm kill -TERM $hp
t killsh kill -0 $$
t proc test -e /proc/$hp
t init0 kill -0 1
t hostname hostname sbxjail-pwned
cat /proc/1/cmdline | tr '\\0' ' '; echo
echo HOSTNAME=\$(hostname)
pwd -P
exit 0" -w "$WD"
is_status 0 "the signalling script ran"
# (The trap runs once the current sleep 1 ends: wait returns within a
# second or so, however busy the machine.)
kill -USR1 "$hp"
wait "$hp"
is "$?" 0 "the host's process survives kill -9 and kill -TERM from the sandbox (it answers SIGUSR1 after the run)"
JAIL_PIDS=$(echo " $JAIL_PIDS " | sed "s/ $hp / /")
failed_inside "kill -9 of a host pid fails inside" kill9
failed_inside "kill -TERM of a host pid fails inside" killterm
failed_inside "kill -0 of a host pid fails inside" kill0
failed_inside "kill -0 of the test's shell fails inside" killsh
is "$(hostname)" "$(uname -n)" "the host's hostname is unchanged"
unlike "$(hostname)" sbxjail-pwned "sethostname from inside does not reach the host"
like "$(output)" "$(cd "$WD" && pwd -P)" "the working directory inside is the workdir"
if [ "$SBX_BACKEND" = namespaces ]; then
	failed_inside "namespaces: host processes are invisible (/proc/HOSTPID)" proc
	like "$(output)" "$(basename "$SBXRUN")" "namespaces: pid 1 inside is sbxrun's init (/proc/1/cmdline)"
	like "$(output)" "HOSTNAME=sbxrun" "namespaces: the hostname inside is sbxrun"
else
	skip "namespaces-only: host processes are visible without a pid namespace"
	failed_inside "$SBX_BACKEND: kill -0 1 fails (the host's init is out of reach)" init0
	skip "namespaces-only: no uts namespace, the hostname is the host's"
fi

# --- no controlling terminal: TIOCSTI ------------------------------------------------
# A pty of the test's own is the caller's controlling terminal and the
# sandbox's stdin. Whatever the sandbox pushes with TIOCSTI would be read
# by the caller's shell after sbxrun exits; a reader run on the same
# terminal right after shows what arrived.
new_wd
cat >"$WD/inject.py" <<'EOF'
import fcntl, os, termios
for path in (None, "/dev/tty"):
    try:
        fd = 0 if path is None else os.open(path, os.O_RDWR)
        for c in b"INJECTED\n":
            fcntl.ioctl(fd, termios.TIOCSTI, bytes([c]))
        print("ioctl on", path or "stdin", "worked")
    except OSError as e:
        print("ioctl on", path or "stdin", "failed:", e.strerror)
EOF
cat >"$T/read.py" <<'EOF'
import os, select
r, _, _ = select.select([0], [], [], 2)
print("GOT:" + (os.read(0, 100).decode(errors="replace").strip() if r else ""))
EOF
cat >"$T/ptyrun.py" <<'EOF'
import os, pty, select, sys
pid, fd = pty.fork()            # the child: a session leader, the pty its terminal
if pid == 0:
    os.execvp("sh", ["sh", "-c", sys.argv[1]])
out = b""
while True:
    try:
        r, _, _ = select.select([fd], [], [], 20)
        d = os.read(fd, 4096) if r else b""
    except OSError:
        d = b""
    if not d:
        break
    out += d
os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace").replace("\r", ""))
EOF
chmod a+r "$WD/inject.py" "$T/read.py" "$T/ptyrun.py"
"$PY" "$T/ptyrun.py" "$PY $WD/inject.py; $PY $T/read.py" >"$T/tty.control" 2>&1
if grep -q GOT:INJECTED "$T/tty.control"; then
	"$PY" "$T/ptyrun.py" "$SBXRUN --backend $SBX_BACKEND --diag none -w $WD -- python3 inject.py; $PY $T/read.py" \
	    >"$T/tty.out" 2>&1
	diag "$(cat "$T/tty.out")"
	like "$(cat "$T/tty.out")" "GOT:" "TIOCSTI: the host-side reader ran"
	unlike "$(cat "$T/tty.out")" "GOT:INJECTED" \
	    "TIOCSTI from the sandbox pushes nothing into the caller's terminal"
else
	diag "control: $(cat "$T/tty.control")"
	skip "TIOCSTI does not work here even without a sandbox (dev.tty.legacy_tiocsti=0)" 2
fi

done_testing
