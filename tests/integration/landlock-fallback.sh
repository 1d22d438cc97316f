# The landlock backend where the machine takes features away (sbxrun(1),
# BACKENDS): "auto" falls back to landlock when no user namespace can be made,
# and the jail still holds; Landlock missing is refused with 125 naming the
# rules it leaves unenforced, unless --allow-degraded (isolation partial);
# with neither Landlock nor seccomp, auto runs "none" only when allowed.
#
# The features are taken away from outside, the way a container runtime
# does: sbxrun runs under a seccomp filter (deny.py, below) that makes
# unshare/clone(CLONE_NEWUSER) fail as Docker's default profile does, or
# the landlock_* calls fail with ENOSYS as on a kernel without Landlock.
# sbxrun itself has no test hook for any of this.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

# A root caller's sandbox runs as uid 65534, which must reach the
# workdirs and $TMPDIR below $T.
chmod 711 "$T"

cat >"$T/deny.py" <<'EOF'
# deny.py WHAT[,WHAT..] PROG [ARG]...: runs PROG under a seccomp filter.
#   userns    unshare and clone(CLONE_NEWUSER) fail with EPERM; clone3 with
#             ENOSYS (its flags cannot be inspected; callers fall back)
#   landlock  landlock_create_ruleset/add_rule/restrict_self: ENOSYS
#   seccomp   seccomp() and prctl(PR_SET_SECCOMP): EINVAL (no filters)
import ctypes, os, platform, struct, sys

ARCH = {"x86_64": (0xC000003E, dict(unshare=272, clone=56, clone3=435, seccomp=317, prctl=157)),
        "aarch64": (0xC00000B7, dict(unshare=97, clone=220, clone3=435, seccomp=277, prctl=167))}
if platform.machine() not in ARCH:
    sys.exit(77)
audit_arch, nr = ARCH[platform.machine()]
EPERM, ENOSYS, EINVAL = 1, 38, 22
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
LD_W_ABS, JEQ, JSET, RET = 0x20, 0x15, 0x45, 0x06
prog = []
def ins(code, jt, jf, k):
    prog.append(struct.pack("HBBI", code, jt, jf, k))
def deny(n, errno):
    ins(JEQ, 0, 1, n)
    ins(RET, 0, 0, RET_ERRNO | errno)

what = sys.argv[1].split(",")
ins(LD_W_ABS, 0, 0, 4)                        # seccomp_data.arch
ins(JEQ, 1, 0, audit_arch)
ins(RET, 0, 0, RET_ALLOW)
ins(LD_W_ABS, 0, 0, 0)                        # seccomp_data.nr
if "userns" in what:
    deny(nr["unshare"], EPERM)
    deny(nr["clone3"], ENOSYS)
if "landlock" in what:
    for n in (444, 445, 446):
        deny(n, ENOSYS)
if "seccomp" in what:
    deny(nr["seccomp"], EINVAL)
    ins(JEQ, 0, 4, nr["prctl"])               # not prctl: next block
    ins(LD_W_ABS, 0, 0, 16)                   # args[0], low half
    ins(JEQ, 0, 1, 22)                        # PR_SET_SECCOMP
    ins(RET, 0, 0, RET_ERRNO | EINVAL)
    ins(RET, 0, 0, RET_ALLOW)
if "userns" in what:                          # last: reloads the accumulator
    ins(JEQ, 0, 3, nr["clone"])
    ins(LD_W_ABS, 0, 0, 16)
    ins(JSET, 0, 1, 0x10000000)               # CLONE_NEWUSER
    ins(RET, 0, 0, RET_ERRNO | EPERM)
ins(RET, 0, 0, RET_ALLOW)

buf = ctypes.create_string_buffer(b"".join(prog))
class Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]
fp = Fprog(len(prog), ctypes.addressof(buf))
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(38, 1, 0, 0, 0) != 0 or libc.prctl(22, 2, ctypes.byref(fp), 0, 0) != 0:
    sys.exit(78)                              # PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP
os.execvp(sys.argv[2], sys.argv[2:])
EOF

# denied WHAT ARG...: sbxrun ARG... under the filter (no --backend: auto
# unless ARG says otherwise), the script in $T/script on stdin.
denied() {
	_w=$1
	shift
	"$PY" "$T/deny.py" "$_w" "$SBXRUN" --diag fd:3 "$@" <"$T/script" >"$T/out" 2>"$T/err" 3>"$T/diag"
	SBX_STATUS=$?
}

echo 'exit 0' >"$T/script"
denied userns -- /bin/true
case $SBX_STATUS in
77) skip "no seccomp numbers for $(uname -m) in deny.py" 1; done_testing; exit ;;
78) skip "seccomp filters are not available to install the test's filter" 1; done_testing; exit ;;
esac
"$PY" "$T/deny.py" userns "$PY" -c 'import os; os.unshare(os.CLONE_NEWUSER)' 2>/dev/null
nok "(the test filter makes unshare(CLONE_NEWUSER) fail)" test $? -eq 0
abi=$(host_landlock_abi)
if [ "${abi:-0}" -lt 6 ]; then
	skip "Landlock ABI ${abi:-0} here; these tests need ABI 6 (Linux 6.12) for a full jail" 1
	done_testing
	exit
