# --network on and UDP (sbxrun(1), NETWORK). Under namespaces the jail's
# datagrams leave through the UDP relay behind its tun device
# (doc/design/udp-relay.md), which is what lets sendmsg() and sendmmsg()
# go untrapped there: no datagram socket of the host is ever handed in.
# This checks that UDP still works both ways (sendto, sendmsg, connect
# and send, sendmmsg; IPv4 and IPv6), and attacks the relay: every
# service of this machine (127.0.0.1, ::1 and each of its own addresses)
# must log nothing whatever call sends to it, also from a socket that is
# connected to the remote host or that took one's place with dup2(); odd
# packets (IP options, fragments, zero-length datagrams, more flows than
# the relay keeps, raw sockets) must not stop it, and the run must end
# normally. Verdicts: the remote host's log, the host listeners' log and
# the diagnostics line. Run for $SBX_BACKEND (landlock: the same promises,
# kept there by trapping every send).
. "$(dirname "$0")/net-lib.sh"

net_fixture
hostlsn_start || net_abort "the host listeners" "they did not start"

# This machine's addresses the client can spell (no link-local scope).
LOCALS=$(host_addrs | grep -v % | tr '\n' ' ')
diag "this machine: $LOCALS"

cat >"$NETWD/udprelay.py" <<'PY'
import ctypes, errno, os, socket, struct, sys
r4, r6, hlport = sys.argv[1], sys.argv[2], int(sys.argv[3])
locals_ = sys.argv[4].split()
libc = ctypes.CDLL(None, use_errno=True)

def out(tag, f):
    try:
        r = f()
        print("R:%s:OK%s" % (tag, "" if r is None else " " + str(r)), flush=True)
    except OSError as e:
        print("R:%s:%s" % (tag, errno.errorcode.get(e.errno, e.errno)), flush=True)

def fam(h):
    return socket.AF_INET6 if ":" in h else socket.AF_INET

# A late echo of the flood below may reach a later socket that was given
# a closed flood socket's port (plain UDP does the same): skipped.
def echo(s, wait=20):
    s.settimeout(wait)   # a hang guard: ends as soon as the echo is in
    try:
        while True:
            d = s.recv(70000)
            if d != b"flood\n":
                return "echo=" + d[:40].decode(errors="replace").strip()
    except OSError:
        return "noecho"

class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
class msghdr(ctypes.Structure):
    _fields_ = [("name", ctypes.c_void_p), ("namelen", ctypes.c_uint32),
                ("iov", ctypes.POINTER(iovec)), ("iovlen", ctypes.c_size_t),
                ("control", ctypes.c_void_p), ("controllen", ctypes.c_size_t),
                ("flags", ctypes.c_int)]
class mmsghdr(ctypes.Structure):
    _fields_ = [("hdr", msghdr), ("len", ctypes.c_uint)]

def sockaddr(h, port):
    if ":" in h:
        return struct.pack("=HHI16sI", socket.AF_INET6, socket.htons(port), 0,
                           socket.inet_pton(socket.AF_INET6, h), 0)
    return struct.pack("=HH4s8x", socket.AF_INET, socket.htons(port),
                       socket.inet_pton(socket.AF_INET, h))

def sendmmsg(s, h, port, data):
    # Two messages, both addressed: the kernel's sendmmsg, through libc.
    name = ctypes.create_string_buffer(sockaddr(h, port))
    buf = ctypes.create_string_buffer(data)
    iov = iovec(ctypes.cast(buf, ctypes.c_void_p), len(data))
    msgs = (mmsghdr * 2)()
    for m in msgs:
        m.hdr.name = ctypes.cast(name, ctypes.c_void_p)
        m.hdr.namelen = len(name.raw)
        m.hdr.iov = ctypes.pointer(iov)
        m.hdr.iovlen = 1
    n = libc.sendmmsg(s.fileno(), msgs, 2, 0)
    if n < 0:
        raise OSError(ctypes.get_errno(), "sendmmsg")
    return n

