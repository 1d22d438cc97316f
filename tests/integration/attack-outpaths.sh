# Where sbxrun writes for the caller after the run, at a name inside the
# workdir the sandbox writes: --diag PATH and --trace FILE. The sandbox
# may remove the file and make its own at the name, move the directory
# aside and put its own there, or (a file it can write) write its own
# lines into it; what the caller then reads at the name must never be the
# sandbox's line taken for sbxrun's (sbxrun(1), --diag and TRACING).
# Judged on the host. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

# out_run SCRIPT ARG...: sbxrun with SCRIPT on stdin, no fd:3.
out_run() {
	printf '%s\n' "$1" >"$T/script"
	shift
	"$SBXRUN" --backend "$SBX_BACKEND" "$@" <"$T/script" >"$T/out" 2>"$T/err"
	SBX_STATUS=$?
}

FORGED='{"version":"0.1.0","status":0,"exit_code":0,"signal":null,"warnings":[],"error":null,"denials":0}'

# 1. --diag PATH removed and made anew by the sandbox, which exits 3.
new_wd
out_run "rm -f diag.json; printf '%s\n' '$FORGED' >diag.json; exit 3" \
    -w "$WD" --diag "$WD/diag.json"
is_status 3 "diag replaced: the run's status is 3"
like "$(cat "$T/err")" "diag.json was replaced while the run lasted" \
    "diag replaced: a message on standard error says so"
is "$(jget status "$T/err")" 3 "diag replaced: the true line (status 3) follows on standard error"

# 2. Written in place: the sandbox's lines, longer than sbxrun's, in the
# file sbxrun opened (the caller's uid, or uid 65534 with a lent workdir).
new_wd
pad=$(printf '%0600d' 0)
out_run "printf '%s\n%s\n%s\n' '$FORGED' '$FORGED' '{\"pad\":\"$pad\"}' >diag.json; exit 3" \
    -w "$WD" --diag "$WD/diag.json"
is_status 3 "diag written in place: the run's status is 3"
is "$(wc -l <"$WD/diag.json" | tr -d ' ')" 1 "diag written in place: the file holds one line"
is "$(jget status "$WD/diag.json")" 3 "diag written in place: it is sbxrun's (status 3)"

# 2b. The same through a descriptor the caller opened on a file of the
# workdir (the man page's 3>diag.json): sbxrun's line at offset 0, the
# sandbox's padding and forged line past it.
new_wd
printf '%s\n' "printf '%s\n%s\n' '{\"pad\":\"$pad$pad$pad\"}' '$FORGED' >diag3.json; exit 3" >"$T/script"
"$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --diag fd:3 <"$T/script" >"$T/out" 2>"$T/err" 3>"$WD/diag3.json"
SBX_STATUS=$?
is_status 3 "diag on fd:3 written past sbxrun's line: the run's status is 3"
is "$(jget status "$WD/diag3.json")" 3 "diag on fd:3: the last line is sbxrun's (status 3)"

# 3. --trace FILE in a directory of the workdir: the sandbox moves the
# directory aside and puts its own, with a forged trace, at the name.
new_wd
mkdir "$WD/out"
out_run 'mv out .moved && mkdir out && echo "{\"forged\":true}" >out/trace.json; exit 0' \
    -w "$WD" --trace "$WD/out/trace.json" --diag "$T/diag"
is_status 0 "trace directory swapped: the run's status is 0"
is "$(jget trace)" null "trace directory swapped: the diagnostics report no trace"
like "$(jget warnings)" "the name does not lead to the trace" \
    "trace directory swapped: a warning says so"
ok "trace directory swapped: the trace went to the moved directory (control)" \
    [ -s "$WD/.moved/trace.json" ]

# 4. Control: a trace in the workdir left alone is reported.
new_wd
mkdir "$WD/out"
out_run 'echo hi >f; exit 0' -w "$WD" --trace "$WD/out/trace.json" --diag "$T/diag"
is "$(jget trace.path)" "$WD/out/trace.json" "trace left alone: reported at its name (control)"

