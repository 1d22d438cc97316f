# The supervisor as the weak wall (sbxrun(1), Filesystem): every call sbxrun
# makes on the sandbox's behalf is made with the sandbox's credentials,
# and nothing the sandbox does stalls sbxrun. Each attack runs inside the
# sandbox; each verdict is read on the host: the file's attributes, a
# root-only listener's log, ss(8), sbxrun's own status and JSON line.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

# The status of the last sbx_bg run (its stderr is in $T/bg.err).
bg_status() {
	is "$SBX_STATUS" "$1" "$2" || diag "stderr: $(tail -n 3 "$T/bg.err" 2>/dev/null)"
}

# --- (a) extended attributes outside user.* ------------------------------------
# A root caller's sandbox (uid 65534 outside, no capabilities) cannot set
# security.capability (a file capability: anyone running the file would
# get it) or trusted.*; the supervisor that makes metadata calls for it
# under landlock must not either. Checked while the sandbox still runs
# (the end of the run hands files back, which may clear some) and after.
new_wd
cp /bin/true "$WD/prog"
chmod 755 "$WD/prog"
xattrs() {
	"$PY" -c 'import os, sys; print(" ".join(sorted(os.listxattr(sys.argv[1]))))' "$1" 2>&1
}
# A v2 file capability (cap_net_raw, effective): what setcap would write.
cat >"$WD/plant.py" <<'EOF'
import os, sys, time
cap = bytes.fromhex("0100000200200000000000000000000000000000")
for name, value in (("security.capability", cap), ("trusted.sbx", b"1"),
                    ("security.sbx", b"1"), ("user.sbx", b"1")):
    try:
        os.setxattr("prog", name, value)
        print("R:%s:0" % name)
    except OSError as e:
        print("R:%s:%d" % (name, e.errno))
sys.stdout.flush()
open("planted", "w").close()
for _ in range(200):
    if os.path.exists("go"):
        break
    time.sleep(0.1)
EOF
sbx_bg -w "$WD" -- python3 plant.py
if wait_for "[ -e '$WD/planted' ]" 20; then
	during=$(xattrs "$WD/prog")
else
	during="(the sandbox never planted)"
fi
: >"$WD/go"
sbx_bg_wait 30
after=$(xattrs "$WD/prog")
bg_status 0 "xattrs: the script ran"
unlike "$during" security.capability "xattrs: no file capability on the host during the run"
unlike "$during" trusted. "xattrs: no trusted.* attribute on the host during the run"
unlike "$during" security.sbx "xattrs: no security.* attribute on the host during the run"
unlike "$after" security.capability "xattrs: no file capability on the host after the run"
unlike "$after" trusted. "xattrs: no trusted.* attribute on the host after the run"
like "$during" user.sbx "xattrs: a user.* attribute is set (control)"
[ -n "$(getcap "$WD/prog" 2>/dev/null)" ] && diag "getcap: $(getcap "$WD/prog")"

# --- (b) a root-only unix socket and a port below 1024 -------------------------
# With port rules set, unix connects and binds go through the supervisor.
# A 0600 root socket stays unreachable to uid 65534; port 81 stays
# unbindable even when --listen names it.
N_ROOT=5
if root_only "a root-only socket and a low port are root's alone" "$N_ROOT"; then
	low=
	for p in 81 82 83 84 85 86 87 88 89; do
		if [ -z "$(ss -ltnH "sport = :$p" 2>/dev/null)" ]; then
			low=$p
			break
		fi
	done
	new_wd
	mkdir -p "$JT/sockdir"
	chmod 755 "$JT/sockdir"
	if [ "$SBX_BACKEND" = landlock ]; then
		# The landlock backend judges unix sockets in the writable trees.
		sock=$WD/root.sock
		inside=root.sock
		inside2=
		mnt=
	else
		# The workdir is the sandbox's own (idmapped): a read-only mount
		# of a host directory shows the host's owner.
		sock=$JT/sockdir/root.sock
		inside=sd/root.sock
		inside2=sd/private/any.sock
		mnt="-m $JT/sockdir:sd"
	fi
	# And a 0666 socket in a 0700 root directory (namespaces: in the
	# mounted one): uid 65534 cannot search its way to it.
	mkdir -p "$JT/sockdir/private"
	chmod 700 "$JT/sockdir/private"
	sock2=$JT/sockdir/private/any.sock
	"$PY" - "$sock" "$sock2" "$JT/sock.log" <<'EOF' &
