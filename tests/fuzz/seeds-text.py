#!/usr/bin/env python3
# Writes the hand-made seeds of the text targets' corpora (profile, cli,
# roundtrip, hostmatch, seatbelt, json, proxy, mounttab) under
# tests/fuzz/corpus/,
# from the shipped profiles, the flags the unit tests use, and requests
# from the proxy tests. Each seed is named seed-*; the fuzzer adds its own
# finds next to them. Run from anywhere.
import glob, os, re

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.dirname(os.path.dirname(here))


def put(target, name, data):
    d = os.path.join(here, "corpus", target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, "seed-" + name), "wb") as f:
        f.write(data)


profiles = {}
for path in sorted(glob.glob(os.path.join(top, "profiles", "*.ini"))):
    with open(path, "rb") as f:
        profiles[os.path.basename(path)[:-4]] = f.read()

# Lines around inih's 200-byte buffer, and the forms the reader must read
# the same whatever their length.
long_lines = {
    "long-value": b"[read]\npath = /" + b"a" * 300 + b"\n",
    "long-comment": b"; " + b"c" * 400 + b"\n[sandbox]\nfs = open\n",
    "long-key": b"[env]\n" + b"K" * 250 + b" = v\n",
    "key-semicolon-long": b"[env]\nA ;" + b"x" * 250 + b" = v\n",
    "key-semicolon": b"[env]\nA ;x = v\n",
    "value-semicolon": b"[env]\nA =;v\n",
    "value-semicolon-long": b"[env]\nA =;" + b"v" * 250 + b"\n",
    "edge-199": b"[env]\nA = " + b"v" * 189 + b"\n",
    "edge-200": b"[env]\nA = " + b"v" * 190 + b"\n",
    "edge-201": b"[env]\nA = " + b"v" * 191 + b"\n",
    "mount-equals": b"[mount]\na=b = /srv/x:ro\n",
    "crlf": b"[sandbox]\r\nfs = open\r\nnetwork = on\r\n",
    "bom": b"\xef\xbb\xbf[sandbox]\nfs = strict\n",
    "section-comment": b"[sandbox] ; c\nfs = open # not a comment\n",
}
for name, text in list(profiles.items()) + list(long_lines.items()):
    put("profile", name, text)
    put("roundtrip", name, text)
for name, text in profiles.items():
    put("seatbelt", name, text + b"\0/Users/alice/proj\n/Users/alice/.ssh\n/etc/sudoers\n")
put("seatbelt", "quotes", b"[sandbox]\nfs = allowlist\n[read]\npath = /a\"b\\c\n"
    b"\0/Users/al\"ice/proj\n/Users/alice/.ss\\h\n/tmp/x/../y\n")
put("seatbelt", "mounts", b"[mount]\nlib = /opt/lib:rw\n[protect]\npath = .envrc\n"
    b"\0/var/w\n/private/var/w/.ssh\n")

# Flag sets from the unit tests: every ARGS("...", ...) of test-policy.c.
with open(os.path.join(top, "tests", "unit", "test-policy.c")) as f:
    src = f.read()
n = 0
for m in re.finditer(r"ARGS\(((?:\s*\"(?:[^\"\\]|\\.)*\"\s*,?)+)\)", src):
    words = re.findall(r"\"((?:[^\"\\]|\\.)*)\"", m.group(1))
    words = [w.encode().decode("unicode_escape").encode("latin-1") for w in words]
    put("cli", "policy-%03d" % n, b"\0".join(words))
    put("roundtrip", "flags-%03d" % n, b"\0" + b"\0".join(words))
    n += 1
# Found by these targets on the code before --print-policy refused what no
# profile line can hold (the value " ;b" printed as "A = ;b", read back empty).
put("roundtrip", "env-blank-semicolon", b"\0-e\0A= ;b")
put("roundtrip", "profile-and-flags", profiles.get("ci", b"") + b"\0--allow-host\0*.example.org\0-e\0A=;b")

hosts = ["example.org", "Example.ORG.", "under_score.example", "127.0.0.1", "127.1", "2130706433",
         "0x7f.1", "[2001:DB8::1]", "[::ffff:127.0.0.1]", "[fe80::1%eth0]", "a" * 63 + ".b",
         "a" * 64 + ".b", ".".join(["a" * 63] * 4), "xn--bcher-kva.example", "a..b", ""]
for i, h in enumerate(hosts):
    put("hostmatch", "host-%02d" % i, b"\0" + h.encode())
