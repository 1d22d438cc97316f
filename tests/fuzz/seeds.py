#!/usr/bin/env python3
# Writes the hand-made seeds of tests/fuzz/corpus/decode (the layout is
# described at the top of fuzz-decode.c). Run from anywhere; the fuzzer
# adds its own finds next to these.
import os, struct

BASE = 0x10000
AF_UNSPEC, AF_UNIX, AF_INET, AF_INET6 = 0, 1, 2, 10
DOM = {AF_UNIX: 0, AF_INET: 1, AF_INET6: 2, AF_UNSPEC: 3}
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "decode")
os.makedirs(out, exist_ok=True)


def head(op, domain, count=0):
    return struct.pack("<BBQ", op, DOM[domain], count)


def msghdr(name=0, namelen=0, iov=0, iovlen=0, control=0, controllen=0):
    return struct.pack("<QIxxxxQQQQixxxx", name, namelen, iov, iovlen, control, controllen, 0)


def cmsg(length, level, ctype, payload=b""):
    body = struct.pack("<QII", length, level, ctype) + payload
    return body + b"\0" * (-len(body) % 8)


def sendmsg(ctl, name=b"", iovlen=1, domain=AF_UNIX):
    # msghdr at 0, iovec at 64, name at 96, data at 240, control at 256.
    mem = bytearray(512)
    mem[0:56] = msghdr(BASE + 96 if name else 0, len(name), BASE + 64, iovlen,
                       BASE + 256 if ctl else 0, len(ctl))
    mem[64:80] = struct.pack("<QQ", BASE + 240, 4)
    mem[96:96 + len(name)] = name
    mem[240:244] = b"ping"
    mem[256:256 + len(ctl)] = ctl
    return head(0, domain) + bytes(mem)


def sun(path):
    return struct.pack("<H", AF_UNIX) + path


def sin(port=80, addr=b"\x7f\0\0\1"):
    return struct.pack("<H", AF_INET) + struct.pack(">H", port) + addr + b"\0" * 8


def sin6(port=80):
    return struct.pack("<H", AF_INET6) + struct.pack(">H", port) + b"\0" * 4 + b"\0" * 15 + b"\1" + b"\0" * 4


seeds = {
    "rights-ok": sendmsg(cmsg(24, 1, 1, struct.pack("<ii", 3, 4))),
    "rights-short-len": sendmsg(cmsg(8, 1, 1, struct.pack("<ii", 3, 4))),
    "rights-zero-len": sendmsg(cmsg(0, 1, 1, struct.pack("<ii", 3, 4))),
    "rights-past-end": sendmsg(cmsg(1000, 1, 1, struct.pack("<ii", 3, 4))),
    "rights-two": sendmsg(cmsg(20, 1, 1, struct.pack("<i", 5)) + cmsg(24, 1, 1, struct.pack("<ii", 6, 7))),
    "rights-bad-fd": sendmsg(cmsg(20, 1, 1, struct.pack("<i", 10))),
    "credentials": sendmsg(cmsg(28, 1, 2, struct.pack("<iii", 1, 0, 0))),
    "other-level": sendmsg(cmsg(20, 41, 50, struct.pack("<i", 1))),
    "trailing-bytes": sendmsg(cmsg(20, 1, 1, struct.pack("<i", 5)) + b"\1\2\3"),
    "huge-iovlen": sendmsg(b"", iovlen=1 << 40),
    "iovlen-1025": sendmsg(b"", iovlen=1025),
    "name-unix": sendmsg(b"", name=sun(b"/tmp/sock\0")),
    "name-inet": sendmsg(b"", name=sin(), domain=AF_INET),
    "name-inet6": sendmsg(b"", name=sin6(), domain=AF_INET6),
    "addr-unix": head(2, AF_UNIX, 12) + sun(b"/tmp/sock\0"),
    "addr-unix-abstract": head(2, AF_UNIX, 6) + sun(b"\0abc"),
    "addr-unix-long": head(2, AF_UNIX, 128) + sun(b"a" * 126),
    "addr-inet-short": head(2, AF_INET, 8) + sin(),
    "addr-inet": head(2, AF_INET, 16) + sin(),
    "addr-inet6-short": head(2, AF_INET6, 24) + sin6(),
    "addr-bad-family": head(2, AF_INET, 16) + struct.pack("<H", 16) + b"\0" * 14,
    "addr-too-long": head(2, AF_INET, 129) + b"\2" + b"\0" * 200,
    "control-short": head(3, AF_UNIX, 24) + cmsg(4, 1, 1, struct.pack("<ii", 3, 4)),
    "control-ok": head(3, AF_UNIX, 24) + cmsg(24, 1, 1, struct.pack("<ii", 3, 4)),
}
# sendmmsg: two messages, the second with a short control message.
mem = bytearray(1024)
for i, (ctl_len) in enumerate((24, 8)):
    at = i * 64
    mem[at:at + 56] = msghdr(0, 0, BASE + 512, 1, BASE + 600 + i * 32, 24)
    mem[600 + i * 32:600 + i * 32 + 24] = cmsg(ctl_len, 1, 1, struct.pack("<ii", 3, 4))
mem[512:528] = struct.pack("<QQ", BASE + 700, 3)
seeds["mmsg-two"] = head(1, AF_UNIX, 2) + bytes(mem)

for name, data in seeds.items():
    with open(os.path.join(out, name), "wb") as f:
        f.write(data)
