# Host-side witnesses shared by attack-rootwd*.sh (POSIX sh, sourced after
# jail-lib.sh; they need $PY, $JT, wait_for, setup_failed and JAIL_PIDS,
# whose processes the tests' EXIT trap kills).
#
#   rootwd_begin N WHY             the guards: a root caller and python3
#                                  (needed for WHY), else N skips and false;
#                                  then sets the EXIT trap, which stops
#                                  rootwd_pre_cleanup, kills JAIL_PIDS,
#                                  unmounts $MOUNTED (innermost first: the
#                                  tests prepend) and runs
#                                  rootwd_post_cleanup (both hooks may be
#                                  redefined; no-ops here)
#   setup_failed WHY               a failed setup: one failure, the end
#   unix_listen PATH:NAME:MODE...  a host service on each unix socket
#                                  PATH (chmod MODE), logging one line
#                                  "NAME pid P uid U data D" per accepted
#                                  connection to $JT/sock.log until
#                                  $JT/sock.stop exists; pid in $LSN_PID
#   host_connect PATH              the host (root) connects, sends "host"
#   fifo_read FIFO                 a host reader holding FIFO open from
#                                  now (a writer's open does not block),
#                                  appending what arrives to $JT/fifo.got
#                                  until $JT/fifo.stop; pid in $FIFO_PID

unix_listen() {
	: >>"$JT/sock.log"
	"$PY" - "$JT/sock.log" "$JT/sock.ready" "$JT/sock.stop" "$@" <<'PY' &
import os, select, socket, struct, sys, time
logf, ready, stop = sys.argv[1:4]
log = open(logf, "a", buffering=1)
names = {}
for spec in sys.argv[4:]:
    p, name, mode = spec.rsplit(":", 2)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(p)
    os.chmod(p, int(mode, 8))
    s.listen(16)
    names[s] = name
open(ready, "w").close()
end = time.time() + 120
while time.time() < end and not os.path.exists(stop):
    r, _, _ = select.select(list(names), [], [], 0.2)
    for s in r:
        c, _ = s.accept()
        pid, uid, gid = struct.unpack("iii", c.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
        c.settimeout(1)
        try:
            data = c.recv(64)
        except OSError:
            data = b""
        log.write("%s pid %d uid %d data %r\n" % (names[s], pid, uid, data))
        c.close()
PY
	LSN_PID=$!
	JAIL_PIDS="$JAIL_PIDS $LSN_PID"
	wait_for "[ -e '$JT/sock.ready' ]" 10 || setup_failed "the sockets' listener"
}

host_connect() {
	"$PY" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(2)
s.connect(sys.argv[1])
s.sendall(b"host")
s.close()' "$1"
}

fifo_read() {
	"$PY" - "$1" "$JT/fifo.got" "$JT/fifo.ready" "$JT/fifo.stop" <<'PY' &
import os, sys, time
fifo, got, ready, stop = sys.argv[1:5]
fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
out = open(got, "ab", buffering=0)
open(ready, "w").close()
end = time.time() + 120
while time.time() < end:
    done = os.path.exists(stop)
    try:
        d = os.read(fd, 4096)
    except BlockingIOError:
        d = b""
    if d:
        out.write(d)
    elif done:
        break
    else:
        time.sleep(0.05)
PY
	FIFO_PID=$!
	JAIL_PIDS="$JAIL_PIDS $FIFO_PID"
	wait_for "[ -e '$JT/fifo.ready' ]" 10 || setup_failed "the fifo's reader"
}

MOUNTED=
rootwd_pre_cleanup() { :; }
rootwd_post_cleanup() { :; }

_rootwd_cleanup() {
	rootwd_pre_cleanup
	# The listener and the reader hold files below the mounts.
	for _p in ${JAIL_PIDS:-}; do
		kill -KILL "$_p" 2>/dev/null
	done
	for _m in $MOUNTED; do
		umount "$_m" 2>/dev/null || umount -l "$_m" 2>/dev/null
	done
	rootwd_post_cleanup
	_jail_cleanup
}

rootwd_begin() {
	if ! root_only "only a root caller's workdir maps root's files to the sandbox" "$1"; then
		done_testing
		return 1
	fi
	if ! command -v python3 >/dev/null 2>&1; then
		skip "python3 is needed for $2" "$1"
		done_testing
		return 1
	fi
	trap _rootwd_cleanup EXIT
}

setup_failed() {
	fail "setting up: $1"
	done_testing
	exit 1
}
