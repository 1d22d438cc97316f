# The caller's files on the standard descriptors (sbxrun(1)): with the
# script on stdin and the output in files ("sbxrun <job.sh >out.log"),
# the sandbox must not change those files' mode, times or attributes
# through the descriptors it inherits (fchmod, futimens, fsetxattr, and
# the same through /proc/self/fd/N and /dev/stdout), and what the sandbox
# writes must not overwrite what another writer of the caller puts into
# the same open file at the same time. Verdicts: stat and the attribute
# list of the files, and their lines, read on the host. Run for
# $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=26
if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 is needed to read attributes on the host" "$N_TESTS"
	done_testing
	exit
fi

# mode, mtime and ctime, then the attribute names, of each file given.
meta() {
	python3 - "$@" <<'PY'
import os, sys
for p in sys.argv[1:]:
    st = os.stat(p)
    print("%o %d %d %s" % (st.st_mode & 0o7777, st.st_mtime_ns, st.st_ctime_ns,
                           ",".join(sorted(os.listxattr(p)))))
PY
}
mode_xattrs() {
	meta "$1" | cut -d' ' -f1,4
}

attack='chmod 666 /proc/self/fd/0 /dev/stdout /dev/stderr 2>/dev/null
touch -d 2001-02-03 /proc/self/fd/0 /dev/stdout /dev/stderr 2>/dev/null
python3 - <<PY 2>/dev/null
import os
for fd in (0, 1, 2):
    for step in (lambda: os.chmod(fd, 0o4777), lambda: os.utime(fd, (981158400, 981158400)),
                 lambda: os.setxattr(fd, "user.sbx", b"1"),
                 lambda: os.setxattr("/proc/self/fd/%d" % fd, "user.sbxp", b"1"),
                 lambda: os.chmod("/proc/self/fd/%d" % fd, 0o666)):
        try:
            step()
        except OSError:
            pass
PY
echo inside-done
echo inside-err >&2
exit 0'

run_files() {
	# $1: how stdout and stderr are given ("split" or "shared")
	new_wd
	printf '%s\n' "$attack" >"$JT/job.sh"
	: >"$JT/out.log"
	: >"$JT/err.log"
	chmod 640 "$JT/job.sh" "$JT/out.log" "$JT/err.log"
	touch -d 2020-01-01 "$JT/job.sh" "$JT/out.log" "$JT/err.log"
	sleep 0.01
	meta "$JT/job.sh" >"$T/job.before"
	if [ "$1" = shared ]; then
		"$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --diag fd:3 <"$JT/job.sh" \
		    >"$JT/out.log" 2>&1 3>"$T/diag"
	else
		"$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --diag fd:3 <"$JT/job.sh" \
		    >"$JT/out.log" 2>"$JT/err.log" 3>"$T/diag"
	fi
	SBX_STATUS=$?
}

run_files split
is_status 0 "the stdio attack ran (stdin, stdout, stderr on files)"
is "$(meta "$JT/job.sh")" "$(cat "$T/job.before")" \
    "the script file on stdin keeps its mode, times and attributes"
is "$(mode_xattrs "$JT/out.log")" "640 " "the stdout file keeps its mode, no attribute added"
is "$(mode_xattrs "$JT/err.log")" "640 " "the stderr file keeps its mode, no attribute added"
ok "the stdout file's time is not the one set inside" \
    sh -c "[ \"\$(date -r '$JT/out.log' +%Y)\" != 2001 ]"
is "$(cat "$JT/out.log")" inside-done "stdout still reaches the file (control)"
is "$(cat "$JT/err.log")" inside-err "stderr still reaches the file (control)"

run_files shared
is_status 0 "the stdio attack ran (2>&1 on one file)"
is "$(meta "$JT/job.sh")" "$(cat "$T/job.before")" "2>&1: the script file keeps its metadata"
is "$(mode_xattrs "$JT/out.log")" "640 " "2>&1: the output file keeps its mode, no attribute added"
is "$(sed -n 1p "$JT/out.log")" inside-done "2>&1: stdout comes first, in order (control)"
is "$(sed -n 2p "$JT/out.log")" inside-err "2>&1: then stderr, before nothing else of sbxrun's"

