# Whoever may rename in $TMPDIR must not give the sandbox a workdir of
# their own (threat model, attacker 3).
#
# A temp workdir is made by the keeper, which opens what it made following
# nothing and keeps that descriptor; sbxrun then resolved the workdir by
# its name. The owner of a $TMPDIR without the sticky bit (here uid
# 65534's, mode 0777) exchanges that name with a directory of their own
# in between (tests/holdcall holds the keeper's open once it has returned,
# until the exchange is made): the run must refuse, and nothing the
# sandbox writes may land in the owner's directory. Under namespaces the
# workdir is on disk only with --keep.
# Verdicts on the host: the owner's directory after the run, the status.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=6
if ! root_only "only root traces sbxrun and acts as the owner of \$TMPDIR" "$N_TESTS"; then
	done_testing
	exit 0
fi
HOLDCALL=${HOLDCALL:-$(dirname "$SBXRUN")/tests/holdcall}
if [ ! -x "$HOLDCALL" ]; then
	echo "Bail out! tests/holdcall is missing at $HOLDCALL (make check builds it)"
	exit 1
fi
if ! id sbxtest >/dev/null 2>&1; then
	echo "Bail out! the user sbxtest is missing (.ci/run makes it)"
	exit 1
fi
keep=
[ "$SBX_BACKEND" = namespaces ] && keep=--keep
chmod 711 "$T"

# swap_run CALLER: CALLER (root or sbxtest) runs a script writing "out"
# in its workdir, with TMPDIR a directory of 65534's, held once the keeper
# has opened the temp workdir it made; 65534 then exchanges its name with
# a directory of its own. Three checks.
swap_run() {
	_ut=$JT/ut-$1
	mkdir "$_ut"
	chown 65534:65534 "$_ut"
	chmod 777 "$_ut"
	rm -f "$T/held" "$T/go"
	_as=
	[ "$1" = root ] || _as="runuser -u $1 --"
	printf '%s\n' 'echo sandbox-output >out; echo done' >"$T/script"
	# (A sanitized build's leak check cannot run under ptrace.)
	# shellcheck disable=SC2086
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$HOLDCALL" -x -s openat -m "$_ut|sbxrun.*|*" -H "$T/held" -g "$T/go" -- \
	    $_as env TMPDIR="$_ut" "$SBXRUN" --backend "$SBX_BACKEND" $keep --diag fd:3 \
	    <"$T/script" >"$T/run.out" 2>"$T/run.err" 3>"$T/run.diag" &
	_run=$!
	JAIL_PIDS="$JAIL_PIDS $_run"
	wait_for "[ -e '$T/held' ]" 60
	_name=$(sed -n 's/^[^|]*|\(sbxrun\.[^|]*\)|.*/\1/p' "$T/held")
	setpriv --reuid 65534 --regid 65534 --clear-groups mkdir -m 777 "$_ut/theirs"
	_swap=missed
	[ -n "$_name" ] && _swap=$(exchange_as 65534 "$_ut/$_name" "$_ut/theirs")
	: >"$T/go"
	wait "$_run"
	_st=$?
	is "$_swap" swapped "$1: the owner of \$TMPDIR exchanged the temp workdir with its own directory"
	is "$_st:$(grep -c 'was replaced after it was made' "$T/run.err")" 125:1 \
	    "$1: the run was refused, naming the replaced workdir"
	# The owner's directory is at the workdir's name now.
	absent "$1: nothing the sandbox wrote is in the owner's directory" "$_ut/$_name/out"
}

swap_run root
swap_run sbxtest

done_testing
