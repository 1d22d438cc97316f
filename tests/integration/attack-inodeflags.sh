# A file's inode flags are its owner's to set (chattr(1): no dump, no
# atime, sync...), through an ioctl on any descriptor of it, even one
# opened for reading; Landlock judges no ioctl of a regular file. Under
# landlock the sandbox set FS_NODUMP_FL on a file of its uid outside every
# writable tree (for a non-root caller: anywhere in the caller's home,
# which backups then skip). FS_IOC_SETFLAGS, its 32-bit form and
# FS_IOC_FSSETXATTR now fail with EPERM in every jail (under namespaces
# such a file lies on a read-only mount: EROFS before).
# Verdict on the host: the file's flags after the run.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=3
f=$(outside_file 644)
cat >"$T/flags.py" <<'EOF'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
print(struct.unpack("l", fcntl.ioctl(fd, 0x80086601, bytes(8)))[0])  # FS_IOC_GETFLAGS
EOF
before=$("$PY" "$T/flags.py" "$f")
cat >"$WD/set.py" <<'EOF'
import fcntl, os, struct, sys
fd = os.open(sys.argv[1], os.O_RDONLY)
flags = struct.unpack("l", fcntl.ioctl(fd, 0x80086601, bytes(8)))[0]
for name, req in (("setflags", 0x40086602), ("setflags32", 0x40046602)):
    try:
        fcntl.ioctl(fd, req, struct.pack("l", flags | 0x40))  # FS_NODUMP_FL
        print(name, "set")
    except OSError as e:
        print(name, "refused", e.errno)
EOF
jail_sh "python3 set.py '$f'" --fs open -w "$WD"
diag "$(cat "$T/out" "$T/err" 2>/dev/null)"
is "$SBX_STATUS" 0 "the calls ran"
is "$("$PY" "$T/flags.py" "$f")" "$before" "no inode flag changed on a file outside the writable tree"
like "$(cat "$T/out")" "setflags refused 1" "FS_IOC_SETFLAGS fails with EPERM"
done_testing