# One open file shared with a writer outside, both writing at once (as
# jobs of one shell share its log): every line of both must be there. The
# copier used to splice into the file, which sets the file's offset
# without the lock write(2) takes; lines written meanwhile by anyone else
# on that file were overwritten. The sandbox writes until the outside
# writer is done, so the two overlap whatever the machine's load.
new_wd
cat >"$WD/inside.py" <<'PY'
import os
n = 0
while n % 512 or not os.path.exists("stop"):
    os.write(1, b"IN %d ................................\n" % n)
    n += 1
os.write(1, b"IN-END %d\n" % n)
PY
(
	"$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" -q -- python3 inside.py </dev/null 3>&- &
	sbx_pid=$!
	python3 - "$WD" <<'PY'
import os, sys, time
wd = sys.argv[1]
deadline = time.monotonic() + 60
while os.fstat(1).st_size == 0 and time.monotonic() < deadline:
    time.sleep(0.001)
for i in range(100000):
    os.write(1, b"OUT %d ...............................\n" % i)
open(os.path.join(wd, "stop"), "w").close()
PY
	wait "$sbx_pid"
) >"$JT/shared.log" 2>"$T/shared.err"
SBX_STATUS=$?
is_status 0 "a sandbox and an outside writer on one file ran"
python3 - "$JT/shared.log" >"$T/shared.count" <<'PY'
import re, sys
data = open(sys.argv[1], "rb").read()
outside = re.findall(rb"OUT (\d+) \.+\n", data)
rest = re.sub(rb"OUT \d+ \.+\n", b"", data)
inside = re.findall(rb"IN (\d+) \.+\n", rest)
end = re.search(rb"IN-END (\d+)\n", rest)
ok_in = end is not None and [int(x) for x in inside] == list(range(int(end.group(1))))
print("outside %d, inside %s" % (len(outside), "whole" if ok_in else "%d of %s" % (
    len(inside), end.group(1).decode() if end else "?")))
PY
like "$(cat "$T/shared.count")" "outside 100000," \
    "every line written outside is in the shared file"
like "$(cat "$T/shared.count")" "inside whole" \
    "every line the sandbox wrote is there, in order, around the outside ones"

# Standard input on a file, the output on pipes: sbxrun moves the script
# into the pipe itself right after the start, and starts no copier when
# all of it fit (the caller's usual "sbxrun <job.sh | ..."). The file
# keeps its metadata all the same, and the sandbox reads it all.
new_wd
printf '%s\n' "$attack" >"$JT/job.sh"
chmod 640 "$JT/job.sh"
touch -d 2020-01-01 "$JT/job.sh"
meta "$JT/job.sh" >"$T/job.before"
("$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --diag fd:3 <"$JT/job.sh" 2>&1 3>"$T/diag"
	echo $? >"$T/pipe.status") | cat >"$T/pipe.out"
SBX_STATUS=$(cat "$T/pipe.status")
is_status 0 "the stdio attack ran (stdin on a file, the output on a pipe)"
is "$(meta "$JT/job.sh")" "$(cat "$T/job.before")" \
    "stdin on a file, output on a pipe: the script keeps its mode, times and attributes"
like "$(cat "$T/pipe.out")" "inside-done" "the output came through the pipe (control)"

# A script larger than the pipe holds (2.6 MB; a pipe takes 1 MB at
# most): what the first copy left is copied on by the thread, in order,
# to the last line.
awk 'BEGIN { for (i = 0; i < 100000; i++) print ": $((n += 1)) # ...................."; print "echo lines $n" }' \
    >"$JT/big.sh"
("$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --diag fd:3 <"$JT/big.sh" 2>&1 3>"$T/diag"
	echo $? >"$T/pipe.status") | cat >"$T/pipe.out"
SBX_STATUS=$(cat "$T/pipe.status")
is_status 0 "a script larger than the pipe ran"
is "$(cat "$T/pipe.out")" "lines 100000" "every line of a script larger than the pipe arrived, in order"

