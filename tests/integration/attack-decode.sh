# A hostile sandbox against the supervisor's decoding of what it copies
# out of trapped calls (issue 9, finding 5). An SCM_RIGHTS control
# message whose cmsg_len is below CMSG_LEN(0) made the supervisor compute
# a wrapped descriptor count, read past its copy of the control buffer
# and write its own descriptor numbers past it: sbxrun aborted, with no
# exit status of the script's and no JSON line. Judged from the host:
# sbxrun's own status is the script's, and the diagnostics line is there
# and is JSON. Also tried: cmsg_len past the buffer, a huge iovlen, a
# control length over the bound, and sendmmsg with the same messages.
# Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

cat >"$WD/cmsg.py" <<'PYEOF'
# cmsg.py: sendmsg and sendmmsg with malformed control messages on a unix
# socket pair, by raw libc calls (Python's own sendmsg builds them well).
import ctypes, errno, os, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
# Many open descriptors: every small number the supervisor might read
# past the buffer names one, so a missing bound shows as an overflow.
for fd in range(3, 600):
    try:
        os.dup2(0, fd)
    except OSError:
        break
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
keep = []
def buf(data):
    s = ctypes.create_string_buffer(data, len(data))
    keep.append(s)
    return ctypes.addressof(s)
def msghdr(ctl, iovlen=1, ctllen=None):
    iov = buf(struct.pack("<QQ", buf(b"ping"), 4))
    c = buf(ctl) if ctl else 0
    return struct.pack("<QIxxxxQQQQixxxx", 0, 0, iov, iovlen, c,
                       len(ctl) if ctllen is None else ctllen, 0)
def res(tag, r):
    e = ctypes.get_errno() if r < 0 else 0
    print("R:%s:%s" % (tag, errno.errorcode.get(e, e) if r < 0 else "OK"), flush=True)
fds = struct.pack("<i", 0) * 64
cases = [
    ("short_len", msghdr(struct.pack("<QII", 8, 1, 1) + fds)),
    ("zero_len", msghdr(struct.pack("<QII", 0, 1, 1) + fds)),
    ("len_12", msghdr(struct.pack("<QII", 12, 1, 1) + fds)),
    ("past_end", msghdr(struct.pack("<QII", 4096, 1, 1) + fds)),
    ("huge_iovlen", msghdr(b"", iovlen=1 << 40)),
    ("huge_ctllen", msghdr(struct.pack("<QII", 20, 1, 1) + fds, ctllen=1 << 40)),
]
for tag, m in cases:
    for i in range(20):
        ctypes.set_errno(0)
        r = libc.sendmsg(a.fileno(), ctypes.c_char_p(m), 0)
    res(tag, r)
    mm = m + b"\0" * 8
    r = libc.sendmmsg(a.fileno(), ctypes.c_char_p(mm + mm), 2, 0)
    res("mmsg_" + tag, r)
# A good one still passes a descriptor.
r = libc.sendmsg(a.fileno(), ctypes.c_char_p(msghdr(struct.pack("<QIIi", 20, 1, 1, 0) + b"\0" * 4)), 0)
res("good", r)
print("R:done:OK", flush=True)
sys.exit(7)
PYEOF
chmod 644 "$WD/cmsg.py"

for net in "--connect 8001" "--network on"; do
	# shellcheck disable=SC2086
	jail -w "$WD" $net -- python3 cmsg.py
	if ! is_status 7 "$net: sbxrun exits with the script's status after malformed cmsgs"; then
		diag "$(output | tail -n 20)"
	fi
	ok "$net: the diagnostics line is there and is JSON" json_line "$T/diag"
	is "$(jget exit_code)" 7 "$net: it reports the script's exit code"
	is "$(sed -n 's/^R:done://p' "$T/out")" OK "$net: the attack ran to its end"
	for c in short_len zero_len len_12 past_end; do
		r=$(sed -n "s/^R:$c://p" "$T/out")
		is "$r" EINVAL "$net: sendmsg with cmsg $c is EINVAL, as the kernel says"
	done
	is "$(sed -n 's/^R:huge_iovlen://p' "$T/out")" EMSGSIZE "$net: a huge iovlen is EMSGSIZE"
	is "$(sed -n 's/^R:good://p' "$T/out")" OK "$net: a well-formed SCM_RIGHTS message still passes"
done

done_testing