# UDP works: to the remote's echo, four ways, each family.
for h, v in ((r4, "4"), (r6, "6")):
    s = socket.socket(fam(h), socket.SOCK_DGRAM)
    out("to" + v, lambda: (s.sendto(b"to%s\n" % v.encode(), (h, 7007)), echo(s))[1])
    s = socket.socket(fam(h), socket.SOCK_DGRAM)
    out("msg" + v, lambda: (s.sendmsg([b"msg%s\n" % v.encode()], [], 0, (h, 7007)), echo(s))[1])
    s = socket.socket(fam(h), socket.SOCK_DGRAM)
    out("con" + v, lambda: (s.connect((h, 7007)), s.send(b"con%s\n" % v.encode()), echo(s))[2])
    s = socket.socket(fam(h), socket.SOCK_DGRAM)
    out("mm" + v, lambda: (sendmmsg(s, h, 7007, b"mm%s\n" % v.encode()), echo(s))[1])
# IPv4 through a dual-stack socket (an IPv4-mapped address).
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
out("mapped", lambda: (s.sendmsg([b"mapped\n"], [], 0, ("::ffff:" + r4, 7007)), echo(s))[1])

# This machine's services: every call, every address.
for i, h in enumerate(locals_):
    t = "l%d" % i
    s = socket.socket(fam(h), socket.SOCK_DGRAM)
    out(t + "to", lambda: s.sendto(b"%sto\n" % t.encode(), (h, hlport)))
    s = socket.socket(fam(h), socket.SOCK_DGRAM)
    out(t + "msg", lambda: s.sendmsg([b"%smsg\n" % t.encode()], [], 0, (h, hlport)))
    s = socket.socket(fam(h), socket.SOCK_DGRAM)
    out(t + "mm", lambda: sendmmsg(s, h, hlport, b"%smm\n" % t.encode()))
    s = socket.socket(fam(h), socket.SOCK_DGRAM)
    out(t + "con", lambda: (s.connect((h, hlport)), s.send(b"%scon\n" % t.encode())))
    # A socket connected to the remote, then an address of this machine.
    s = socket.socket(fam(h), socket.SOCK_DGRAM)
    rh = r4 if fam(h) == socket.AF_INET else r6
    out(t + "cmsg", lambda: (s.connect((rh, 7007)), s.sendmsg([b"%scmsg\n" % t.encode()], [], 0, (h, hlport))))
    # dup2: a socket that reached the remote takes another's number.
    a = socket.socket(fam(h), socket.SOCK_DGRAM)
    b = socket.socket(fam(h), socket.SOCK_DGRAM)
    b.sendto(b"warm\n", (rh, 7007))
    os.dup2(b.fileno(), a.fileno())
    out(t + "dup", lambda: a.sendmsg([b"%sdup\n" % t.encode()], [], 0, (h, hlport)))
    out(t + "dupm", lambda: sendmmsg(a, h, hlport, b"%sdupm\n" % t.encode()))

