# seccomp rules compare int arguments on their low 32 bits only (issue 9,
# finding 7). The kernel reads an int argument from the low half of its
# register and ignores the rest; a rule that compares all 64 bits lets
# socket(AF_INET, SOCK_STREAM, 1 << 32 | IPPROTO_MPTCP) through as "not
# MPTCP", and the kernel then makes an MPTCP socket, which Landlock's TCP
# port rules do not see. Each rule family is tried with high bits set, by
# raw syscall(); the MPTCP verdict is read on the remote host's log (it
# must log nothing), the rest from the refusals. Run for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
R4=$NET_REMOTE4

refused() {
	[ -n "$1" ] && [ "$1" != OK ]
}

cat >"$NETWD/hi.py" <<'PYEOF'
# hi.py mptcp TAG HOST PORT | others
import ctypes, errno, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
HI = 1 << 32
L = ctypes.c_long
def res(tag, r):
    if r < 0:
        e = ctypes.get_errno()
        print("R:%s:%s" % (tag, errno.errorcode.get(e, e)), flush=True)
    else:
        print("R:%s:OK" % tag, flush=True)
    return r
SYS_socket, SYS_connect, SYS_ioctl, SYS_personality = 41, 42, 16, 135
if sys.argv[1] == "mptcp":
    tag, host, port = sys.argv[2], sys.argv[3], int(sys.argv[4])
    fd = res("mptcp_hi", libc.syscall(L(SYS_socket), L(2), L(1), L(HI | 262)))
    if fd >= 0:
        sin = struct.pack("<H", 2) + struct.pack(">H", port) + bytes(map(int, host.split("."))) + b"\0" * 8
        if res("mptcp_hi_connect", libc.syscall(L(SYS_connect), L(fd), ctypes.c_char_p(sin), L(16))) >= 0:
            libc.send(fd, (tag + "\n").encode(), len(tag) + 1, 0)
            libc.recv(fd, ctypes.create_string_buffer(64), 64, 0)
else:
    # The other families: domain, type, protocol, ioctl request, personality.
    for tag, args in (("netlink_hi", (HI | 16, 3, 0)), ("packet_hi", (HI | 17, 3, 0x300)),
                      ("raw_hi", (2, HI | 3, 1)), ("sctp_hi", (2, 1, HI | 132)),
                      ("dccp_hi", (2, 6, HI | 33)), ("mptcp6_hi", (10, 1, HI | 262))):
        fd = res(tag, libc.syscall(L(SYS_socket), *[L(a) for a in args]))
        if fd >= 0:
            libc.close(fd)
    c = ctypes.c_char(b"x")
    res("tiocsti_hi", libc.syscall(L(SYS_ioctl), L(0), L(HI | 0x5412), ctypes.byref(c)))
    res("personality_hi", libc.syscall(L(SYS_personality), L(HI | 0x0040000)))
    print("R:done:OK", flush=True)
PYEOF
chmod 644 "$NETWD/hi.py"

# Control: outside, the high-bit socket is an MPTCP one that connects.
rl_mark
tag=$(uniq_tag mptcp)
(cd "$NETWD" && "$PY" hi.py mptcp "$tag" "$R4" 8001) >"$T/control" 2>&1
if ! ok "control: a 1<<32|MPTCP socket connects from outside" wait_for "rl_has '$tag'" 20; then
	diag "outside: $(cat "$T/control")"
fi
net_settle

for mode in "--network on" "--network off"; do
	m=${mode#--network }
	rl_mark
	tag=$(uniq_tag mptcp)
	# shellcheck disable=SC2086
	jail -w "$NETWD" $mode -- python3 hi.py mptcp "$tag" "$R4" 8001
	# A fence of this machine's on 8001: a connection that got through is
	# logged before it (net_fence).
	net_fence tcp:8001
	if ! ok "network $m: the remote host logs nothing from a 1<<32|MPTCP socket" \
	    [ ! -s "$T/rl.step" ]; then
		diag "remote log since the mark, less the fence:" "$(head -n 20 "$T/rl.step")"
		diag "$(output)"
	fi
	r=$(res_of mptcp_hi)
	ok "network $m: socket(AF_INET, SOCK_STREAM, 1<<32|IPPROTO_MPTCP) is refused ($r)" \
	    refused "$r"

	# shellcheck disable=SC2086
	jail -w "$NETWD" $mode -- python3 hi.py others </dev/null
	is "$(res_of done)" OK "network $m: the high-bit prober ran"
	for s in netlink_hi packet_hi raw_hi sctp_hi dccp_hi mptcp6_hi; do
		r=$(res_of "$s")
		ok "network $m: $s is refused ($r)" refused "$r"
	done
	# Unfiltered, these would give ENOTTY (stdin is /dev/null) and OK.
	is "$(res_of tiocsti_hi)" EPERM "network $m: TIOCSTI with high bits is refused by the filter"
	is "$(res_of personality_hi)" EPERM "network $m: ADDR_NO_RANDOMIZE with high bits is refused"
	net_settle
done

done_testing
