# Containers take away single calls and single steps (man/sbxrun.1,
# BACKENDS; doc/design/containers.md): Docker's default seccomp profile
# answers EPERM to pidfd_getfd and process_vm_readv, and a runtime's
# masked /proc paths forbid a fresh proc mount in a user namespace. Here
# the host does the same to sbxrun from outside, with no engine:
#
#   maskproc  sbxrun runs in a mount namespace of its own where a file of
#             /proc is covered by a bind of /dev/null, as runc does to
#             /proc/kcore (the kernel then refuses a fresh proc mount in
#             any user namespace made below: it would reveal the file)
#   pidfd     pidfd_getfd fails with EPERM (a seccomp filter)
#   vm        process_vm_readv and process_vm_writev fail with EPERM
#
# "auto" must measure the failing step and fall through to landlock, say
# so in --probe and -v, and the landlock jail must hold with isolation
# full: its listener sent over a socket, the sandbox's memory read through
# /proc/PID/mem. Network rules, which need the sandbox's sockets taken,
# are refused with 125 naming them. sbxrun has no test hook for any of it.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

chmod 711 "$T"

cat >"$T/deny.py" <<'EOF'
# deny.py WHAT[,WHAT..] PROG [ARG]...: runs PROG with calls taken away.
import ctypes, os, platform, struct, sys

NR = {"x86_64": (0xC000003E, dict(pidfd_getfd=438, vm_readv=310, vm_writev=311)),
      "aarch64": (0xC00000B7, dict(pidfd_getfd=438, vm_readv=270, vm_writev=271))}
if platform.machine() not in NR:
    sys.exit(77)
audit_arch, nr = NR[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
what = sys.argv[1].split(",")

if "maskproc" in what:
    MS_REC, MS_PRIVATE, MS_BIND = 0x4000, 0x40000, 0x1000
    CLONE_NEWNS, CLONE_NEWUSER = 0x20000, 0x10000000
    if os.geteuid() != 0:
        uid, gid = os.getuid(), os.getgid()
        if libc.unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0:
            sys.exit(79)
        for f, t in (("uid_map", "%d %d 1" % (uid, uid)), ("setgroups", "deny"),
                     ("gid_map", "%d %d 1" % (gid, gid))):
            with open("/proc/self/" + f, "w") as fh:
                fh.write(t)
    elif libc.unshare(CLONE_NEWNS) != 0:
        sys.exit(79)
    if libc.mount(None, b"/", None, MS_REC | MS_PRIVATE, None) != 0:
        sys.exit(79)
    target = next(p for p in ("/proc/kcore", "/proc/keys", "/proc/timer_list")
                  if os.path.exists(p))
    if libc.mount(b"/dev/null", target.encode(), None, MS_BIND, None) != 0:
        sys.exit(79)

RET_ALLOW, RET_ERRNO, EPERM = 0x7FFF0000, 0x00050000, 1
LD_W_ABS, JEQ, RET = 0x20, 0x15, 0x06
prog = []
def ins(code, jt, jf, k):
    prog.append(struct.pack("HBBI", code, jt, jf, k))
def deny(n):
    ins(JEQ, 0, 1, n)
    ins(RET, 0, 0, RET_ERRNO | EPERM)
ins(LD_W_ABS, 0, 0, 4)                        # seccomp_data.arch
ins(JEQ, 1, 0, audit_arch)
ins(RET, 0, 0, RET_ALLOW)
ins(LD_W_ABS, 0, 0, 0)                        # seccomp_data.nr
if "pidfd" in what:
    deny(nr["pidfd_getfd"])
if "vm" in what:
    deny(nr["vm_readv"])
    deny(nr["vm_writev"])
ins(RET, 0, 0, RET_ALLOW)
buf = ctypes.create_string_buffer(b"".join(prog))
class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fp = Fprog(len(prog), ctypes.addressof(buf))
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fp), 0, 0) != 0:
    sys.exit(78)
os.execvp(sys.argv[2], sys.argv[2:])
EOF

# denied WHAT ARG...: sbxrun ARG... taken WHAT away, $T/script on stdin.
denied() {
	_w=$1
	shift
	"$PY" "$T/deny.py" "$_w" "$SBXRUN" --diag fd:3 "$@" <"$T/script" >"$T/out" 2>"$T/err" 3>"$T/diag"
	SBX_STATUS=$?
}

