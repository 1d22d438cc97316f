# The diagnostics line fits in the room --diag PATH reserves before the
# run (64 KiB), whatever names the sandbox makes the warnings quote. The
# git guard named up to 8 entries per kind, each a path of up to PATH_MAX
# bytes, and a control byte is 6 in JSON: 8 nested repositories with
# names of \001, left writable by others, made a line of 361 KB, so under
# a caller's file-size limit that passed the check before the run (or on
# a disk the sandbox filled) --diag PATH was left holding a cut, invalid
# line. Now a quoted name is cut to 256 bytes ("..." in its middle), a
# warning to 4096, and the warnings that do not fit are left out, a last
# one saying so (test-json covers that part). Judged on the host: the
# file's size, that it is one valid JSON line, and what its warnings say.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

new_wd
cat >"$WD/big.py" <<'EOF'
import os
comp = b"\x01" * 250
for i in range(8):
    p = b"d%d" % i + b"/" + b"/".join([comp] * 15)
    os.makedirs(p + b"/.git/objects")
    os.makedirs(p + b"/.git/refs")
    with open(p + b"/.git/HEAD", "w") as f:
        f.write("ref: refs/heads/main\n")
    os.chmod(p, 0o777)
print("made")
EOF
# A file-size limit of 100 KiB passes the check before the run (set in
# bytes: the shells' "ulimit -f" blocks differ, dash's are 512 bytes).
prlimit --fsize=102400:102400 -- "$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" \
    --diag "$JT/diag.json" -- python3 big.py >"$T/out" 2>"$T/err"
is "$?" 0 "the run's status, under a file-size limit of 100 KiB"
is "$(cat "$T/out")" made "the sandbox made its names"
ok "no message about a line that could not be written" \
    sh -c "! grep -q 'cannot write the diagnostics line' '$T/err'"
ok "--diag PATH holds one valid JSON line" json_line "$JT/diag.json"
ok "... of at most 64 KiB" [ "$(wc -c <"$JT/diag.json")" -le 65536 ]

# says KIND: what the warnings say about the names, checked in Python.
says() {
	"$PY" - "$JT/diag.json" "$1" <<'EOF'
import json, re, sys
w = json.load(open(sys.argv[1]))["warnings"]
kind = sys.argv[2]
text = [x for x in w if ("git repositories below" if kind == "repos" else "writable by other users") in x]
if len(text) != 1:
    print("# no single warning of the kind: %r" % [x[:80] for x in w])
    sys.exit(1)
names = re.split(r"(?:there\)|removed): ", text[0], maxsplit=1)[1].split(", ")
cut = re.compile("^d[0-7]/\x01{125}\\.\\.\\.\x01{100,}")
bad = [n[:12] for n in names if not cut.match(n) or len(n.encode()) > 256]
print("# %d names, %s" % (len(names), "all cut at 256 bytes, marked" if not bad else "bad: %r" % bad))
sys.exit(0 if len(names) == 8 and not bad else 1)
EOF
}
ok "the 8 repositories are named, each cut to 256 bytes with ... in its middle" says repos
ok "so are the 8 directories left writable by others" says open

done_testing