import os, select, socket, sys, time
ls = []
for path, mode in ((sys.argv[1], 0o600), (sys.argv[2], 0o666)):
    s = socket.socket(socket.AF_UNIX)
    s.bind(path); os.chmod(path, mode); s.listen(8)
    ls.append(s)
log = open(sys.argv[3], "a", buffering=1)
end = time.time() + 120
while time.time() < end:
    r, _, _ = select.select(ls, [], [], 1)
    for s in r:
        c, _ = s.accept()
        log.write("accepted on %s\n" % s.getsockname())
        c.close()
EOF
	JAIL_PIDS="$JAIL_PIDS $!"
	wait_for "[ -S '$sock' ] && [ -S '$sock2' ]" 10
	: >>"$JT/sock.log"
	cat >"$WD/reach.py" <<'EOF'
import os, socket, sys, time
for tag, path in (("unix", sys.argv[1]), ("unix2", sys.argv[3])):
    u = socket.socket(socket.AF_UNIX)
    try:
        u.connect(path); print("R:%s:0" % tag)
    except OSError as e:
        print("R:%s:%d" % (tag, e.errno))
t = socket.socket()
try:
    t.bind(("0.0.0.0", int(sys.argv[2]))); t.listen(4); print("R:low:0")
except OSError as e:
    print("R:low:%d" % e.errno)
sys.stdout.flush()
open("ready", "w").close()
for _ in range(200):
    if os.path.exists("go"):
        break
    time.sleep(0.1)
EOF
	# $mnt: options without spaces, split on purpose.
	# shellcheck disable=SC2086
	sbx_bg -w "$WD" --connect 443 --listen "${low:-81}" $mnt -- python3 reach.py "$inside" \
	    "${low:-81}" "${inside2:-/nonexistent}"
	wait_for "[ -e '$WD/ready' ]" 20
	if [ -n "$low" ]; then
		listening=$(ss -ltnH "sport = :$low" 2>/dev/null)
	else
		listening="(ports 81-89 all in use on this host)"
	fi
	: >"$WD/go"
	sbx_bg_wait 30
	bg_status 0 "root: the script ran"
	is "$(cat "$JT/sock.log")" "" \
	    "root: a 0600 root unix socket, and one in a 0700 root directory, logged nothing"
	if [ -n "$inside2" ]; then
		like "$(cat "$T/bg.out")" "R:unix2:13" "root: the socket in a 0700 directory: EACCES"
	else
		# The landlock backend lends a root caller's workdir (the only
		# place its unix sockets may be) to uid 65534 for the run.
		skip "landlock: no root-only directory can be in a lent workdir"
	fi
	is "$listening" "" "root: nothing listens on port ${low:-81} on the host"
	like "$(cat "$T/bg.out")" "R:low:13" "root: the bind of port ${low:-81} failed with EACCES"
	diag "inside: $(tr '\n' ' ' <"$T/bg.out")"
fi

# --- (b2) who the supervisor's threads are -----------------------------------------
# Read on the host, in /proc, while the sandbox waits: every thread of
# sbxrun that reads the sandbox's memory or acts for it (the dispatcher,
# the workers) holds the sandbox's ids and no_new_privs, never the
# caller's rights. A root caller's sandbox runs as 65534: those threads
# hold uid and gid 65534 everywhere, no groups, an empty bounding set; a
# worker no capability; the dispatcher none either under landlock (the
# sandbox shares sbxrun's user namespace), and under namespaces only
# CAP_SYS_PTRACE, the one that reaches into the root-owned user namespace
# of the sandbox (a full root dispatcher failed this).
new_wd
lport=$("$PY" -c 'import socket
s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat >"$WD/wait.py" <<'EOF2'
import os, socket, sys, time
s = socket.socket()
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4)
c = socket.socket()
try:
    c.connect(("127.0.0.1", int(sys.argv[1])))
