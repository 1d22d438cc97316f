# The diagnostics line: where it goes (stderr as the last line, fd:N, a
# PATH created 0600, none), that it is one JSON object with every member
# sbxrun(1) DIAGNOSTICS names, with the right types, and that its numbers are true
# (status, wall time, CPU time and memory of the whole tree, limits).
. "$(dirname "$0")/lib.sh"

mkdir "$T/wd"
WD=$(cd "$T/wd" && pwd -P)

# --- Destinations. ----------------------------------------------------------
# The none backend says on stderr, in one line before the run, that nothing
# is enforced.
NONE_WARN="sbxrun: warning: backend none: nothing is enforced; the command runs with all of your rights"
printf 'echo to-stderr >&2\necho to-stdout\nexit 3\n' >"$T/s"
"$SBXRUN" --backend none -w "$WD" <"$T/s" >"$T/out" 2>"$T/err"
is "$?" 3 "default --diag: the script's status"
is "$(cat "$T/out")" "to-stdout" "stdout holds only the script's output"
is "$(head -n 1 "$T/err")" "$NONE_WARN" "backend none: one warning line first"
is "$(sed -n 2p "$T/err")" "to-stderr" "the script's stderr comes next"
last_line "$T/err" >"$T/last"
ok "the last line of stderr is the JSON line" json_line "$T/last"
is "$(wc -l <"$T/err" | tr -d ' ')" 3 "stderr: the warning, the script's line and the JSON line, nothing else"
is "$(jget status "$T/last")" 3 "its status is 3"

"$SBXRUN" --backend none -w "$WD" --diag fd:5 <"$T/s" >"$T/out" 2>"$T/err" 5>"$T/fd5"
is "$?" 3 "--diag fd:5: the script's status"
ok "--diag fd:5: one JSON line on fd 5" json_line "$T/fd5"
is "$(cat "$T/err")" "$NONE_WARN
to-stderr" "--diag fd:5: stderr holds only the warning and the script's output"
"$SBXRUN" --backend none -w "$WD" --diag fd:1 <"$T/s" >"$T/out" 2>/dev/null
is "$(head -n 1 "$T/out")" "to-stdout" "--diag fd:1: the script's stdout first"
last_line "$T/out" >"$T/last"
ok "--diag fd:1: then the JSON line" json_line "$T/last"

echo "old content that must go" >"$T/d.json"
chmod 644 "$T/d.json"
"$SBXRUN" --backend none -w "$WD" --diag "$T/d.json" <"$T/s" >"$T/out" 2>"$T/err"
is "$?" 3 "--diag PATH: the script's status"
ok "--diag PATH over an existing file: one JSON line (truncated)" json_line "$T/d.json"
is "$(cat "$T/err")" "$NONE_WARN
to-stderr" "--diag PATH: stderr holds only the warning and the script's output"
(umask 000; "$SBXRUN" --backend none -w "$WD" --diag "$T/new.json" </dev/null >/dev/null 2>&1)
is "$(stat -c %a "$T/new.json")" 600 "--diag PATH creates the file 0600 (even with umask 000)"
ok "--diag PATH: one JSON line" json_line "$T/new.json"
(cd "$T" && "$SBXRUN" --backend none -w "$WD" --diag rel.json </dev/null >/dev/null 2>&1)
ok "--diag with a relative PATH is relative to sbxrun's cwd, not the workdir" json_line "$T/rel.json"
ok "... nothing in the workdir" test ! -e "$WD/rel.json"
ln -s "$T/target.json" "$T/link.json"
"$SBXRUN" --backend none -w "$WD" --diag "$T/link.json" </dev/null >/dev/null 2>"$T/err"
ok "--diag PATH does not follow a symlink" test ! -e "$T/target.json"
like "$(cat "$T/err")" "--diag" "... and says why the line could not be written"
# A destination that cannot be made is a 125 before anything runs, not a
# line lost after the run (the marker must not appear).
"$SBXRUN" --backend none -w "$WD" --diag "$T/no/such/dir/d.json" -- touch "$WD/ran-1" \
    </dev/null >/dev/null 2>"$T/err"
is "$?" 125 "--diag into a missing directory: 125"
like "$(cat "$T/err")" "$T/no/such/dir/d.json" "... and a message names the path"
ok "... before anything ran" test ! -e "$WD/ran-1"
last_line "$T/err" >"$T/last"
ok "... the JSON line goes to stderr instead" json_line "$T/last"
mkdir "$T/adir"
"$SBXRUN" --backend none -w "$WD" --diag "$T/adir" -- touch "$WD/ran-2" \
    </dev/null >/dev/null 2>"$T/err"