echo 'exit 0' >"$T/script"
denied pidfd -- /bin/true
case $SBX_STATUS in
77) skip "no seccomp numbers for $(uname -m) in deny.py" 1; done_testing; exit ;;
78) skip "seccomp filters are not available to install the test's filter" 1; done_testing; exit ;;
79) skip "no mount namespace could be made to mask a /proc file" 1; done_testing; exit ;;
esac
abi=$(host_landlock_abi)
if [ "${abi:-0}" -lt 6 ] || ! host_userns; then
	skip "these tests need Landlock ABI 6 (here ${abi:-0}) and user namespaces" 1
	done_testing
	exit
fi
"$PY" "$T/deny.py" pidfd,vm "$PY" -c '
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
pid = os.getpid()
pfd = os.pidfd_open(pid)
sys.exit(0 if libc.syscall(438, pfd, 0, 0) < 0 and ctypes.get_errno() == 1 else 1)'
ok "(the test filter makes pidfd_getfd fail with EPERM)" test $? -eq 0

# --- --probe names the step that fails, and auto falls through -------------------
"$PY" "$T/deny.py" maskproc "$SBXRUN" --probe >"$T/probe" 2>"$T/err"
is "$(jget backends.namespaces.usable "$T/probe")" false \
    "masked /proc: --probe calls namespaces unusable"
like "$(jget backends.namespaces.why "$T/probe")" "cannot mount a fresh /proc" \
    "... and names the step: $(jget backends.namespaces.why "$T/probe")"
is "$(jget auto "$T/probe")" landlock "... auto picks landlock"

"$PY" "$T/deny.py" pidfd,vm "$SBXRUN" --probe >"$T/probe" 2>"$T/err"
is "$(jget backends.namespaces.usable "$T/probe"):$(jget backends.landlock.usable "$T/probe")" \
    false:true "pidfd_getfd refused: namespaces unusable, landlock usable"
like "$(jget backends.namespaces.why "$T/probe")" "pidfd_getfd" \
    "... the reason names pidfd_getfd"
is "$(jget auto "$T/probe")" landlock "... auto picks landlock"

# --- the default policy runs, isolation full, and the jail holds -----------------
tag=$(uniq_tag marker)
# A file outside the workdir the sandbox's uid owns: only the supervisor
# (which must read the path from the sandbox's memory) keeps its mode.
outside=$JT/outside-$tag
echo keep >"$outside"
chmod 644 "$outside"
[ "$(id -u)" = 0 ] && chown 65534:65534 "$outside"
cat >"$T/script" <<EOF
echo inside >mine
chmod 600 mine
echo fd >byfd
python3 -c 'import os; fd = os.open("byfd", os.O_RDONLY); os.fchmod(fd, 0o640)'
chmod 666 '$outside'
python3 -c 'import os; fd = os.open("$outside", os.O_RDONLY); os.fchmod(fd, 0o666)'
echo pwned >'$JT/$tag'
exit 0
EOF
new_wd
for what in maskproc,pidfd,vm pidfd,vm; do
	denied "$what" -v -w "$WD"
	is_status 0 "[$what] auto, the default policy: the script runs (exit 0)"
	ok "[$what] the diagnostics line is complete" check_diag "$T/diag"
	is "$(jget backend "$T/diag"):$(jget isolation "$T/diag"):$(jget unenforced "$T/diag")" \
	    "landlock:full:[]" "[$what] backend landlock, isolation full, nothing unenforced"
	is "$(jget layers.seccomp_notify "$T/diag")" true \
	    "[$what] the supervisor holds the listener (sent over a socket)"
	is "$(stat -c %a "$WD/mine" 2>&1)" 600 \
	    "[$what] chmod in the workdir is judged and done (path read via /proc/PID/mem)"
	is "$(stat -c %a "$WD/byfd" 2>&1)" 640 \
	    "[$what] fchmod on a descriptor in the workdir is done (file reopened via /proc)"
	is "$(stat -c %a "$outside")" 644 "[$what] chmod and fchmod outside the workdir are refused"
	absent "[$what] a marker outside the workdir is not created" "$JT/$tag"
	rm -f "$WD/mine" "$WD/byfd"
done

# The listener sent over the socket holds in the message until sbxrun
# receives it: the payload goes on to its exec without waiting for
# sbxrun's acknowledgement (doc/design/startup.md, section 24). Under
# strace -f: nothing read from that socket (fd 4) between the payload's
# sendmsg and its execve (before, it waited there for sbxrun's "a"); the
# trapped chmod is still answered.
if command -v strace >/dev/null 2>&1; then
	new_wd
	printf ': >f; chmod 600 f; stat -c %%a f\n' >"$T/script"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -qq -o "$T/lsn.st" -e trace=execve,sendmsg,read \
	    "$PY" "$T/deny.py" pidfd,vm "$SBXRUN" --diag fd:3 --backend landlock -w "$WD" \
	    <"$T/script" >"$T/out" 2>"$T/err" 3>"$T/diag"
	SBX_STATUS=$?
	is "$SBX_STATUS:$(cat "$T/out")" 0:600 "[pidfd] the traced run's chmod was answered"
	"$PY" - "$T/lsn.st" >"$T/lsn.order" <<'PY'