fi

# --- auto without user namespaces picks landlock, and the jail holds -----------
mkdir -p "$HOME/.ssh"
c_key=$(uniq_tag key)
echo "$c_key" >"$HOME/.ssh/id_rsa"
listener_start
tag=$(uniq_tag marker)
cat >"$T/script" <<EOF
echo inside >made-inside.txt
echo pwned >'$JT/$tag'
echo pwned >'/tmp/$tag'
cat '$HOME/.ssh/id_rsa'
python3 -c 'import socket; s = socket.socket(); s.connect(("127.0.0.1", $LSN_TCP))'
exit 0
EOF
new_wd
denied userns -w "$WD"
is_status 0 "auto, no user namespaces: the script runs (exit 0)"
ok "the diagnostics line is complete" check_diag "$T/diag"
is "$(jget backend)" landlock "auto fell back to backend landlock"
is "$(jget layers.userns)" false "layers.userns is false"
ok "layers.landlock_abi >= 6 ($(jget layers.landlock_abi))" test "$(jget layers.landlock_abi)" -ge 6
is "$(jget layers.seccomp)" true "layers.seccomp is true"
is "$(jget isolation):$(jget unenforced)" "full:[]" "isolation full, nothing unenforced"
is "$(cat "$WD/made-inside.txt" 2>&1)" inside "the workdir is writable"
absent "a marker outside the workdir is not created" "$JT/$tag"
absent "a marker in /tmp is not created" "/tmp/$tag"
unlike "$(output)" "$c_key" "the secret list stays unreadable"
is "$(log_lines)" 0 "no connection reached the host's loopback listener"
"$PY" "$T/deny.py" userns "$SBXRUN" --probe >"$T/probe" 2>/dev/null
is "$(jget auto "$T/probe"):$(jget userns "$T/probe")" "landlock:false" \
    "--probe under the same filter: userns false, auto picks landlock"

# --- no Landlock: refused naming the rules, unless --allow-degraded --------------
echo 'echo ran' >"$T/script"
new_wd
denied landlock --backend landlock -w "$WD"
is_status 125 "--backend landlock without Landlock: refused with 125"
for rule in fs deny protect processes; do
	like "$(jget error)" "$rule" "the error names the rule '$rule'"
done
ok "the diagnostics line of the refusal is complete" check_diag "$T/diag"
unlike "$(output)" "ran" "nothing ran"

cat >"$T/script" <<EOF
echo ran
cat '$HOME/.ssh/id_rsa'
python3 -c 'import socket; s = socket.socket(); s.connect(("127.0.0.1", $LSN_TCP))'
exit 0
EOF
denied landlock --backend landlock --allow-degraded -w "$WD"
is_status 0 "--allow-degraded: it runs"
is "$(jget isolation)" partial "isolation partial"
is "$(jget unenforced)" '["fs","deny","protect","processes"]' \
    "unenforced names fs, deny, protect and processes"
is "$(jget layers.landlock_abi):$(jget layers.seccomp)" "0:true" "layers: no Landlock, seccomp in force"
like "$(output)" "$c_key" "(what is unenforced is really gone: the secret is readable)"
is "$(log_lines)" 0 "what is still enforced holds: network off, no connection reached the host"

new_wd
denied userns,landlock -w "$WD"
is_status 125 "auto with neither user namespaces nor Landlock: refused with 125"
like "$(jget error)" "namespaces" "the error says why namespaces was passed over"
like "$(jget error)" "landlock cannot enforce: fs" "... and which rules landlock cannot enforce"
denied userns,landlock --allow-degraded -w "$WD"
is "$(jget backend):$(jget isolation)" "landlock:partial" \
    "auto --allow-degraded: landlock with isolation partial (network and seccomp still hold)"

# --- neither Landlock nor seccomp filters ---------------------------------------
new_wd
denied landlock,seccomp --backend landlock -w "$WD"
is_status 125 "--backend landlock with neither Landlock nor seccomp: 125"
like "$(jget error)" "unavailable" "the error says the backend is unavailable"
denied userns,landlock,seccomp -w "$WD"
is_status 125 "auto with nothing usable: 125"
echo 'echo ran' >"$T/script"
denied userns,landlock,seccomp --allow-degraded -w "$WD"
is_status 0 "auto --allow-degraded with nothing usable: runs"
is "$(jget backend):$(jget isolation)" "none:none" "backend none, isolation none"
like "$(jget warnings)" "no isolating backend" "a warning says there is no jail"

done_testing
