# Whoever may rename in $TMPDIR, or in a parent of the workdir, must not
# give sbxrun a workdir of their own to write in (threat model, attacker
# 3).
#
# A temp workdir is made by the keeper, which opens what it made following
# nothing and keeps that descriptor; sbxrun then resolved the workdir by
# its name. The owner of a $TMPDIR without the sticky bit (here uid
# 65534's, mode 0777) exchanges that name with a directory of their own
# in between (tests/holdcall holds the keeper's open once it has returned,
# until the exchange is made): the run must refuse, and nothing the
# sandbox writes may land in the owner's directory. Under namespaces the
# workdir is on disk only with --keep.
#
# Then --interp, with -w P/proj and P uid 65534's: the script from stdin
# is stored in WORKDIR/.sbxrun by the keeper, which opened the workdir by
# its name, and PROG was given the file by its absolute name, which under
# landlock is the host's. 65534 exchanges proj with a directory of its
# own, once proj is pinned (held at resolve's first step up from the pin)
# or once the script is stored (held at PROG's open of it, the owner's
# directory holding a script of its own): the script must go to the
# pinned workdir, nothing to the owner's directory, and the caller's
# script must be the one that runs.
# Verdicts on the host: the owner's directory after the run, the status.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=16
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

# interp_held CALLER SYSCALL PATTERN: CALLER runs an --interp script
# (writing "out") with -w P/proj, held at SYSCALL matching PATTERN
# (P/proj's path in it is %P%); 65534 then exchanges proj with P/theirs.
# Sets _st (the status), _p and _mtime (the owner's directory's
# modification time before); one check.
HELD_SEQ=0
interp_held() {
	HELD_SEQ=$((HELD_SEQ + 1))
	_p=$JT/parent-$HELD_SEQ
	mkdir -p "$_p/proj" "$_p/theirs"
	chown 65534:65534 "$_p" "$_p/theirs"
	chmod 755 "$_p"
	chmod 777 "$_p/theirs"
	chown "$1": "$_p/proj"
	# What is made and removed there moves its modification time.
	_mtime=$(stat -c %y "$_p/theirs")
	rm -f "$T/held" "$T/go"
	_as=
	[ "$1" = root ] || _as="runuser -u $1 -- env TMPDIR=/tmp"
	_m=$(printf '%s' "$3" | sed "s|%P%|$_p/proj|")
	printf '%s\n' 'echo interp-ran >out' >"$T/script"
	# shellcheck disable=SC2086
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$HOLDCALL" -s "$2" -m "$_m" -H "$T/held" -g "$T/go" -- \
	    $_as "$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 -w "$_p/proj" --interp sh \
	    <"$T/script" >"$T/run.out" 2>"$T/run.err" 3>"$T/run.diag" &
	_run=$!
	JAIL_PIDS="$JAIL_PIDS $_run"
	wait_for "[ -e '$T/held' ]" 60
	# The owner's own script, where a name would find it after the
	# exchange (for the first hold the keeper refuses a .sbxrun of
	# another owner's; it is added after that hold only).
	if [ "$2" = openat ] && [ "$3" != "%P%|..|*" ]; then
		setpriv --reuid 65534 --regid 65534 --clear-groups sh -c \
		    'mkdir -m 755 "$1/.sbxrun" && echo "echo planted >out" >"$1/.sbxrun/main.sh"' \
		    sh "$_p/theirs"
	fi
	_swap=$(exchange_as 65534 "$_p/proj" "$_p/theirs")
	: >"$T/go"
	wait "$_run"
	_st=$?
	is "$_swap" swapped "$1 --interp, held at $2: the parent's owner exchanged the pinned workdir with its own"
}

for c in root sbxtest; do
	# Once proj is pinned: resolve's first step up from it. The real
	# workdir is at "theirs" now, the owner's directory at proj. (An
	# unprivileged caller's jail opens the workdir below its old root and
	# refuses another object: namespaces refuses the run there.)
	interp_held "$c" openat '%P%|..|*'
	case $_st:$(cat "$_p/theirs/out" 2>&1) in
	0:interp-ran) pass "$c --interp: the script was stored in the pinned workdir and ran" ;;
	125:*) if grep -q "changed after it was checked" "$T/run.err"; then
		pass "$c --interp: the script was stored in the pinned workdir and ran (or refused)"
	else
		fail "$c --interp: the script was stored in the pinned workdir and ran"
		diag "$(tail -n 3 "$T/run.err")"
	fi ;;
	*) fail "$c --interp: the script was stored in the pinned workdir and ran"
		diag "status $_st; $(tail -n 3 "$T/run.err")" ;;
	esac
	is "$(stat -c %y "$_p/proj")" "$_mtime" \
	    "$c --interp: nothing was made in the owner's directory (its modification time)"
	# Once the script is stored: PROG's open of it.
	interp_held "$c" openat '*|*.sbxrun/main.sh|*'
	is "$_st:$(cat "$_p/theirs/out" 2>&1)" 0:interp-ran \
	    "$c --interp: the caller's script ran, not the one at the name" ||
	    diag "$(tail -n 3 "$T/run.err")"
done

done_testing