except OSError as e:
    print("connect: %d" % e.errno)
open("ready", "w").close()
for _ in range(300):
    if os.path.exists("go"):
        break
    time.sleep(0.1)
EOF2
sbx_bg -w "$WD" --listen "$lport" -- python3 wait.py "$lport"
wait_for "[ -e '$WD/ready' ]" 20
me=$(id -u)
mygid=$(id -g)
threads=
for t in /proc/"$SBX_PID"/task/*; do
	name=$(cat "$t/comm" 2>/dev/null) || continue
	case $name in
	sbxrun-dispatch | sbxrun-worker) ;;
	*) continue ;;
	esac
	st=$(cat "$t/status" 2>/dev/null)
	f() { printf '%s\n' "$st" | awk -v k="$1:" '$1 == k { $1 = ""; sub(/^ /, ""); print }'; }
	threads="$threads $name"
	if [ "$me" = 0 ]; then
		want_id="65534 65534 65534 65534"
		want_gid="65534 65534 65534 65534"
	else
		want_id="$me $me $me $me"
		want_gid=
	fi
	want_cap=0000000000000000
	if [ "$me" = 0 ] && [ "$name" = sbxrun-dispatch ] && [ "$SBX_BACKEND" = namespaces ]; then
		want_cap=0000000000080000
	fi
	is "$(f Uid)" "$want_id" "creds: $name: real, effective, saved and fs uid are the sandbox's"
	if [ -n "$want_gid" ]; then
		is "$(f Gid)" "$want_gid" "creds: $name: the gids are the sandbox's"
		is "$(f Groups)" "" "creds: $name: no supplementary groups"
		is "$(f CapBnd)" 0000000000000000 "creds: $name: an empty bounding set"
	fi
	is "$(f CapEff)" "$want_cap" "creds: $name: effective capabilities"
	is "$(f CapPrm)" "$want_cap" "creds: $name: permitted capabilities"
	is "$(f CapAmb)" 0000000000000000 "creds: $name: no ambient capability"
	is "$(f NoNewPrivs)" 1 "creds: $name: no_new_privs"
done
like "$threads" sbxrun-dispatch "creds: the dispatcher thread was found"
like "$threads" sbxrun-worker "creds: a worker thread was found"
: >"$WD/go"
sbx_bg_wait 30
bg_status 0 "creds: the script ran"

# --- (b3) root without CAP_SYS_PTRACE ------------------------------------------
# The namespaces supervisor of a root caller reads the sandbox with that
# one capability; without it (a container runtime's root) the backend is
# refused by name, never started with a supervisor that fails every call,
# and auto goes on to landlock.
if root_only "root without CAP_SYS_PTRACE" 3; then
	new_wd
	if [ "$SBX_BACKEND" = namespaces ]; then
		setpriv --bounding-set=-sys_ptrace -- "$SBXRUN" --backend namespaces -w "$WD" \
		    --diag fd:3 </dev/null >"$T/np.out" 2>"$T/np.err" 3>"$T/np.diag"
		is "$?" 125 "no CAP_SYS_PTRACE: namespaces is refused"
		like "$(cat "$T/np.err")" "root without CAP_SYS_PTRACE" "no CAP_SYS_PTRACE: the reason is named"
	else
		skip "namespaces only: the refusal of the namespaces backend" 2
	fi
	echo 'echo ran >ran' >"$T/np.sh"
	setpriv --bounding-set=-sys_ptrace -- "$SBXRUN" -w "$WD" <"$T/np.sh" >/dev/null 2>&1
	is "$(cat "$WD/ran" 2>&1)" ran "no CAP_SYS_PTRACE: auto still runs the script"
fi

# --- (c) the stall ---------------------------------------------------------------
# A peer on the host accepts and never reads. The sandbox flips O_NONBLOCK
# on its socket from one thread while 64 others make blocking sends:
# whatever the flag says when the supervisor looks, no send it performs may
# hold up the end of the run. --timeout and SIGTERM still end it, with the
# JSON line.
cc_ok=
if command -v "${CC:-cc}" >/dev/null 2>&1; then
	cat >"$T/stall.c" <<'EOF'
#include <arpa/inet.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

static int s;
static char buf[65536];

static void *
flip(void *arg)
{
	int fl = fcntl(s, F_GETFL);

	for (;;) {
		fcntl(s, F_SETFL, fl | O_NONBLOCK);
		fcntl(s, F_SETFL, fl & ~O_NONBLOCK);
	}
	return arg;
}

static void *
sender(void *arg)
{
	for (;;) {
		struct iovec v = { buf, sizeof(buf) };
		struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1 };

		sendmsg(s, &m, 0);
	}
	return arg;
}

int
main(int argc, char **argv)
{
	struct sockaddr_in a = { .sin_family = AF_INET };
	pthread_t t;

	a.sin_port = htons((unsigned short)atoi(argv[1]));
	inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
	s = socket(AF_INET, SOCK_STREAM, 0);
	/* A small send buffer: full, so every send blocks, at once. */
	setsockopt(s, SOL_SOCKET, SO_SNDBUF, &(int){ 4096 }, sizeof(int));
	if (connect(s, (struct sockaddr *)&a, sizeof(a)) < 0) {
		perror("connect");
		return 1;
	}
	pthread_create(&t, NULL, flip, NULL);
	for (int i = 0; i < 64; i++)
		pthread_create(&t, NULL, sender, NULL);
	pause();
	return 0;
}
EOF
	"${CC:-cc}" -O2 -pthread -o "$T/stall" "$T/stall.c" 2>"$T/cc.err" && cc_ok=1