is "$?" 125 "--diag PATH that is a directory: 125"
like "$(cat "$T/err")" "Is a directory" "... saying so"
ok "... before anything ran" test ! -e "$WD/ran-2"
# A FIFO with no reader at PATH (planted in a directory someone else may
# write, e.g. a workdir a second sandbox shares) must not stall sbxrun in
# open(2): refused at once, never waiting for a reader.
mkfifo "$T/fifo.json"
timeout 20 "$SBXRUN" --backend none -w "$WD" --diag "$T/fifo.json" -- touch "$WD/ran-3" \
    </dev/null >/dev/null 2>"$T/err"
is "$?" 125 "--diag PATH that is a FIFO nobody reads: 125, not a wait"
like "$(cat "$T/err")" "$T/fifo.json" "... and a message names the path"
ok "... before anything ran" test ! -e "$WD/ran-3"

"$SBXRUN" --backend none -w "$WD" --diag none <"$T/s" >"$T/out" 2>"$T/err"
is "$?:$(cat "$T/err")" "3:$NONE_WARN
to-stderr" "--diag none: no JSON line anywhere"
unlike "$(cat "$T/out")" "{" "--diag none: nothing on stdout either"
"$SBXRUN" --backend none -w "$WD" --diag none --diag fd:3 </dev/null >/dev/null 2>&1 3>"$T/fd3"
ok "the last --diag wins" json_line "$T/fd3"

# --- The JSON line is a line of its own, whatever the payload wrote last. ----
# A regular file: sbxrun reads the byte before the line and adds a newline
# only when needed.
for ending in 'printf "50%%\r"' 'printf abc' 'printf "abc\n"' ':'; do
	for b in none auto; do
		"$SBXRUN" --backend "$b" -w "$WD" -- sh -c "$ending >&2" >/dev/null 2>"$T/e"
		tail -n 1 "$T/e" >"$T/last"
		ok "--backend $b, stderr a file ending with $ending: tail -n1 is the JSON line" \
		    json_line "$T/last"
		is "$(grep -c '^$' "$T/e")" 0 "--backend $b, $ending: no empty line added"
	done
done
"$SBXRUN" --backend none -w "$WD" -- sh -c 'printf "50%%\r" >&2' >/dev/null 2>"$T/e"
is "$(sed -n 2p "$T/e" | tr -d '\n' | od -An -c | tr -d ' ')" '50%\r' "the progress bar's bytes are kept as they were"
# O_APPEND (2>>): the line goes at the end of what is there.
printf 'before' >"$T/e"
"$SBXRUN" --backend none -w "$WD" -- true >/dev/null 2>>"$T/e"
tail -n 1 "$T/e" >"$T/last"
ok "stderr appended to a file ending without a newline: still a line of its own" json_line "$T/last"
# A pipe cannot be asked: a newline comes first, so tail -n1 still works.
"$SBXRUN" --backend none -w "$WD" -- sh -c 'printf abc >&2' 2>&1 >/dev/null | tail -n 1 >"$T/last"
ok "stderr a pipe, no final newline: tail -n1 is the JSON line" json_line "$T/last"
# --diag fd:1 shared with the payload's stdout, a regular file.
"$SBXRUN" --backend none -w "$WD" --diag fd:1 -- printf abc >"$T/o" 2>/dev/null
tail -n 1 "$T/o" >"$T/last"
ok "--diag fd:1 after stdout without a newline: a line of its own" json_line "$T/last"
is "$(head -c 4 "$T/o" | od -An -c | tr -d ' ')" 'abc\n' "... after the payload's bytes"
# Nothing ran (a 125 before the run): no newline is added.
"$SBXRUN" --listen 70000 2>"$T/e"
is "$(head -n 1 "$T/e" | cut -c1-7)" "sbxrun:" "a 125 before the run: the message first"
is "$(grep -c '^$' "$T/e")" 0 "... and no empty line"

# --- Members and types, in every kind of ending. ---------------------------
sbx_script 'exit 0' --backend none -w "$WD"
ok "success: every member, right types" check_diag "$T/diag"
is "$(jget status):$(jget exit_code):$(jget signal):$(jget error)" "0:0:null:null" \
	"success: status 0, exit_code 0, signal null, error null"
