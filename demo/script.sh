# The untrusted script of the sbxrun demo (see demo/run).
#
# It runs inside the sandbox, fed to /bin/sh on standard input, and tries
# what a hostile script would try. It judges nothing: it prints one line per
# attempt, "NAME DETAIL", and demo/run decides from outside the sandbox,
# checking the host itself wherever it can.
#
# demo/run passes, with sbxrun -e: DEMO_HOME (the stand-in home with a fake
# SSH key), DEMO_TMP_MARKER (a file to create in the machine's /tmp),
# DEMO_PORT (a service on the machine's loopback) and DEMO_PID (a process
# of the caller); demo/run writes the word in that process's command line
# into this text. FAKE_API_KEY is set in the caller's environment, not
# passed.
DEMO_CANARY='@DEMO_CANARY@'

report() {
	printf '%s %s\n' "$1" "$2"
}

# Python, when there is one, makes the network attempts; nothing else is
# assumed beyond a POSIX shell and the core utilities.
connect() {
	if command -v python3 >/dev/null 2>&1; then
		python3 -c '
import socket, sys
try:
    socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=3).close()
    print("connected")
except Exception as e:
    print("failed: %s" % (e.strerror or e.__class__.__name__))
' "$1" "$2" </dev/null 2>&1
	else
		echo "untested: no python3 inside"
	fi
}

# 1. Its own workdir (the current directory): writing there is the point.
if echo "hello from inside the sandbox" >hello.txt 2>/dev/null; then
	report workdir_write "done"
else
	report workdir_write "failed"
fi

# 2. The caller's SSH key.
out=$(cat "$DEMO_HOME/.ssh/id_ed25519" 2>&1 </dev/null)
report ssh_read "$out"

# 3. A file in the caller's home.
if echo "the sandbox was here" >"$DEMO_HOME/sbxrun-demo-was-here" 2>/dev/null; then
	report home_write "done"
else
	report home_write "failed"
fi

# 4. A file in the machine's /tmp.
if echo "the sandbox was here" >"$DEMO_TMP_MARKER" 2>/dev/null; then
	report tmp_write "done (inside)"
else
	report tmp_write "failed"
fi

# 5. A service listening on the machine's loopback, such as a database or
# another program's development server.
report loopback "$(connect 127.0.0.1 "$DEMO_PORT")"

# 6. The internet.
report internet "$(connect 1.1.1.1 443)"

# 7. The caller's processes: look for the one whose command line holds the
# canary word. (The word is matched by the shell, so that no process made
# for the search holds it in its own command line.)
seen=no
count=0
for f in /proc/[0-9]*/cmdline; do
	[ -r "$f" ] || continue
	count=$((count + 1))
	line=$(tr '\0' ' ' <"$f" 2>/dev/null)
	case $line in
	*"$DEMO_CANARY"*)
		pid=${f#/proc/}
		seen="yes (pid ${pid%/cmdline})"
		;;
	esac
done
report ps_count "$count"
report ps_seen "$seen"

# 8. Stop that process.
if kill -TERM "$DEMO_PID" 2>/dev/null; then
	report ps_kill "signal sent"
else
	report ps_kill "failed"
fi

# 9. The caller's environment: an API key set there.
report apikey "${FAKE_API_KEY-unset}"
env | sed 's/^/env /'

# The last line: demo/run trusts no verdict from a script that did not
# get this far.
report end "reached"
exit 0