fi
# The peer: accepts, never reads, holds every connection.
"$PY" - "$JT/peer.port" "$JT/peer.log" <<'EOF' &
import socket, sys, time
s = socket.socket()
# A small window: the sandbox's sends fill it, and block, at once.
s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
s.bind(("127.0.0.1", 0)); s.listen(16)
held = []
open(sys.argv[1] + ".tmp", "w").write("%d\n" % s.getsockname()[1])
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
log = open(sys.argv[2], "a", buffering=1)
s.settimeout(1)
end = time.time() + 300
while time.time() < end:
    try:
        c, _ = s.accept()
    except socket.timeout:
        continue
    held.append(c)
    log.write("accepted\n")
EOF
JAIL_PIDS="$JAIL_PIDS $!"
wait_for "[ -s '$JT/peer.port' ]" 10
PEER=$(cat "$JT/peer.port")
: >>"$JT/peer.log"

# in_sendmsg DIR...: how many of the tasks DIR (/proc/PID/task/TID) are in
# sendmsg(2) (number 46 on x86_64; the first field of "syscall"), blocked
# in it or waiting for the supervisor's answer to it.
NR_SENDMSG=$("$PY" -c 'import platform; print({"x86_64": 46, "aarch64": 211}.get(platform.machine(), -1))')
in_sendmsg() {
	for _t in "$@"; do
		cut -d' ' -f1 "$_t/syscall" 2>/dev/null
	done | grep -cx "$NR_SENDMSG"
}

