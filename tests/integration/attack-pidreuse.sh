# Nothing sbxrun does for a trapped call may reach another process that
# was given the caller's pid later (threat model: every call made for the
# sandbox runs with its rights, on its objects).
#
# sendmmsg's per-message lengths are written back into the caller's
# array once a worker has sent, which may be long after the call was
# checked to be pending. They were written by pid (process_vm_writev): the
# sandbox's sender P blocks in a 4 MiB sendmmsg to a peer of its own that
# does not read, is killed (its peer lives on), and a process of uid
# 65534 outside the jail, V, is started with P's pid (ns_last_pid) with
# memory at the address of P's array; the peer then reads, the send ends,
# and sbxrun wrote 4194304 into V. Now the memory is opened while the call
# is pending and written through that descriptor, which reaches P's
# memory or nothing.
# Verdict on the host: V's memory after the run.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=4
if ! root_only "only root gives a pid to a new process (ns_last_pid)" "$N_TESTS"; then
	done_testing
	exit 0
fi
chmod 711 "$T"
D=$JT/pr
mkdir "$D"
chmod 777 "$D" "$WD"

cat >"$WD/p.py" <<'EOF'
import ctypes, fcntl, os, socket, struct, termios, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
X = 0x7e0000000000
SIZE = 4 << 20
assert libc.mmap(X, 4096, 3, 0x32, -1, 0) == X  # MAP_PRIVATE|MAP_ANONYMOUS|MAP_FIXED
a, b = socket.socketpair()
if os.fork() == 0:
    # The peer: holds b, says when bytes arrive, drains once told.
    a.close()
    while struct.unpack("i", fcntl.ioctl(b.fileno(), termios.FIONREAD, bytes(4)))[0] == 0:
        time.sleep(0.01)
    open("blocked", "w").close()
    while not os.path.exists("read"):
        time.sleep(0.02)
    n = 0
    while n < SIZE:
        n += len(b.recv(1 << 20))
    os._exit(0)
if os.fork() != 0:
    # The payload: waits for the peer and the sender, whatever becomes of it.
    a.close()
    b.close()
    os.wait()
    os.wait()
    os._exit(0)
# The sender: one message of SIZE bytes, its mmsghdr at X (msg_len at X + 56).
b.close()
data = ctypes.create_string_buffer(SIZE)
iov = struct.pack("QQ", ctypes.addressof(data), SIZE)
ctypes.memmove(X + 512, iov, len(iov))
msg = struct.pack("QIIQQQQiI", 0, 0, 0, X + 512, 1, 0, 0, 0, 0)
ctypes.memmove(X, msg, len(msg))
with open("pid.tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename("pid.tmp", "pid")
libc.sendmmsg(a.fileno(), ctypes.c_void_p(X), 1, 0)
EOF

# V: memory at X, zero; says its pid, then what is at X + 56 once told.
cat >"$D/v.py" <<'EOF'
import ctypes, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
X = 0x7e0000000000
assert libc.mmap(X, 4096, 3, 0x32, -1, 0) == X
d = sys.argv[1]
with open(d + "/vpid.tmp", "w") as f:
    f.write(str(os.getpid()))
os.rename(d + "/vpid.tmp", d + "/vpid")
while not os.path.exists(d + "/check"):
    time.sleep(0.02)
with open(d + "/vval", "w") as f:
    f.write(str(ctypes.c_uint32.from_address(X + 56).value))
EOF
chmod 644 "$D/v.py"

"$SBXRUN" --backend landlock -w "$WD" --diag none -- python3 p.py >"$T/run.out" 2>&1 </dev/null &
run=$!
JAIL_PIDS="$JAIL_PIDS $run"
wait_for "[ -e '$WD/blocked' ] && [ -e '$WD/pid' ]" 60
P=$(cat "$WD/pid" 2>/dev/null)
kill -KILL "$P" 2>/dev/null
wait_for "[ ! -e /proc/$P ]" 30
# Another process may take the number first (the machine is shared): V is
# started again until it has it.
V=
for _try in 1 2 3 4 5 6 7 8 9 10; do
	rm -f "$D/vpid"
	echo $((P - 1)) >/proc/sys/kernel/ns_last_pid
	setpriv --reuid 65534 --regid 65534 --clear-groups /usr/bin/python3 "$D/v.py" "$D" &
	V=$!
	JAIL_PIDS="$JAIL_PIDS $V"
	wait_for "[ -e '$D/vpid' ]" 30
	[ "$(cat "$D/vpid" 2>/dev/null)" = "$P" ] && break
	kill "$V" 2>/dev/null
	wait "$V" 2>/dev/null
done
is "$(cat "$D/vpid" 2>/dev/null)" "$P" "a process outside the jail has the killed sender's pid"
: >"$WD/read"
wait "$run"
is "$?" 0 "the run ended well once the peer read"
: >"$D/check"
wait "$V"
is "$(cat "$D/vval" 2>/dev/null)" 0 "nothing was written into that process's memory"

# Control: the caller itself, alive, still gets its lengths.
cat >"$WD/mm.py" <<'EOF'
import ctypes, socket, struct
libc = ctypes.CDLL(None, use_errno=True)
a, b = socket.socketpair()
data = ctypes.create_string_buffer(b"hello", 5)
iov = ctypes.create_string_buffer(struct.pack("QQ", ctypes.addressof(data), 5), 16)
msgs = ctypes.create_string_buffer(128)
for i in range(2):
    struct.pack_into("QIIQQQQiII", msgs, 64 * i, 0, 0, 0, ctypes.addressof(iov), 1, 0, 0, 0, 0, 99)
n = libc.sendmmsg(a.fileno(), msgs, 2, 0)
print(n, *(struct.unpack_from("I", msgs, 64 * i + 56)[0] for i in range(2)))
EOF
jail_sh "python3 mm.py" -w "$WD"
is "$(cat "$T/out")" "2 5 5" "a live caller's sendmmsg gets each message's length" || diag "$(cat "$T/err")"

done_testing