# The sandbox closes its standard input without reading a large file
# given there: the copy into a pipe nobody reads ends (EPIPE, never a
# SIGPIPE that would end sbxrun), and the run ends with the sandbox's
# status and its diagnostics.
("$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --diag fd:3 -- sh -c 'exec 0<&-; exit 7' \
	<"$JT/big.sh" 2>&1 3>"$T/diag"
	echo $? >"$T/pipe.status") | cat >"$T/pipe.out"
SBX_STATUS=$(cat "$T/pipe.status")
is_status 7 "a sandbox that closed its stdin at once ended with its own status"
like "$(cat "$T/diag")" '"status":7' "sbxrun lived to write the diagnostics line"
is "$(cat "$T/pipe.out")" "" "sbxrun said nothing of its own (control)"

# A sandbox that drains its stdin pipe as fast as sbxrun fills it, with a
# stdin file that never ends (a terabyte of holes: one a sandbox could
# make of a stdin file in its workdir with one truncate). sbxrun copies
# stdin itself right after the start, before it watches the timeout;
# that copy must stop at a pipe's worth, or the timeout never fires. The
# file is read through tests/skewfs -r 1 (each read waits 1 ms for the
# "server", uncached), so the drain empties the pipe while sbxrun waits
# and the pipe never fills; tests/holdcall holds sbxrun's first read of
# it until the drain runs, so the drain is there from the first byte.
if root_only "tests/holdcall traces sbxrun (ptrace) and reads its descriptors" 3; then
	HOLDCALL=${HOLDCALL:-$(dirname "$SBXRUN")/tests/holdcall}
	SKEWFS=${SKEWFS:-$(dirname "$SBXRUN")/tests/skewfs}
	new_wd
	cat >"$WD/drain.py" <<'PY'
import os
out = os.open("/dev/null", os.O_WRONLY)
open("ready", "w").close()
while os.splice(0, out, 1 << 20) > 0:
    pass
PY
	mkdir -p "$JT/fsrc" "$JT/fmnt"
	truncate -s 1T "$JT/fsrc/endless.in"
	_stdio_cleanup() {
		umount "$JT/fmnt" 2>/dev/null || umount -l "$JT/fmnt" 2>/dev/null
		_jail_cleanup
	}
	trap _stdio_cleanup EXIT
	if "$SKEWFS" -l 0 -r 1 "$JT/fsrc" "$JT/fmnt" 2>"$T/fuse.err"; then
		rm -f "$T/held" "$T/go"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    "$HOLDCALL" -s read -m '*/endless.in|*' -H "$T/held" -g "$T/go" -- \
		    "$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --timeout 3 --diag fd:3 \
		    -- python3 drain.py <"$JT/fmnt/endless.in" >"$T/endless.out" 2>"$T/err" \
		    3>"$T/diag" &
		run=$!
		JAIL_PIDS="$JAIL_PIDS $run"
		wait_for "[ -e '$T/held' ] && [ -e '$WD/ready' ]" 60
		: >"$T/go"
		# A hang guard, not a measure: the timeout is 3 s; without the
		# bound the copy of the terabyte goes on for hours.
		if wait_for "! kill -0 $run 2>/dev/null" 60; then
			wait "$run"
			SBX_STATUS=$?
		else
			pkill -KILL -P "$run" 2>/dev/null
			kill -KILL "$run" 2>/dev/null
			wait "$run"
			SBX_STATUS="still running after 60 s"
		fi
		like "$(cat "$T/held" 2>/dev/null)" "endless.in" \
		    "the pause held sbxrun's first read of the stdin file (precondition)"
		is_status 124 "a sandbox draining an endless stdin still ends at the timeout"
		like "$(cat "$T/diag")" '"timed_out":true' "the diagnostics say the timeout fired"
	else
		fail "setting up: cannot mount tests/skewfs: $(cat "$T/fuse.err")"
		skip "no FUSE mount" 2
	fi
	umount "$JT/fmnt" 2>/dev/null || umount -l "$JT/fmnt" 2>/dev/null
fi

done_testing