# stalled: the state the attack is about, read on the host. The peer's
# receive queue holds data (the connection is full), the payload's
# senders are in sendmsg, and under landlock, where sbxrun's workers make
# the sandbox's sends on its copy of the socket, a worker is blocked in
# one: what would hold up the end of the run if anything could. (Under
# namespaces the connection was moved to the host and the kernel makes
# the sends: no worker takes part.) A worker's /proc entry that cannot be
# read (a non-root caller's sbxrun is not dumpable) is not required.
stalled() {
	ss -tnH state established "( sport = :$PEER )" | awk '$1 > 0 {f=1} END {exit !f}' || return 1
	_pl=$(pgrep -P "$(init_of "$SBX_PID")" 2>/dev/null | head -n 1)
	[ -n "$_pl" ] && [ "$(in_sendmsg /proc/"$_pl"/task/*)" -ge 1 ] || return 1
	[ "$SBX_BACKEND" = landlock ] || return 0
	_w=
	for _t in /proc/"$SBX_PID"/task/*; do
		[ "$(cat "$_t/comm" 2>/dev/null)" = sbxrun-worker ] && _w="$_w $_t"
	done
	[ -n "$_w" ] || return 1
	# shellcheck disable=SC2086
	cat ${_w%% *}/syscall >/dev/null 2>&1 || return 0
	# shellcheck disable=SC2086
	[ "$(in_sendmsg $_w)" -ge 1 ]
}

# Waits (bounded) for that state while sbxrun still runs: STALLED=yes.
wait_stalled() {
	STALLED=no
	if wait_for stalled 20 && kill -0 "$SBX_PID" 2>/dev/null &&
	    [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$SBX_PID/status")" != Z ]; then
		STALLED=yes
	else
		diag "the sends never blocked: $(ss -tnH state established "( sport = :$PEER )")"
	fi
}

if [ -z "$cc_ok" ]; then
	# build-essential is a build dependency: a missing compiler is a setup
	# error, not a skip.
	fail "stall: cannot compile the attack ($(cat "$T/cc.err" 2>/dev/null))"
else
	new_wd
	cp "$T/stall" "$WD/stall"
	chmod 755 "$WD/stall"
	# The timeout (counted from the start) must fall while the sends are
	# blocked: 20 s leaves start-up and the filling of the connection
	# ample time on a busy machine, and the state is checked, not assumed.
	sbx_bg -w "$WD" --loopback "$PEER" --timeout 20 -- ./stall "$PEER"
	wait_stalled
	is "$STALLED" yes "stall: the sends were blocked before the timeout (precondition)"
	# Bounded: what is left of 20 s of timeout, then the grace.
	sbx_bg_wait 45
	bg_status 124 "stall: --timeout still ends the run with 124"
	json_line "$T/bg.diag" && pass "stall: the JSON line is printed" ||
	    fail "stall: the JSON line is printed"
	is "$(jget timed_out "$T/bg.diag")" true "stall: the JSON line says timed_out"

	new_wd
	cp "$T/stall" "$WD/stall"
	chmod 755 "$WD/stall"
	sbx_bg -w "$WD" --loopback "$PEER" --timeout 10m -- ./stall "$PEER"
	wait_stalled
	is "$STALLED" yes "stall: SIGTERM: the sends were blocked when it was sent (precondition)"
	kill -TERM "$SBX_PID" 2>/dev/null
	sbx_bg_wait 30
	bg_status 143 "stall: SIGTERM still ends the run with 143"
	json_line "$T/bg.diag" && pass "stall: SIGTERM: the JSON line is printed" ||
	    fail "stall: SIGTERM: the JSON line is printed"
	is "$(jget status "$T/bg.diag")" 143 "stall: SIGTERM: the JSON line says 143"
fi

# --- (d) init's end message --------------------------------------------------------
# sbxrun ends a run on the message init writes once it has reaped the whole
# tree (supervise.h), and then stops supervising: a message the sandbox
# could write would end its deadline early and undo the run's changes on
# the host while it still runs. The sandbox tries: a well-formed message
# (152 zero bytes: status 0) written to every descriptor of its parent
# (init) through /proc and through pidfd_getfd, and to any descriptor above
# 2 it holds itself, then it sleeps past the
# deadline. On the host: the run still ends by its deadline (124, the JSON
# line says timed_out), and no process of the run is left.
# sleep takes a number: the marker is one of our own.
stag=31.$$
cat >"$T/forge.py" <<'EOF'
import ctypes, os, sys
msg = bytes(152)
init = os.getppid()
libc = ctypes.CDLL(None, use_errno=True)
wrote = 0
try:
    names = os.listdir("/proc/%d/fd" % init)
except OSError:
    names = []
for n in names:
    try:
        fd = os.open("/proc/%d/fd/%s" % (init, n), os.O_WRONLY | os.O_NONBLOCK)
        os.write(fd, msg)
        wrote += 1
    except OSError:
        pass
try:
    pfd = os.pidfd_open(init)
    for n in range(64):
        fd = libc.syscall(438, pfd, n, 0)
        if fd >= 0:
            try:
                os.write(fd, msg)
                wrote += 1
            except OSError:
                pass
except OSError:
    pass
# And any descriptor the sandbox itself was left holding.
for fd in range(3, 64):
    try:
        os.write(fd, msg)
        wrote += 1
    except OSError:
        pass
print("R:forge:%d" % wrote)
sys.stdout.flush()
os.execvp("sleep", ["sleep", sys.argv[1]])
EOF
new_wd
cp "$T/forge.py" "$WD/forge.py"
printf 'exec python3 forge.py %s\n' "$stag" >"$T/pl-forge"
BG_STDIN=$T/pl-forge sbx_bg -w "$WD" -t 2s
sbx_bg_wait 60
bg_status 124 "forged end message: the run still ends at its deadline (124)"
is "$(jget timed_out "$T/bg.diag")" true "... and the JSON line says it timed out"
is "$(grep -o 'R:forge:[0-9]*' "$T/bg.out")" "R:forge:0" \
    "... the sandbox could write to none of init's descriptors"
no_survivors "... and no process of the run is left" "sleep $stag"

# --- (e) the seccomp listener ---------------------------------------------------
# The listener the supervisor answers from is in sbxrun's hands, and for a
# moment in init's as well (a landlock payload leaves it in init's table,
# launch.c; namespaces' init makes it). Whoever holds one may answer the
# sandbox's trapped calls, and "continue" lets a connect through. The
# sandbox looks for a seccomp listener among its own descriptors and
# among those of its ancestors it can see (pidfd_getfd, /proc/PID/fd),
# and with any it finds answers its own connects to a host listener
# "continue", 40 times. The verdict is the host listener's log.
listener_start
cat >"$T/grab.py" <<'EOF'
import ctypes, fcntl, os, socket, struct, sys, threading, time
port = int(sys.argv[1])
libc = ctypes.CDLL(None, use_errno=True)
SYS_PIDFD_OPEN, SYS_PIDFD_GETFD = 434, 438
NOTIF_RECV, NOTIF_SEND = 0xC0502100, 0xC0182101
def notify(fd):
    try:
        return "seccomp" in os.readlink("/proc/self/fd/%d" % fd)
    except OSError:
        return False
found = [fd for fd in range(3, 256) if notify(fd)]
pids, pid = [], os.getpid()
for _ in range(4):
    try:
        pid = int(open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()[1])
    except (OSError, ValueError, IndexError):
        break
    if pid <= 0:
        break
    pids.append(pid)
for pid in pids:
    pfd = libc.syscall(SYS_PIDFD_OPEN, pid, 0)
    for fd in range(0, 256):
        if pfd >= 0:
            got = libc.syscall(SYS_PIDFD_GETFD, pfd, fd, 0)
            if got >= 0:
                if notify(got):
                    found.append(got)
                else:
                    os.close(got)
        try:
            got = os.open("/proc/%d/fd/%d" % (pid, fd), os.O_RDONLY)
        except OSError:
            continue
        if notify(got):
            found.append(got)
        else:
            os.close(got)
print("R:found:%d" % len(found))
sys.stdout.flush()
def answer(fd, stop):
    while not stop.is_set():
        buf = bytearray(80)
        try:
            fcntl.ioctl(fd, NOTIF_RECV, buf)
        except OSError:
            time.sleep(0.001)
            continue
        nid = struct.unpack_from("Q", buf)[0]
        try:
            fcntl.ioctl(fd, NOTIF_SEND, bytearray(struct.pack("QqiI", nid, 0, 0, 1)))
        except OSError:
            pass
stop = threading.Event()
for fd in found:
    threading.Thread(target=answer, args=(fd, stop), daemon=True).start()
time.sleep(0.2)
through = 0
for _ in range(40 if found else 3):
    s = socket.socket()
    s.settimeout(2)
    try:
        s.connect(("127.0.0.1", port))
        through += 1
    except OSError:
        pass
    s.close()
stop.set()
print("R:through:%d" % through)
EOF
new_wd
cp "$T/grab.py" "$WD/grab.py"
base=$(log_lines)
jail -w "$WD" -- python3 grab.py "$LSN_TCP"
is_status 0 "listener: the grabbing script ran"
lsn_fence "$base" tcp
nok "listener: no connect of the sandbox's reached a host listener" grep -q "^tcp " "$T/lsn.step"
is "$(sed -n 's/^R:found://p' "$T/out")" 0 \
    "listener: the sandbox found no seccomp listener, its own or an ancestor's"

done_testing
