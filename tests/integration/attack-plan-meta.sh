# Calls made on the sandbox's behalf obey the plan (issue 9, finding 3):
# under the landlock backend, chmod, utime and the xattr calls are made by
# sbxrun's supervisor, and unix socket connects and binds too; they must
# refuse hidden paths (--deny-read, the secret list), protected ones
# (.git/hooks, .git/config, --protect) and frozen directories as the
# sandbox's own calls are refused. Tried from inside on files of the
# workdir; judged from the host: modes, times and extended attributes
# unchanged, a listener on a socket below a --deny-read path that logs
# nothing, no socket file made. Controls show the same calls still work
# on an ordinary file and socket. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

res() {
	sed -n "s/^R:$1://p" "$T/out" | head -n 1
}

# The workdir: a --deny-read file, socket and directory, a repository
# with a hook and a config, and an ordinary directory for the controls.
mkdir -p "$WD/sec" "$WD/.git/hooks" "$WD/sub"
echo key >"$WD/key"
echo secret >"$WD/sec/f"
printf '#!/bin/sh\necho hook\n' >"$WD/.git/hooks/x"
printf '[core]\n\tbare = false\n' >"$WD/.git/config"
echo plain >"$WD/sub/plain"
chmod 600 "$WD/key"
chmod 644 "$WD/sec/f" "$WD/.git/hooks/x" "$WD/.git/config" "$WD/sub/plain"
chmod 755 "$WD/sec" "$WD/.git" "$WD/.git/hooks" "$WD/sub"
touch -d '2020-02-02 02:02:02' "$WD/key" "$WD/sec/f" "$WD/.git/hooks/x" "$WD/.git/config" \
    "$WD/sub/plain"
XATTR=yes
if ! "$PY" -c 'import os, sys
for p in sys.argv[1:]:
    os.setxattr(p, "user.keep", b"orig")' "$WD/key" "$WD/.git/config" "$WD/sub/plain" 2>/dev/null; then
	XATTR=
	diag "no user.* extended attributes on $WD's filesystem: xattr checks skipped"
fi

# meta: mode, mtime and extended attributes of each file, read here.
meta() {
	"$PY" - "$@" <<'PYEOF'
import os, sys
for p in sys.argv[1:]:
    st = os.lstat(p)
    try:
        xs = sorted("%s=%s" % (n, os.getxattr(p, n, follow_symlinks=False).decode()) for n in os.listxattr(p, follow_symlinks=False))
    except OSError:
        xs = ["-"]
    print("%o %d %s" % (st.st_mode & 0o7777, int(st.st_mtime), ",".join(xs)))
PYEOF
}

cat >"$WD/sub/meta.py" <<'PYEOF'
import errno, os, sys
def t(tag, f):
    try:
        f()
        print("R:%s:OK" % tag, flush=True)
    except OSError as e:
        print("R:%s:%s" % (tag, errno.errorcode.get(e.errno, e.errno)), flush=True)
T = (978307200, 978307200)
for tag, path in (("key", "key"), ("secf", "sec/f"), ("hook", ".git/hooks/x"),
                  ("config", ".git/config"), ("hooks", ".git/hooks"), ("git", ".git"),
                  ("plain", "sub/plain")):
    t("chmod_" + tag, lambda: os.chmod(path, 0o775))
    t("utime_" + tag, lambda: os.utime(path, T))
    t("setxattr_" + tag, lambda: os.setxattr(path, "user.sbx", b"planted"))
    t("rmxattr_" + tag, lambda: os.removexattr(path, "user.keep"))
# Through symbolic links made in an ordinary directory: what they resolve
# to is judged, not how they are spelled.
for tag, target, link in (("lkey", "../key", "sub/lk"), ("lhooks", "../.git/hooks", "sub/lh"),
                          ("lsec", "../sec", "sub/ls")):
    try:
        os.symlink(target, link)
    except OSError:
        pass
for tag, path in (("lkey", "sub/lk"), ("lhook", "sub/lh/x"), ("lsecf", "sub/ls/f")):
    t("chmod_" + tag, lambda: os.chmod(path, 0o775))
    t("utime_" + tag, lambda: os.utime(path, T))
    t("setxattr_" + tag, lambda: os.setxattr(path, "user.sbx", b"planted"))
# By descriptor: a file the sandbox may read, changed through its fd.
for tag, path in (("config", ".git/config"), ("hook", ".git/hooks/x")):
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        print("R:fchmod_%s:%s" % (tag, errno.errorcode.get(e.errno, e.errno)), flush=True)
        continue
    t("fchmod_" + tag, lambda: os.fchmod(fd, 0o775))
    t("futime_" + tag, lambda: os.utime(fd, T))
    t("fsetxattr_" + tag, lambda: os.setxattr(fd, "user.sbx", b"planted"))
print("R:done:OK", flush=True)
PYEOF
chmod 644 "$WD/sub/meta.py"

before=$(cd "$WD" && meta key sec/f .git/hooks/x .git/config .git/hooks .git)
jail -w "$WD" --deny-read "$WD/key" --deny-read "$WD/sec" -- python3 sub/meta.py
is "$(sed -n 's/^R:done://p' "$T/out")" OK "the metadata prober ran"
after=$(cd "$WD" && meta key sec/f .git/hooks/x .git/config .git/hooks .git)
if ! is "$after" "$before" \
    "mode, times and xattrs of the --deny-read files, .git/hooks/x, .git/config, .git/hooks and .git are unchanged"; then
	diag "$(grep '^R:' "$T/out" | tr '\n' ' ')"
