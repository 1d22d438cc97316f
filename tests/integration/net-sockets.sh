# The sockets and syscalls that never work inside (sbxrun(1), NETWORK;
# doc/design/network.md): raw, packet and netlink-route sockets, SCTP, DCCP and MPTCP
# (which Landlock's TCP rules do not see), UDP-Lite, io_uring (a full bypass of any
# seccomp network rule), and syscalls of a foreign architecture (int 0x80
# on x86-64 skips an x86-64-only filter). Tried with the network fully
# off and with it on, where the supervisor is in charge. Host-side
# verdicts: the remote host logs nothing from an MPTCP or an int 0x80
# connect (which do get through from outside: the controls), no network
# interface appears on this machine, and the int 0x80 caller is killed
# (SIGSYS, seen by sbxrun). Run for $SBX_BACKEND.
. "$(dirname "$0")/net-lib.sh"

net_fixture
R4=$NET_REMOTE4

cat >"$NETWD/kern.py" <<'EOF'
# kern.py sockets | uring | i386 HOST PORT
import ctypes, errno, socket, struct, sys
libc = ctypes.CDLL(None, use_errno=True)
def res(tag, r):
    if r < 0:
        e = ctypes.get_errno()
        print("R:%s:%s" % (tag, errno.errorcode.get(e, e)), flush=True)
    else:
        print("R:%s:OK" % tag, flush=True)
NB, CX = 0o4000, 0o2000000
socks = [
    ("raw_icmp", 2, 3, 1), ("raw_tcp", 2, 3, 6), ("raw_icmp6", 10, 3, 58),
    ("raw_cloexec", 2, 3 | CX, 1), ("packet_raw", 17, 3, 0x0300), ("packet_dgram", 17, 2, 0x0300),
    ("inet_packet", 2, 10, 0x0300), ("netlink_route", 16, 3, 0), ("netlink_route_dgram", 16, 2, 0),
    ("netlink_diag", 16, 3, 4), ("sctp_stream", 2, 1, 132), ("sctp_seqpacket", 2, 5, 132),
    ("sctp6", 10, 1, 132), ("mptcp4", 2, 1, 262), ("mptcp6", 10, 1, 262),
    ("mptcp_flags", 2, 1 | NB | CX, 262), ("dccp", 2, 6, 33), ("vsock", 40, 1, 0),
    ("alg", 38, 5, 0), ("pfkey", 15, 3, 2), ("bluetooth", 31, 3, 0), ("xdp", 44, 3, 0),
    ("udplite4", 2, 2, 136), ("udplite6", 10, 2, 136),
]
if sys.argv[1] == "sockets":
    for tag, f, t, p in socks:
        fd = libc.socket(f, t, p)
        res(tag, fd)
        if fd >= 0:
            libc.close(fd)
    # Ordinary sockets still work: the refusals above are not blanket ones.
    for tag, f, t, p in (("tcp4", 2, 1, 0), ("udp6", 10, 2, 0), ("ping", 2, 2, 1)):
        fd = libc.socket(f, t, p)
        res(tag, fd)
        if fd >= 0:
            libc.close(fd)
elif sys.argv[1] == "uring":
    params = ctypes.create_string_buffer(120)
    fd = libc.syscall(425, 8, params)
    res("io_uring_setup", fd)
    res("io_uring_enter", libc.syscall(426, fd if fd >= 0 else 0, 0, 0, 0, None, 0))
    res("io_uring_register", libc.syscall(427, fd if fd >= 0 else 0, 0, None, 0))
elif sys.argv[1] == "i386":
    # socket() and connect() by int 0x80, the i386 entry: numbers 359 and
    # 362, arguments in ebx/ecx/edx, memory below 4 GiB (MAP_32BIT).
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    page = libc.mmap(None, 4096, 7, 0x2 | 0x20 | 0x40, -1, 0)
    if page in (None, ctypes.c_void_p(-1).value):
        res("mmap", -1)
        sys.exit(1)
    sa = struct.pack("<H", 2) + struct.pack("!H", int(sys.argv[3])) + \
        socket.inet_aton(sys.argv[2]) + b"\0" * 8
    imm = lambda v: struct.pack("<I", v & 0xffffffff)
    code = (b"\x53" + b"\xb8" + imm(359) + b"\xbb" + imm(2) + b"\xb9" + imm(1) +
            b"\x31\xd2" + b"\xcd\x80" + b"\x89\xc3" + b"\xb8" + imm(362) +
            b"\xb9" + imm(page + 256) + b"\xba" + imm(16) + b"\xcd\x80" + b"\x5b\xc3")
    ctypes.memmove(page, code, len(code))
    ctypes.memmove(page + 256, sa, len(sa))
    print("R:i386:started", flush=True)
    r = ctypes.CFUNCTYPE(ctypes.c_int)(page)()
    print("R:i386:%s" % ("OK" if r == 0 else errno.errorcode.get(-r, r)), flush=True)
