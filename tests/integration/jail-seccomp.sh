# The seccomp filter (sbxrun(1), BACKENDS, --print-backend's deny list): each
# listed call is refused, and where the kernel itself would have answered
# otherwise (an unprivileged unshare succeeds, an ioctl on /dev/null says
# ENOTTY) the answer must be the filter's EPERM. Syscalls of another ABI
# (int 0x80) kill the process. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

# Syscall numbers: the python script asks for them by name.
case $(uname -m) in
x86_64) ARCH=x86_64 ;;
aarch64) ARCH=aarch64 ;;
*) ARCH= ;;
esac

cat >"$T/calls.py" <<'EOF'
import ctypes, errno, os, socket, sys
arch = sys.argv[1]
NR = {
    "x86_64": dict(io_uring_setup=425, unshare=272, mount=165, keyctl=250, bpf=321,
                   personality=135, socket=41, ioctl=16, clone=56, clone3=435,
                   userfaultfd=323, perf_event_open=298, setns=308, add_key=248,
                   name_to_handle_at=303, open_by_handle_at=304, open_tree=428,
                   fsopen=430, chroot=161, pivot_root=155, syslog=103, umount2=166),
    "aarch64": dict(io_uring_setup=425, unshare=97, mount=40, keyctl=219, bpf=280,
                    personality=92, socket=198, ioctl=29, clone=220, clone3=435,
                    userfaultfd=282, perf_event_open=241, setns=268, add_key=217,
                    name_to_handle_at=264, open_by_handle_at=265, open_tree=428,
                    fsopen=430, chroot=51, pivot_root=41, syslog=116, umount2=39),
}[arch]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

def call(name, *args):
    ctypes.set_errno(0)
    r = libc.syscall(ctypes.c_long(NR[name]), *[ctypes.c_long(a) if isinstance(a, int) else a for a in args])
    e = ctypes.get_errno()
    return r, e

def report(tag, r, e):
    # R:tag:errno-name (OK when the call succeeded)
    print("R:%s:%s" % (tag, "OK" if r >= 0 else errno.errorcode.get(e, str(e))), flush=True)
    return r

params = ctypes.create_string_buffer(120)
r = report("io_uring_setup", *call("io_uring_setup", 4, params))
if r >= 0: os.close(r)
report("unshare_user", *call("unshare", 0x10000000))          # CLONE_NEWUSER
report("unshare_ns", *call("unshare", 0x00020000))            # CLONE_NEWNS
report("mount", *call("mount", b"none", b"/nonexistent-sbxjail", b"tmpfs", 0, None))
report("umount2", *call("umount2", b"/nonexistent-sbxjail", 0))
report("keyctl", *call("keyctl", 0, -3, 1))                   # GET_KEYRING_ID session, create
report("add_key", *call("add_key", b"user", b"sbxjail", b"x", 1, -3))
attr = ctypes.create_string_buffer(128)
ctypes.memmove(attr, (ctypes.c_uint32 * 4)(2, 4, 4, 1), 16)   # BPF_MAP_TYPE_ARRAY
r = report("bpf", *call("bpf", 0, attr, 128))
if r >= 0: os.close(r)
report("personality", *call("personality", 0x0040000))       # ADDR_NO_RANDOMIZE
report("personality_exec", *call("personality", 0x0400000))  # READ_IMPLIES_EXEC
r = report("mptcp", *call("socket", socket.AF_INET, socket.SOCK_STREAM, 262))
if r >= 0: os.close(r)
c = ctypes.c_char(b"x")
fd = os.open("/dev/null", os.O_RDWR)
report("tiocsti", *call("ioctl", fd, 0x5412, ctypes.byref(c)))
report("tiocsti_high", *call("ioctl", fd, 0xffffffff00005412, ctypes.byref(c)))
report("tioclinux", *call("ioctl", fd, 0x541C, ctypes.byref(c)))
report("setns", *call("setns", fd, 0))
r = report("userfaultfd", *call("userfaultfd", 0))
if r >= 0: os.close(r)
pe = ctypes.create_string_buffer(128)
ctypes.memmove(pe, (ctypes.c_uint32 * 2)(1, 128), 8)          # PERF_TYPE_SOFTWARE, size
r = report("perf_event_open", *call("perf_event_open", pe, 0, -1, -1, 0))
if r >= 0: os.close(r)
handle = ctypes.create_string_buffer(136)
ctypes.memmove(handle, (ctypes.c_uint32 * 1)(128), 4)
mnt = ctypes.c_int(0)
report("name_to_handle_at", *call("name_to_handle_at", -100, b"/", handle, ctypes.byref(mnt), 0))
report("open_by_handle_at", *call("open_by_handle_at", -100, handle, 0))
r = report("open_tree", *call("open_tree", -100, b"/", 0x80000))   # no clone: allowed by the kernel
if r >= 0: os.close(r)
r = report("fsopen", *call("fsopen", b"tmpfs", 0))
if r >= 0: os.close(r)
report("chroot", *call("chroot", b"/"))
report("pivot_root", *call("pivot_root", b"/", b"/"))
report("syslog", *call("syslog", 10, None, 0))                 # SIZE_BUFFER
ca = ctypes.create_string_buffer(88)
ctypes.memmove(ca, (ctypes.c_uint64 * 1)(0x10000000), 8)       # clone3(CLONE_NEWUSER)
r = report("clone3", *call("clone3", ca, 88))
if r == 0: os._exit(0)
# clone(CLONE_NEWUSER | SIGCHLD) with no new stack: fork semantics.
r = report("clone_newuser", *call("clone", 0x10000000 | 17, 0, 0, 0, 0))
if r == 0: os._exit(0)
if r > 0: os.waitpid(r, 0)
# A pty of the sandbox's own, made its controlling terminal in a new
# session: the kernel allows TIOCSTI there (legacy_tiocsti), the filter not.
try:
    m, s = os.openpty()