fi
# Control: the same calls reach an ordinary file of the workdir.
want="775 978307200 user.sbx=planted"
[ -n "$XATTR" ] || want="775 978307200 -"
is "$(cd "$WD" && meta sub/plain)" "$want" "control: an ordinary file's mode, times and xattrs did change"
# Under namespaces a hidden file is covered: a change inside lands on the
# cover. Under landlock the supervisor's refusal is what the sandbox sees.
if [ "$SBX_BACKEND" = landlock ]; then
	for c in chmod_key utime_key setxattr_secf chmod_hook utime_config setxattr_config \
	    fchmod_config fsetxattr_config chmod_git; do
		r=$(res "$c")
		ok "$c is refused inside ($r)" [ "$r" != OK ]
	done
fi

# Unix sockets: a host listener on a socket below the --deny-read
# directory, one on a socket that is itself --deny-read, and a control in
# an ordinary directory. Each accepted connection is a line "conn PATH
# data D" (the sandbox sends nothing, the host's own connections "host").
LOGU=$JT/unix.log
: >"$LOGU"
"$PY" - "$LOGU" "$WD/sec/s.sock" "$WD/hid.sock" "$WD/sub/ok.sock" <<'PYEOF' &
import os, select, socket, sys, time
log = open(sys.argv[1], "a", buffering=1)
socks = {}
for p in sys.argv[2:]:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.bind(p)
    os.chmod(p, 0o777)
    s.listen(16)
    socks[s] = p
log.write("ready\n")
end = time.time() + 120
while time.time() < end:
    r, _, _ = select.select(list(socks), [], [], 1)
    for s in r:
        c, _ = s.accept()
        c.settimeout(1)
        try:
            d = c.recv(16)
        except OSError:
            d = b""
        log.write("conn %s data %r\n" % (socks[s], d))
        c.close()
PYEOF
UPID=$!
JAIL_PIDS="$JAIL_PIDS $UPID"
if ! wait_for "grep -q ready '$LOGU'" 20; then
	fail "setting up: the unix socket listener"
	done_testing
	exit 1
fi
# host_conn PATH: the host's own connection, sending "host".
host_conn() {
	"$PY" -c 'import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(b"host")
s.close()' "$1"
}

cat >"$WD/sub/unix.py" <<'PYEOF'
import errno, os, socket
def t(tag, f):
    try:
        f()
        print("R:%s:OK" % tag, flush=True)
    except OSError as e:
        print("R:%s:%s" % (tag, errno.errorcode.get(e.errno, e.errno)), flush=True)
def conn(p):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect(p)
    finally:
        s.close()
def bind(p):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        s.bind(p)
    finally:
        s.close()
def dgram(p):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    try:
        s.sendto(b"x", p)
    finally:
        s.close()
t("conn_sec", lambda: conn("sec/s.sock"))
t("conn_hid", lambda: conn("hid.sock"))
t("conn_abs", lambda: conn(os.path.abspath("sec/s.sock")))
t("conn_ok", lambda: conn("sub/ok.sock"))
t("bind_sec", lambda: bind("sec/new.sock"))
t("bind_hooks", lambda: bind(".git/hooks/new.sock"))
t("bind_git", lambda: bind(".git/new.sock"))
t("bind_ok", lambda: bind("sub/new.sock"))
print("R:done:OK", flush=True)
PYEOF
chmod 644 "$WD/sub/unix.py"

jail -w "$WD" --network on --deny-read "$WD/hid.sock" --deny-read "$WD/sec" -- python3 sub/unix.py
is "$(sed -n 's/^R:done://p' "$T/out")" OK "the unix socket prober ran"
# The fence: the listener serves one connection at a time, each socket's
# in the order they came, so once the host's own connections, made after
# the run, are logged, so is every earlier one of the sandbox's (and the
# listener is shown working).
for s in sec/s.sock hid.sock sub/ok.sock; do
	host_conn "$WD/$s"
done
if ! wait_for "[ \$(grep -c \"data b'host'\$\" '$LOGU') = 3 ]" 20; then
	fail "setting up: the host's own connections to the listeners (the fence)"
	diag "$(cat "$LOGU")"
	done_testing
	exit 1
fi
if ! is "$(grep -v "data b'host'\$" "$LOGU" | grep -c "^conn $WD/sec/\|^conn $WD/hid.sock")" 0 \
    "the listeners below and at --deny-read paths log nothing but the host's connections"; then
	diag "$(cat "$LOGU")" "$(grep '^R:' "$T/out" | tr '\n' ' ')"
fi
for f in sec/new.sock .git/hooks/new.sock .git/new.sock; do
	absent "no socket $f was made (hidden, protected or frozen)" "$WD/$f"
done
if [ "$SBX_BACKEND" = landlock ]; then
	ok "control: the listener in an ordinary directory was reached" \
	    grep -q "^conn $WD/sub/ok.sock data b''\$" "$LOGU"
	ok "control: a socket can be bound in an ordinary directory" [ -S "$WD/sub/new.sock" ]
fi

done_testing