EOF
chmod 644 "$NETWD/kern.py"

refused_socks="raw_icmp raw_tcp raw_icmp6 raw_cloexec packet_raw packet_dgram inet_packet \
netlink_route netlink_route_dgram netlink_diag sctp_stream sctp_seqpacket sctp6 mptcp4 mptcp6 \
mptcp_flags dccp vsock alg pfkey bluetooth xdp udplite4 udplite6"

# Controls: outside, io_uring and the i386 entry work, and MPTCP connects.
(cd "$NETWD" && "$PY" kern.py sockets && "$PY" kern.py uring) >"$T/control" 2>&1
diag "outside: $(sed -n 's/^R://p' "$T/control" | tr '\n' ' ')"
rl_mark
(cd "$NETWD" && "$PY" kern.py i386 "$R4" 8002) >"$T/control.i386" 2>&1
# Whether the kernel runs i386 syscalls is the client's own word (its
# connect returned 0); the remote host's log, which may come late on a
# busy machine, then confirms it (waited for, not slept on).
I386=
if grep -q '^R:i386:OK$' "$T/control.i386"; then
	I386=yes
	ok "control: socket+connect by int 0x80 reach the remote host from outside" \
	    wait_for "rl_has 'tcp 8002 from $NET_LOCAL4:'" 20
else
	diag "outside, int 0x80 gave: $(cat "$T/control.i386")"
fi
netc_bare mptcp,c,"$R4",8003
ok "control: MPTCP reaches the remote host from outside" \
    wait_for "rl_got data 8003 '$NET_LOCAL4' c" 20
net_settle

for mode in "--network off" "--network on"; do
	m=${mode#--network }
	# shellcheck disable=SC2086
	jail -w "$NETWD" $mode -- python3 kern.py sockets
	is_status 0 "network $m: the socket prober ran"
	for s in $refused_socks; do
		r=$(res_of "$s")
		ok "network $m: no $s socket ($r)" test -n "$r" -a "$r" != OK
	done
	if [ "$m" = on ]; then
		is "$(res_of tcp4) $(res_of udp6)" "OK OK" "network on: TCP and UDP sockets can still be made"
	fi

	# shellcheck disable=SC2086
	jail -w "$NETWD" $mode -- python3 kern.py uring
	for c in io_uring_setup io_uring_enter io_uring_register; do
		is "$(res_of $c)" EPERM "network $m: $c is refused (EPERM)"
	done

	rl_mark
	# shellcheck disable=SC2086
	netc $mode -- mptcp,m,"$R4",8001 mptcp,m6,"$NET_REMOTE6",8001
	net_fence tcp:8001
	is "$(cat "$T/rl.step")" "" "network $m: MPTCP connects log nothing on the remote host"

	# A network interface made inside would be this machine's (no net
	# namespace with the network on).
	ifname=sbxt$$$(echo "$m" | cut -c2)
	# shellcheck disable=SC2086
	jail $mode -- ip link add "$ifname" type dummy
	ok "network $m: 'ip link add' fails inside" [ "$SBX_STATUS" -ne 0 ]
	nok "network $m: no interface $ifname appeared on this machine" \
	    sh -c 'ip link show "$1" >/dev/null 2>&1' sh "$ifname"

	if [ -n "$I386" ]; then
		rl_mark
		# shellcheck disable=SC2086
		jail -w "$NETWD" $mode -- python3 kern.py i386 "$R4" 8002
		net_fence tcp:8002
		is "$(cat "$T/rl.step")" "" "network $m: socket+connect by int 0x80 log nothing on the remote host"
		is "$(jget signal)" SIGSYS "network $m: the int 0x80 caller is killed by SIGSYS"
		is "$SBX_STATUS" 159 "network $m: sbxrun exits 128+SIGSYS"
		unlike "$(cat "$T/out")" "R:i386:OK" "network $m: its connect never returned success"
	else
		skip "the kernel runs no i386 syscalls (int 0x80 failed outside: no IA32 emulation)" 4
	fi
done

done_testing