put("hostmatch", "patterns-1", b"\1*.example.org\nexample.org\na.b.example.org")
put("hostmatch", "patterns-2", b"\1*.example.org\nbadexample.org")
put("hostmatch", "patterns-3", b"\1127.0.0.1\n*.0.0.1\n127.0.0.1")
put("hostmatch", "patterns-4", b"\1*.org\nexample.org.evil.com")
put("hostmatch", "addr-v4", b"\2\x10\x10" + b"\2\0\0\x50\x7f\0\0\1" + b"\0" * 8 + b"\2\0\0\x50\x0a\0\0\1" + b"\0" * 8)
put("hostmatch", "addr-v6", b"\2\x1c\x1c" + b"\x0a\0\0\x50" + b"\0" * 4 + b"\0" * 10 + b"\xff\xff\x7f\0\0\1" + b"\0" * 4
    + b"\x0a\0\0\x50" + b"\0" * 4 + b"\xfe\x80" + b"\0" * 13 + b"\1" + b"\0" * 4)
put("hostmatch", "addr-169", b"\2\x10\x02" + b"\2\0\0\x50\xa9\xfe\xa9\xfe" + b"\0" * 8 + b"\2\0")

# The JSON writer's programs (the byte meanings are in fuzz-json.c).
put("json", "keys-strings", b"\3\3abc\3\5a\"b\\c\4\2x\n")
put("json", "utf8", b"\3\4k\xc3\xa9y\3\6\xe2\x82\xac\xf0\x9f")
put("json", "invalid-utf8", b"\3\2\xc0\xaf\3\4\xed\xa0\x80z\3\3\xf4\x90\x80")
put("json", "controls", b"\3\1k\3\6\x01\x1f\x7f\t\r\n")
put("json", "nested", b"\0\1a\1\1b\1\1c\5\0\1\2\3\4\5\6\7\x08\x86\x46\2\2\2")
put("json", "strv", b"\x1f\1k\2ab\2cd\3ef")
put("json", "deep", b"\1" * 70 + b"\6\1k")

requests = [
    b"CONNECT allowed.test:443 HTTP/1.1\r\nHost: allowed.test:443\r\n\r\n",
    b"GET http://allowed.test:8080/echo HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n"
    b"Proxy-Authorization: a\r\nKeep-Alive: 1\r\nX-A: b\r\n\r\n",
    b"GET http://ALLOWED.TEST.:8080/echo HTTP/1.0\r\n\r\n",
    b"GET http://allowed.test?q HTTP/1.1\n\n",
    b"GET http://[2001:db8::1]:80/ HTTP/1.1\r\n\r\n",
    b"\r\n\r\nPOST http://a.b/c#f HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc",
    b"GET https://allowed.test/ HTTP/1.1\r\n\r\n",
    b"CONNECT allowed.test HTTP/1.1\r\n\r\n",
    b"GET http://user@allowed.test:8080/ HTTP/1.1\r\n\r\n",
    b"GET http://127.1:8080/ HTTP/1.1\r\n\r\n",
    b"GET http://allowed.test:8080/ HTTP/1.1\r\n folded\r\n\r\n",
    b"GET http://allowed.test:8080/ HTTP/2.0\r\n\r\n",
]
for i, r in enumerate(requests):
    put("proxy", "request-%02d" % i, b"\0" + r)
responses = [
    b"HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nContent-Length: 2\r\n\r\nok",
    b"HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 204 No Content\r\nKeep-Alive: 5\r\n\r\n",
    b"HTTP/1.1 101 Switching\r\nUpgrade: websocket\r\n\r\nframes",
    b"garbage without an end",
    b"HTTP/1.0 2x0 odd\n\nbody",
]
for i, r in enumerate(responses):
    put("proxy", "response-%02d" % i, bytes([1 + 2 * (i % 2)]) + r)

# The mount table: a machine's shape (overlay root, proc, binds of a home
# and of a secret, escapes), the unit tests' cases, and fields ending in
# '/' (the kernel writes none; one sent rebase() past its path).
mounttabs = {
    "machine": "21 1 0:20 / / rw,relatime - overlay overlay rw\n"
               "22 21 0:21 / /proc rw,nosuid - proc proc rw\n"
               "23 21 0:22 / /sys ro - sysfs sysfs ro\n"
               "24 21 8:1 /home/u /home/u rw - ext4 /dev/sda1 rw\n"
               "25 21 8:1 /home/u/.ssh /srv/keys rw - ext4 /dev/sda1 rw\n"
               "26 21 8:1 /etc /mnt/etc\\040copy ro - ext4 /dev/sda1 rw\n",
    "escapes": "40 27 8:1 /a\\040b /mnt/x\\134y rw - ext4 /dev/sda rw\n"
               "43 27 8:1 /\\04 /half\\0 rw - ext4 /dev/sda rw\n"
               "41 27 8:1 / /last rw - ext4 /dev/sda rw",
    "bad-lines": "garbage\n42 27 8:x / /bad rw\n1 2 3\n\n 4 5 6:7 / /x",
    "trailing-slash": "1 0 8:1 / / rw - ext4 /dev/sda rw\n"
                      "2 1 8:1 /h/.ssh/ /a/ rw - ext4 /dev/sda rw\n"
                      "3 1 8:1 /h// /b// rw - ext4 /dev/sda rw\n",
}
for name, text in mounttabs.items():
    put("mounttab", name, text)
