# The caller's files on the standard descriptors (sbxrun(1)): with the
# script on stdin and the output in files ("sbxrun <job.sh >out.log"),
# the sandbox must not change those files' mode, times or attributes
# through the descriptors it inherits (fchmod, futimens, fsetxattr, and
# the same through /proc/self/fd/N and /dev/stdout). Verdicts: stat and
# the attribute list of the files, read on the host. Run for
# $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=12
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

done_testing