is "$(jget timed_out):$(jget oom_killed):$(jget trace):$(jget denials)" "false:false:null:0" \
	"success: timed_out false, oom_killed false, trace null, denials 0"
is "$(jget backend):$(jget isolation)" "none:none" "backend none, isolation none"
is "$(jget fs):$(jget network):$(jget proxy)" "strict:off:null" "defaults: fs strict, network off, proxy null"
is "$(jget ports)" '{"connect":[],"listen":[],"loopback":[]}' "ports: three empty lists"
is "$(jget workdir)" "$WD" "workdir"
like "$(jget unenforced)" '"fs"' "backend none: fs is listed as unenforced"
like "$(jget unenforced)" '"network"' "backend none: network is listed as unenforced"
is "$(jget layers.userns):$(jget layers.netns):$(jget layers.seccomp):$(jget layers.landlock_abi)" \
	"false:false:false:0" "backend none: no layer claimed"
is "$(jget version)" "$("$SBXRUN" --version | sed -n "1s/^sbxrun //p")" "version = the first line of --version"

sbx_script 'kill -KILL $$' --backend none -w "$WD"
ok "killed: every member, right types" check_diag "$T/diag"
is "$(jget status):$(jget exit_code):$(jget signal)" "137:null:SIGKILL" "killed: 137, null, SIGKILL"
sbx_script 'sleep 5' --backend none -w "$WD" -t 300ms
ok "timed out: every member, right types" check_diag "$T/diag"
is "$(jget status):$(jget timed_out)" "124:true" "timed out: status 124, timed_out true"
is "$(jget limits.timeout.ms):$(jget limits.timeout.by)" "300:supervisor" \
	"limits.timeout: {ms: 300, by: supervisor}"
sbxn -w "$WD" -- no-such-command-sbxtest
ok "not found: every member, right types" check_diag "$T/diag"
is "$(jget status):$(jget exit_code)" "127:127" "not found: status 127"
like "$(jget error)" "no-such-command-sbxtest: No such file or directory" \
    "not found: the error says what was not found"

sbxn --listen 70000
ok "a 125: every member, right types" check_diag "$T/diag"
sbxn -w "$WD" --fs open --network on --listen 8080,8081 --connect 443 --loopback 5432 \
	--allow-host api.example.com --allow-host '*.example.org' --allow-degraded -- true
is "$SBX_STATUS" 0 "a run asking for ports and a proxy (backend none)"
ok "ports and proxy: every member, right types" check_diag "$T/diag"
is "$(jget fs):$(jget network)" "open:on" "fs and network as asked"
is "$(jget ports)" '{"connect":[443],"listen":[8080,8081],"loopback":[5432]}' "ports as asked"
is "$(jget proxy.allow)" '["api.example.com","*.example.org"]' "proxy.allow as asked"
like "$(jget unenforced)" '"proxy"' "backend none: the proxy is listed as unenforced"
sbxn -w "$WD" --fs bogus -- true
is "$(jget fs)" "strict" "--fs bogus: fs strict in the JSON"
like "$(jget warnings)" "unknown fs value 'bogus' replaced by strict" "... with the warning"

# --- The numbers are true. ----------------------------------------------------
sbx_script 'sleep 0.4' --backend none -w "$WD"
w=$(jget wall_ms)
ok "wall_ms of a 0.4 s sleep is at least 400 ($w)" test "$w" -ge 400
# (A unit check, not a speed check: milliseconds, not microseconds.)
ok "wall_ms of a 0.4 s sleep is under 20000 ($w)" test "$w" -lt 20000
# Bounded by the CPU time it has had, not by the wall clock: on a busy
# machine a wall-clock window holds less CPU time than it lasts.
cat >"$T/busy.py" <<'EOF'
import time
while time.process_time() < 0.5:
    sum(range(20000))  # user time between the clock's system calls