except OSError as e:
    print("R:own_pty:%s" % e.strerror, flush=True)
    print("R:done:OK", flush=True)
    sys.exit(0)
pid = os.fork()
if pid == 0:
    os.setsid()
    os.close(os.open(os.ttyname(s), os.O_RDWR))              # becomes the ctty
    r, e = call("ioctl", s, 0x5412, ctypes.byref(c))
    r2, e2 = call("ioctl", s, 0xffffffff00005412, ctypes.byref(c))
    report("tiocsti_own_pty", r, e)
    report("tiocsti_own_pty_high", r2, e2)
    os._exit(0)
os.waitpid(pid, 0)
os.set_blocking(m, False)
try:
    pushed = os.read(m, 100)
except BlockingIOError:
    pushed = b""
print("R:own_pty_pushed:%s" % ("YES" if b"x" in pushed else "NO"), flush=True)
print("R:done:OK", flush=True)
EOF
chmod a+r "$T/calls.py"

res() {
	sed -n "s/^R:$1://p" "$2" | head -n 1
}

if [ -z "$ARCH" ]; then
	skip "syscall numbers are known for x86_64 and aarch64 only, not $(uname -m)" 31
else
	# What the kernel answers without the filter, for the record.
	"$PY" "$T/calls.py" "$ARCH" </dev/null >"$T/control" 2>&1
	diag "without a sandbox: $(sed -n 's/^R://p' "$T/control" | tr '\n' ' ')"
	new_wd
	cp "$T/calls.py" "$WD/calls.py"
	jail -w "$WD" -- python3 calls.py "$ARCH" </dev/null
	is_status 0 "the syscall script ran to its end"
	is "$(res "done" "$T/out")" OK "every call returned (none killed the process)"
	# Refused with the filter's own EPERM (the kernel alone would answer
	# otherwise, see the control line above).
	for c in io_uring_setup unshare_user unshare_ns mount umount2 keyctl add_key personality \
	    personality_exec mptcp tiocsti tiocsti_high tioclinux setns name_to_handle_at \
	    open_tree fsopen clone_newuser; do
		is "$(res "$c" "$T/out")" EPERM "seccomp: $c is refused with EPERM"
	done
	is "$(res clone3 "$T/out")" ENOSYS "seccomp: clone3 answers ENOSYS (callers fall back to clone)"
	for c in bpf userfaultfd perf_event_open open_by_handle_at chroot pivot_root syslog; do
		r=$(res "$c" "$T/out")
		ok "seccomp: $c is refused (${r:-no answer})" test -n "$r" -a "$r" != OK
	done
	if [ -n "$(res own_pty "$T/out")" ]; then
		skip "the sandbox cannot open a pty of its own ($(res own_pty "$T/out")): no terminal to try TIOCSTI on" 3
	else
		is "$(res tiocsti_own_pty "$T/out")" EPERM "seccomp: TIOCSTI on the sandbox's own terminal is refused with EPERM"
		is "$(res tiocsti_own_pty_high "$T/out")" EPERM "seccomp: TIOCSTI with high bits on its own terminal is refused with EPERM"
		is "$(res own_pty_pushed "$T/out")" NO "TIOCSTI pushed nothing into the sandbox's own terminal"
	fi
fi

# --- another syscall ABI: int 0x80 ----------------------------------------------
# A 64-bit program making the i386 creat() call: if the filter let it
# through, int80-marker would appear in the workdir.
if [ "$(uname -m)" != x86_64 ]; then
	skip "int 0x80 is the x86 32-bit syscall ABI; this is $(uname -m)" 3
elif ! command -v gcc >/dev/null 2>&1; then
	skip "gcc is not installed: cannot build the int 0x80 program" 3
else
	cat >"$T/int80.c" <<'EOF'
#include <unistd.h>
static const char path[] = "int80-marker";
int main(void)
{
	long r;
	/* creat(path, 0644) through the i386 table (__NR_creat = 8). */
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(8L), "b"(path), "c"(0644L) : "memory");
	write(1, r >= 0 ? "created\n" : "refused\n", 8);
	return 0;
}
EOF
	if gcc -O0 -static -no-pie -o "$T/int80" "$T/int80.c" 2>"$T/gcc.err" ||
	    gcc -O0 -no-pie -o "$T/int80" "$T/int80.c" 2>"$T/gcc.err"; then
		mkdir "$T/int80-control"
		(cd "$T/int80-control" && "$T/int80" >/dev/null 2>&1)
		if [ -e "$T/int80-control/int80-marker" ]; then
			new_wd
			cp "$T/int80" "$WD/int80"
			chmod a+rx "$WD/int80"
			jail -w "$WD" -- ./int80
			is_status 159 "int 0x80: the process is killed by SIGSYS (status 128+31)"
			absent "int 0x80: the 32-bit creat() left no file" "$WD/int80-marker"
			unlike "$(output)" created "int 0x80: the program did not go on"
		else
			skip "this kernel runs no i386 syscalls (no IA32 emulation)" 3
		fi
	else
		diag "$(cat "$T/gcc.err")"
		skip "gcc cannot build a non-PIE x86_64 program here" 3
	fi
fi

done_testing