# 5. Standard output given as a regular file reaches the sandbox as a pipe
# that sbxrun copies from (sbxrun(1)): the copying, not the sandbox, wrote
# the file, and --file-size no longer held it. It does again, with a
# warning; the sandbox's writes past it fail.
new_wd
printf '%s\n' 'head -c 3000000 /dev/zero; echo "after:$?" >&2' >"$T/script"
"$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" --file-size 1M --diag fd:3 <"$T/script" \
    >"$T/big.out" 2>"$T/big.err" 3>"$T/diag"
SBX_STATUS=$?
is "$(wc -c <"$T/big.out" | tr -d ' ')" 1048576 "stdout a file: held to --file-size 1M (host side)"
like "$(jget warnings)" "standard output, a file, reached the file-size limit" \
    "stdout a file: a warning says so"
unlike "$(cat "$T/big.err")" "after:0" "stdout a file: the sandbox's write past the limit failed"
rm -f "$T/big.out"

# 6. truncate(2) is made by the supervisor with a repository in the
# workdir (landlock), under sbxrun's own limits: a file grew to 1 TiB
# under --file-size 1M. It fails with EFBIG, as the sandbox's own does
# (both backends; the file's size is read on the host).
new_wd
git init -q "$WD" 2>/dev/null || mkdir -p "$WD/.git"
out_run 'python3 -c "
import os, signal
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
open(\"big\", \"w\").close()
try:
    os.truncate(\"big\", 1 << 40)
except OSError as e:
    print(\"truncate\", e.errno)
open(\"small\", \"w\").close()
os.truncate(\"small\", 8192)
"' -w "$WD" --file-size 1M --diag none
is "$(stat -c %s "$WD/big")" 0 "truncate past --file-size: the file did not grow (host side)" ||
	diag "$(cat "$T/out" "$T/err")"
like "$(cat "$T/out")" "truncate 27" "... the call failed with EFBIG"
is "$(stat -c %s "$WD/small")" 8192 "... one within it grew (control)"

# 7. The directory on the way to --diag and --trace is walked as a mount
# source is (sbxrun(1), --diag): a symlink in the workdir (an earlier
# sandbox's; a root caller's sandbox writes there as root through the
# idmapped mount) or one owned by another user is not followed, and a file
# at the name owned by another user is not written. Root truncated and
# wrote the line, and linked the trace, in a directory of the link's
# choosing.
new_wd
mkdir "$T/kept"
printf 'old\n' >"$T/kept/diag.json"
printf 'old\n' >"$T/kept/trace.json"
ln -s "$T/kept" "$WD/logs"
out_run 'exit 0' -w "$WD" --diag "$WD/logs/diag.json"
is_status 125 "diag through a symlink in the workdir: refused"
is "$(cat "$T/kept/diag.json")" old "... the file it leads to is untouched"
out_run 'exit 0' -w "$WD" --trace "$WD/logs/trace.json" --diag "$T/diag"
is_status 125 "trace through a symlink in the workdir: refused"
is "$(cat "$T/kept/trace.json")" old "... the file it leads to is untouched"
mkdir "$WD/real"
out_run 'exit 0' -w "$WD" --diag "$WD/real/diag.json"
is "$(jget status "$WD/real/diag.json")" 0 "diag in a directory of the workdir, no link: written (control)"
if [ "$(id -u)" = 0 ]; then
	# Another user's: a link in a directory of theirs, a file at the name.
	ln -s "$T/kept" "$T/theirs"
	chown -h sbxtest "$T/theirs"
	out_run 'exit 0' --diag "$T/theirs/diag.json"
	is_status 125 "root: diag through another user's symlink: refused"
	is "$(cat "$T/kept/diag.json")" old "... the file it leads to is untouched"
	out_run 'exit 0' --trace "$T/theirs/trace.json" --diag "$T/diag"
	is_status 125 "root: trace through another user's symlink: refused"
	is "$(cat "$T/kept/trace.json")" old "... the file it leads to is untouched"
	printf 'old\n' >"$T/owned.json"
	chown sbxtest "$T/owned.json"
	out_run 'exit 0' --diag "$T/owned.json"
	is_status 125 "root: diag at another user's file: refused"
	is "$(cat "$T/owned.json")" old "... the file is untouched"
	ln -s "$T" "$T/mine"
	out_run 'exit 0' --diag "$T/mine/diag-root.json"
	is "$(jget status "$T/diag-root.json")" 0 "root: diag through root's own symlink: written (control)"
fi

done_testing
