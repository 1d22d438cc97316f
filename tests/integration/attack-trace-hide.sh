# A traced run must not hide what it does from the trace (sbxrun(1),
# TRACING: a write is never dropped). Three ways a process used to leave
# no event, or none that named the file: prctl(PR_SET_DUMPABLE, 0), which
# puts its memory out of the landlock supervisor's reach (the events now
# come with a null path and "unread"); a file opened by O_PATH and written
# through /proc/self/fd/N (now named by what the descriptor leads to); a
# program run from a memfd by its descriptor (execveat with AT_EMPTY_PATH,
# once dropped as a PATH search of a missing file). Judged on the trace
# sbxrun writes on the host. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

TR=$T/trace.jsonl
# has COND: a trace event E satisfies the Python expression COND.
has() {
	"$PY" - "$TR" "$1" <<'PYEOF'
import json, sys
found = False
for line in open(sys.argv[1], encoding="utf-8"):
    ev = json.loads(line)
    E = lambda k, d=None: ev.get(k, d)
    if eval(sys.argv[2]):
        found = True
print("yes" if found else "no")
PYEOF
}

new_wd
echo original >"$WD/victim-$$.txt"
chmod 666 "$WD/victim-$$.txt"
cat >"$WD/hide.py" <<PYEOF
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
what = sys.argv[1]
if what == "nodump":
    assert libc.prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE
    fd = os.open("made-$$.txt", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.write(fd, b"x")
    os.close(fd)
    os.execv("/bin/true", ["true-nodump-$$"])
elif what == "opath":
    fd = os.open("victim-$$.txt", os.O_PATH)
    with open("/proc/self/fd/%d" % fd, "w") as f:
        f.write("overwritten\n")
elif what == "memfd":
    m = os.memfd_create("x")
    os.write(m, open("/bin/true", "rb").read())
    os.execve(m, ["memfd-run-$$"], {})
PYEOF
chmod 644 "$WD/hide.py"

# 1. Not dumpable.
jail_sh "python3 hide.py nodump" -w "$WD" --trace "$TR"
is_status 0 "not dumpable: the script ran"
ok "not dumpable: the file was made (host side, control)" [ -f "$WD/made-$$.txt" ]
is "$(has "E('kind')=='write' and E('op')=='open' and 'O_CREAT' in E('flags','') and \
(E('unread') or (E('path') or '').endswith('/made-$$.txt'))")" yes \
    "not dumpable: its creating open is in the trace (named, or unread)"
is "$(has "E('kind')=='exec' and (E('argv')==['true-nodump-$$'] or E('unread'))")" yes \
    "not dumpable: its exec is in the trace (with its argv, or unread)"

# 2. O_PATH, then written through /proc/self/fd.
jail_sh "python3 hide.py opath" -w "$WD" --trace "$TR"
is_status 0 "O_PATH reopen: the script ran"
is "$(cat "$WD/victim-$$.txt")" overwritten "O_PATH reopen: the file was written (host side, control)"
is "$(has "E('kind')=='write' and E('path','').endswith('/victim-$$.txt')")" yes \
    "O_PATH reopen: the write names the file"

# 3. A program run from a memfd.
jail_sh "python3 hide.py memfd" -w "$WD" --trace "$TR"
is_status 0 "memfd exec: the script ran"
is "$(has "E('kind')=='exec' and E('argv')==['memfd-run-$$']")" yes \
    "memfd exec: the exec is in the trace with its argv"

# 4. A flood of events: the trace is held to --file-size, as the
# sandbox's own files are, and a warning counts what was left out.
jail_sh 'i=0; while [ $i -lt 300 ]; do /bin/true; i=$((i + 1)); done' -w "$WD" --trace "$TR" \
    --file-size 4K
is_status 0 "flood: the script ran"
ok "flood: the trace is at most 4 KiB ($(wc -c <"$TR") bytes)" test "$(wc -c <"$TR")" -le 4096
like "$(jget warnings)" "the trace reached the file-size limit" "flood: a warning says so"

# 5. A program run by a name that, joined to a working directory near
# PATH_MAX long, no longer fits: the cut path named nothing and the exec
# passed for the shell's PATH search, dropped. It is written, unread.
cat >"$T/deep.sh" <<'DEEP'
top=$(pwd); d=$(printf 'd%.0s' $(seq 100))
while [ ${#PWD} -lt 3850 ]; do mkdir $d; cd $d; done
k=$(printf %s "$PWD" | tr -cd / | wc -c); up=$(printf '../%.0s' $(seq $k))
r=$((4090 - ${#PWD} - 1 - 3 * k)); sl=$(printf '/%.0s' $(seq $r))
${up}${sl}bin/true deep-run-marker && echo ran >"$top/deep-ran"
DEEP
jail "-w" "$WD" --trace "$TR" <"$T/deep.sh"
is_status 0 "deep cwd: the script ran"
is "$(cat "$WD/deep-ran" 2>/dev/null)" ran "deep cwd: the program ran (host side)"
is "$(has "E('kind')=='exec' and 'deep-run-marker' in (E('argv') or [])")" yes \
    "deep cwd: its exec is in the trace, with its argv"
rm -rf "$WD"/d*

done_testing