EOF
sbxn -w "$WD" --interp python3 <"$T/busy.py"
c=$(($(jget cpu_user_ms) + $(jget cpu_sys_ms)))
ok "cpu_user_ms + cpu_sys_ms of 0.5 s of busy Python is at least 350 ($c)" test "$c" -ge 350
ok "cpu_user_ms is most of it ($(jget cpu_user_ms))" test "$(jget cpu_user_ms)" -ge 250
cat >"$T/alloc.py" <<'EOF'
b = b"x" * (50 << 20)
print(len(b))
EOF
sbxn -w "$WD" --interp python3 <"$T/alloc.py"
r=$(jget max_rss_kb)
ok "max_rss_kb of Python holding 50 MiB is over 40000 ($r)" test "$r" -gt 40000
sbx_script 'true' --backend none -w "$WD"
r0=$(jget max_rss_kb)
ok "max_rss_kb of 'true' is under 40000 ($r0): the number measures something" test "$r0" -lt 40000
cp "$T/alloc.py" "$WD/alloc.py"
sbx_script 'python3 alloc.py >/dev/null & wait' --backend none -w "$WD"
r=$(jget max_rss_kb)
ok "max_rss_kb counts a grandchild (a background python3, 50 MiB): $r" test "$r" -gt 40000
# The orphan says when it holds the memory (it is killed when the script
# ends): the script waits for that, not for a fixed time.
sbx_script 'rm -f held; (python3 alloc.py >held &); i=0
while [ ! -s held ] && [ $i -lt 600 ]; do sleep 0.05; i=$((i + 1)); done' --backend none -w "$WD"
r=$(jget max_rss_kb)
ok "max_rss_kb counts an orphaned grandchild too: $r" test "$r" -gt 40000
cp "$T/busy.py" "$WD/busy.py"
sbx_script 'python3 busy.py & wait' --backend none -w "$WD"
c=$(($(jget cpu_user_ms) + $(jget cpu_sys_ms)))
ok "CPU time counts a grandchild's ($c ms)" test "$c" -ge 350

# --allow-degraded: the kernel does not apply RLIMIT_NPROC to a root caller
# under this backend, so pids is unenforced there.
sbxn -w "$WD" --memory 512M --pids 100 --cpu 10s --file-size 1M --open-files 64 \
    --allow-degraded -- true
is "$(jget limits.memory)" '{"by":"rlimit","bytes":536870912}' "limits.memory: bytes and how"
if [ "$(id -u)" = 0 ]; then
	# The kernel does not apply RLIMIT_NPROC to root: not enforced, and said so.
	is "$(jget limits.pids)" '{"by":null,"count":100}' "limits.pids as root: by null"
	like "$(jget unenforced)" '"pids"' "... and pids is listed as unenforced"
else
	is "$(jget limits.pids)" '{"by":"rlimit-uid","count":100}' "limits.pids: by rlimit-uid (backend none: the uid's count)"
	unlike "$(jget unenforced)" '"pids"' "... and pids is not listed as unenforced"
fi
is "$(jget limits.cpu)" '{"by":"rlimit","ms":10000}' "limits.cpu"
is "$(jget limits.file_size)" '{"by":"rlimit","bytes":1048576}' "limits.file_size"
is "$(jget limits.open_files)" '{"by":"rlimit","count":64}' "limits.open_files"
# RLIMIT_CPU counts whole seconds: what is enforced is said, not what was
# asked (the payload's own limits agree).
sbx_script 'grep "^Max cpu time" /proc/self/limits' --backend none -w "$WD" --cpu 1500ms \
    --allow-degraded
is "$(jget limits.cpu)" '{"by":"rlimit","ms":2000}' "--cpu 1500ms: limits.cpu says the 2 s enforced"
like "$(cat "$T/out")" "Max cpu time              2                    2" "... as the payload's limits do"
sbx_script 'head -c 2000000 /dev/zero > big' --backend none -w "$WD" --file-size 1M
ok "--file-size 1M stops a 2 MB write (status $SBX_STATUS)" test "$SBX_STATUS" -ne 0
# A limit the kernel will not set (above fs.nr_open) fails the start with
# 125 and a message that names it, not the rlimit's number alone.
sbx_script 'true' --backend none -w "$WD" --open-files 1073741824
is_status 125 "--open-files above fs.nr_open: refused (125)"
like "$(jget error)" "RLIMIT_NOFILE (--open-files, open_files)" "... the error names the limit"
ok "... the file is at most 1 MiB" test "$(fsize "$WD/big")" -le 1048576
sbx_script 'exec 3</dev/null 4</dev/null 5</dev/null 6</dev/null 7</dev/null 8</dev/null 9</dev/null' \
	--backend none -w "$WD" --open-files 8
ok "--open-files 8: a ninth descriptor fails (status $SBX_STATUS)" test "$SBX_STATUS" -ne 0

done_testing