import sys
lines = [l.split(None, 1) for l in open(sys.argv[1]).read().splitlines()]
lines = [f for f in lines if len(f) == 2]
# The payload: the process that execs the shell.
payload = next((pid for pid, call in lines
                if call.startswith("execve(") and call.split(",")[0].endswith('/sh"')), None)
verdict = "no payload exec seen"
sent = False
for pid, call in lines:
    if pid != payload:
        continue
    if call.startswith("sendmsg(4, "):
        sent = True
    elif sent and call.startswith("read(4, "):
        verdict = "the payload read the acknowledgement socket before its exec"
        break
    elif call.startswith("execve("):
        verdict = "sent, then exec" if sent else "exec without sending"
        break
print(verdict)
PY
	is "$(cat "$T/lsn.order")" "sent, then exec" \
	    "[pidfd] the payload execs without waiting for sbxrun to take its listener"
else
	skip "strace is missing (./bootstrap installs it)" 2
fi

# --- a run meets the masked /proc in its real jail, and leaves nothing -----------
# A run makes no throwaway probe: it builds the real jail, whose fresh
# /proc is refused before anything of the caller's ran; auto then goes on
# to landlock with no trace of the half-made jail (the empty .git the
# jail makes in a workdir without one is removed before landlock starts).
new_wd
echo 'ls -A; echo ran' >"$T/script"
denied maskproc -v -w "$WD"
is_status 0 "[maskproc] auto: the real jail fails at its fresh /proc, the script runs"
is "$(jget backend "$T/diag"):$(jget isolation "$T/diag")" landlock:full \
    "[maskproc] ... under landlock, isolation full"
like "$(cat "$T/err")" "backend namespaces: the jail could not be set up: cannot mount /proc" \
    "-v names the step that made auto pass namespaces over"
like "$(jget warnings "$T/diag")" \
    "backend namespaces: the jail could not be set up: cannot mount /proc: Operation not permitted; ran under backend landlock instead" \
    "... and so do the warnings"
is "$(cat "$T/out")" ran "... the sandbox saw an empty workdir (no placeholder left for it)"
is "$(ls -A "$WD")" "" "... and the workdir is empty on the host afterwards"
denied maskproc --backend namespaces -w "$WD"
is_status 125 "--backend namespaces under a masked /proc: 125"
like "$(jget error "$T/diag")" "the jail could not be set up: cannot mount /proc" \
    "... naming the step"
is "$(cat "$T/out"):$(ls -A "$WD")" ":" "... nothing ran and nothing is left in the workdir"

# --- network rules need the sandbox's sockets: refused by name -------------------
echo 'echo ran' >"$T/script"
denied pidfd --backend landlock --listen 8080 -w "$WD"
is_status 125 "pidfd_getfd refused, --listen: refused with 125"
like "$(jget error "$T/diag")" "listen" "... the error names the rule 'listen'"
unlike "$(output)" "^ran" "... nothing ran"
denied pidfd --backend landlock --listen 8080 --allow-degraded -w "$WD"
is_status 0 "... with --allow-degraded it runs"
is "$(jget isolation "$T/diag")" partial "... isolation partial"
like "$(jget unenforced "$T/diag")" "listen" "... unenforced names 'listen'"

# A root caller's landlock sandbox runs as uid 65534: without CAP_SYS_PTRACE
# (the set Docker and podman give root) its descriptors cannot be taken,
# so the network rules are refused by name, not failed half-way.
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null 2>&1; then
	setpriv --bounding-set=-sys_ptrace "$SBXRUN" --diag fd:3 --backend landlock \
	    --listen 8080 -w "$WD" <"$T/script" >"$T/out" 2>"$T/err" 3>"$T/diag"
	SBX_STATUS=$?
	is_status 125 "root without CAP_SYS_PTRACE, --listen under landlock: 125"
	like "$(jget error "$T/diag")" "cannot enforce: network, listen" "... naming the rule 'listen'"
	unlike "$(output)" "^ran" "... nothing ran"
fi

done_testing
