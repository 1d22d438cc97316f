# System calls newer than the libseccomp sbxrun is built with: it knows
# them by no name, so a rule written for their older siblings did not
# reach them (linux-seccomp.c, "newer"). setxattrat(2) and
# removexattrat(2) (Linux 6.13) did what setxattr(2) and removexattr(2)
# are trapped for: under landlock, which judges no attribute call, the
# sandbox gave a file of its uid outside every rule the ACL
# "u::rwx,g::rwx,o::rwx" (its mode 0777), set a user.* attribute and
# removed one. Each is now refused with ENOSYS, as every number past the
# newest call the filter knows, up to 479. (Under namespaces the file lies
# on a read-only mount: EROFS before.)
# Verdicts on the host: the file's mode and attributes after the run.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=4
f=$(outside_file 600)
"$PY" -c 'import os, sys; os.setxattr(sys.argv[1], "user.keep", b"1")' "$f"
cat >"$WD/calls.py" <<'EOF'
import ctypes, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
f = sys.argv[1].encode()
class Args(ctypes.Structure):
    _fields_ = [("value", ctypes.c_uint64), ("size", ctypes.c_uint32), ("flags", ctypes.c_uint32)]
def setat(name, blob):
    buf = ctypes.create_string_buffer(blob, len(blob))
    a = Args(ctypes.addressof(buf), len(blob), 0)
    r = libc.syscall(ctypes.c_long(463), ctypes.c_long(-100), f, ctypes.c_uint(0), name,
                     ctypes.byref(a), ctypes.c_size_t(ctypes.sizeof(a)))
    return r, ctypes.get_errno()
acl = struct.pack("<I", 2) + b"".join(struct.pack("<HHI", t, 7, 0xFFFFFFFF) for t in (1, 4, 0x20))
print("setxattrat acl", *setat(b"system.posix_acl_access", acl))
print("setxattrat user", *setat(b"user.sbx", b"x"))
r = libc.syscall(ctypes.c_long(466), ctypes.c_long(-100), f, ctypes.c_uint(0), b"user.keep")
print("removexattrat", r, ctypes.get_errno())
EOF
jail_sh "python3 calls.py '$f'" --fs open -w "$WD"
diag "$(cat "$T/out" "$T/err" 2>/dev/null)"
is "$SBX_STATUS" 0 "the calls ran"
is "$(stat -c %a "$f")" 600 "setxattrat: no ACL changed the mode of a file outside the writable tree"
is "$("$PY" -c 'import os, sys; print(sorted(os.listxattr(sys.argv[1])))' "$f")" "['user.keep']" \
    "setxattrat, removexattrat: its attributes are as they were"
like "$(cat "$T/out")" "setxattrat acl -1 38" "setxattrat is refused with ENOSYS"
done_testing