# Odd packets: none may stop the relay.
out("raw", lambda: socket.socket(socket.AF_INET, socket.SOCK_RAW, socket.IPPROTO_UDP))
out("packet", lambda: socket.socket(17, socket.SOCK_RAW, 0))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
# IP options (a record-route option): a longer IPv4 header.
out("ipopt", lambda: (s.setsockopt(socket.IPPROTO_IP, socket.IP_OPTIONS, bytes([7, 7, 4, 0, 0, 0, 0, 1])),
                      s.sendto(b"ipopt\n", (r4, 7007)), echo(s))[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
out("empty", lambda: s.sendto(b"", (r4, 7007)))
s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM)
out("frag6", lambda: s.sendto(b"f" * 65500, (r6, 7007)))
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
out("big4", lambda: (s.sendto(b"big4\n" + b"b" * 60000, (r4, 7007)), echo(s))[1])
# More flows than the relay keeps at once.
socks = []
for i in range(400):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.setblocking(False)
    try:
        s.sendto(b"flood\n", (r4, 7007))
    except OSError:
        pass
    socks.append(s)
for s in socks:
    s.close()
# And still a working relay after all that. The flood may still fill
# the remote echo's receive buffer (under landlock every one of the 400
# reaches it), which drops datagrams as UDP may: "after" is sent again
# until an echo comes back, five times at most.
def after(s):
    for _ in range(5):
        s.sendmsg([b"after\n"], [], 0, (r4, 7007))
        r = echo(s, 4)
        if r != "noecho":
            return r
    return "noecho"
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
out("after", lambda: after(s))
print("R:done:OK", flush=True)
PY
chmod 644 "$NETWD/udprelay.py"

rl_mark
hl_mark
jail -v --network on -w "$NETWD" -- python3 udprelay.py "$NET_REMOTE4" "$NET_REMOTE6" "$HL_UDP" "$LOCALS"
is_status 0 "udp: the client ran, and the run ended normally"
like "$(cat "$T/out")" "R:done:OK" "udp: every attempt returned"
is "$(jget error)" "null" "udp: the diagnostics line reports no error"
# A fence of this machine's on the remote echo and the host listener
# (net_fence): whatever the sandbox got through is logged before it.
net_fence udp hludp
for v in 4 6; do
	from=$NET_LOCAL4
	[ $v = 6 ] && from=$NET_LOCAL6
	for k in to msg con mm; do
		ok "udp: $k$v reached the remote echo (logged there)" rl_got udp 7007 "$from" "$k$v"
		like "$(res_of "$k$v")" "echo=$k$v" "udp: ... and its echo came back (second opinion)"
	done
done
ok "udp: a dual-stack socket reaches the remote over IPv4" rl_got udp 7007 "$NET_LOCAL4" mapped
like "$(res_of mapped)" "echo=mapped" "udp: ... and gets the echo"
cp "$T/hl.step" "$T/hl.new"
i=0
for a in $LOCALS; do
	for k in to msg mm con cmsg dup dupm; do
		nok "udp: $k to $a (a host listener) logged nothing" grep -qF "b'l$i$k\\n'" "$T/hl.new"
	done
	i=$((i + 1))
done
is "$(cat "$T/hl.new")" "" "udp: no service of this machine logged anything at all"
# -v: a line for each refusal as it happens, the relay's own included
# (it judges a flow on its thread, under a filter of its own, and the
# remote's echo of "after" says every datagram before it was judged).
vlines=$(grep -ac '^sbxrun: denied ' "$T/err")
ok "udp -v: the refusals were counted" [ "$(jget denials)" -gt 0 ]
is "$vlines" "$(jget denials)" "udp -v: one line per denial, the relay's included"
for a in $LOCALS; do
	# The jail's own loopback under namespaces: nothing to refuse.
	case $a in
	127.* | ::1) continue ;;
	*:*) w="[$a]:$HL_UDP" ;;
	*) w="$a:$HL_UDP" ;;
	esac
	like "$(grep -a '^sbxrun: denied send ' "$T/err")" "denied send $w (" "udp -v: a send to $a said"
done
is "$(res_of raw)" EPERM "udp: a raw socket cannot be made in the jail"
is "$(res_of packet)" EAFNOSUPPORT "udp: nor a packet socket"
ok "udp: a datagram with IP options reached the remote" rl_got udp 7007 "$NET_LOCAL4" ipopt
ok "udp: a 60000-byte datagram reached the remote" rl_has "b'big4\\nbbbb"
ok "udp: after fragments, an empty datagram and a flood of flows the relay still works" \
    rl_got udp 7007 "$NET_LOCAL4" after
like "$(res_of after)" "echo=after" "udp: ... both ways"
diag "results: $(sed -n 's/^R://p' "$T/out" | cut -c1-60 | tr '\n' ' ')"
done_testing
