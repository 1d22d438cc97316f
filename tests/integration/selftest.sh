# sbxrun --selftest (sbxrun(1)): the built-in battery of escape attempts
# through this machine's jail. Under $SBX_BACKEND (default namespaces) it
# must stop everything (status 0) and print a complete table and one JSON
# line; with no barrier at all (--backend none --allow-degraded) it must
# fail (status 1), name the escapes, and still leave the machine as it
# was: its directory gone, no process of its left, the shell binary the
# exe-write attempt opens unchanged.
. "$(dirname "$0")/jail-lib.sh"

# The selftest's own directory goes under TMPDIR: a private one here, so
# that whatever it leaves can be counted.
ST_TMP=$JT/st-tmp
mkdir -p "$ST_TMP"
chmod 755 "$ST_TMP"
# The battery's daemon runs the payload under ST_TMP with its token: the
# pattern is this test's own, never a concurrent test's battery (make -j
# runs the namespaces and landlock variants side by side).
LINGER="$ST_TMP/.*SBXST-LINGER"

# Every attempt the battery must hold, by its title in the table.
TITLES='write outside the workdir
read ~/.ssh/decoy (decoy)
read ~/.aws/decoy (decoy)
read ~/.netrc (decoy)
read ~/.config/gcloud/decoy (decoy)
bare repository at the workdir top
host loopback listener
host interface address
TCP Fast Open to a host listener
host abstract unix socket
TIOCSTI into the terminal
nested user namespace
mount a tmpfs
ptrace sbxrun
io_uring_setup
MPTCP socket
MPTCP, high bits in protocol
32-bit syscall (int 0x80)
use a leaked host descriptor
open /proc/PID/exe for writing
file capability (security.capability)
trusted.* xattr
security.* xattr
outlive sbxrun (daemon)
chmod .git/hooks
signal sbxrun (SIGTERM)'

selftest() {
	env TMPDIR="$ST_TMP" "$SBXRUN" --selftest "$@" </dev/null >"$T/st.out" 2>"$T/st.err"
	ST_STATUS=$?
	tail -n 1 "$T/st.out" >"$T/st.json"
}

table_complete() {
	_missing=
	_old_ifs=$IFS
	IFS='
'
	for _t in $TITLES; do
		grep -F -q -- "$_t" "$T/st.out" || _missing="$_missing [$_t]"
	done
	IFS=$_old_ifs
	if [ -n "$_missing" ]; then
		diag "missing rows:$_missing"
		return 1
	fi
}

# --- the jail holds ------------------------------------------------------------
selftest --backend "$SBX_BACKEND"
diag "$(cat "$T/st.out")"
is "$ST_STATUS" 0 "--selftest --backend $SBX_BACKEND: every attempt stopped (exit 0)"
ok "the last line of stdout is one JSON object" json_line "$T/st.json"
is "$(jget selftest "$T/st.json")" pass "the summary says pass"
is "$(jget backend "$T/st.json")" "$SBX_BACKEND" "the summary names the backend the jail used"
is "$(jget not_stopped "$T/st.json")" "[]" "the summary lists no escape"
is "$(jget not_run "$T/st.json")" "[]" "every attempt ran"
ok "the table has a row for every attempt of the battery" table_complete
ok "the table has a header (attempt, expected, result)" \
    grep -Eq '^attempt +expected +result' "$T/st.out"
unlike "$(cat "$T/st.out")" "NOT STOPPED" "no row says NOT STOPPED"
is "$(cat "$T/st.err")" "" "nothing on stderr"
is "$(ls -A "$ST_TMP")" "" "the selftest's directory is gone"
no_survivors "no process of the battery is left" "$LINGER"
diag "took $(jget elapsed_ms "$T/st.json") ms"

# --- --diag takes the summary line ------------------------------------------------
# Through the descriptor made and checked before the battery ran (its
# directory walked: sbxrun(1), --diag), never the name again: the battery
# lasts long enough for another user owning a directory on the way to
# swap it for a link, or the file for a FIFO no one reads. strace without
# -f (sbxrun's first thread) sees every open of it by name.
if command -v strace >/dev/null 2>&1; then
	# A sanitized build's leak check cannot run under ptrace: off here.
	env TMPDIR="$ST_TMP" ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -o "$T/st.strace" -e trace=open,openat \
	    "$SBXRUN" --selftest --backend "$SBX_BACKEND" --diag "$T/st.diag" \
	    </dev/null >"$T/st.out" 2>"$T/st.err"
	is "$(grep -cF "\"$T/st.diag\"" "$T/st.strace")" 0 \
	    "--diag PATH: the file is never opened by its whole name (its directory is walked)"
else
	env TMPDIR="$ST_TMP" "$SBXRUN" --selftest --backend "$SBX_BACKEND" --diag "$T/st.diag" \
	    </dev/null >"$T/st.out" 2>"$T/st.err"
	skip "strace is not installed: cannot count the opens by name" 1
fi
ok "with --diag PATH the summary line goes there" json_line "$T/st.diag"
unlike "$(tail -n 1 "$T/st.out")" '"selftest"' "... and not to stdout"

# --- the selftest can fail, and does no harm then --------------------------------
if [ "$SBX_BACKEND" = namespaces ]; then
	sh_bin=$(readlink -f /bin/sh)
	sh_sum=$(fsum "$sh_bin")
	selftest --backend none --allow-degraded
	diag "$(cat "$T/st.out")"
	is "$ST_STATUS" 1 "--selftest with no barrier (--backend none --allow-degraded) exits 1"
	is "$(jget selftest "$T/st.json")" fail "the summary says fail"
	for id in write-outside 'read:~/.ssh/decoy' bare-repo loopback abstract fastopen \
	    userns io_uring mptcp; do
		like "$(jget not_stopped "$T/st.json")" "\"$id\"" "with no barrier, $id is listed as not stopped"
	done
	like "$(cat "$T/st.out")" "NOT STOPPED" "the table says NOT STOPPED"
	ok "the table is complete there too" table_complete
	is "$(ls -A "$ST_TMP")" "" "with no barrier, the selftest's directory is gone all the same"
	no_survivors "with no barrier, no process of the battery is left" "$LINGER"
	is "$(fsum "$sh_bin")" "$sh_sum" "with no barrier, $sh_bin is unchanged"
	ok "with no barrier, the caller's home was not touched" test ! -e "$HOME/.ssh"
else
	skip "the no-barrier run is the same for every backend: done by selftest.sh (namespaces)" 17
fi

# --- it takes the default policy only --------------------------------------------
for extra in "--network off" "-w $T" "--fs open" "-- /bin/true"; do
	# shellcheck disable=SC2086 # each is several words on purpose
	"$SBXRUN" --selftest $extra </dev/null >"$T/out" 2>"$T/err"
	is "$?" 125 "--selftest $extra is refused (125)"
	like "$(head -n 1 "$T/err")" "selftest" "... and the message says why"
done

done_testing
