# Another local user must not leave files of its own in the caller's
# workdir through a directory the run opened to everyone (threat model,
# "Nothing is planted for later"; handback.md, section 2).
#
# The payload makes sub with mode 0777 and waits; meanwhile another user
# writes sub/run.sh and makes sub/own/x. Before the fix, the search after
# the run took write for others from sub and said only that, but run.sh
# and own/ stayed there, that user's: the caller's next build ran run.sh
# under its name, and its owner could rewrite it at any time later.
#
# Two cases, each a run of its own:
#   root:    a root caller, the attacker sbxtest; the planted entries
#            must leave their names, be named in the warnings, and be out
#            of sbxtest's reach (it cannot write run.sh nor own/x any more)
#   sbxtest: a sbxtest caller, the attacker uid 65534 (another user of
#            the machine); a non-root caller cannot take the entries, so
#            they must leave their names and be named
#   root, under namespaces: the attacker uid 65534, a daemon running as
#            nobody, whose entries are not the run's there
# The payload waits for the attacker to be done (own/x exists), so no
# clock decides. Verdicts on the host. The harness must be root (it acts
# as the other users); run as another user the file skips with a reason.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=13
[ "${SBX_BACKEND:-namespaces}" = namespaces ] && N_TESTS=17
other_users_only "$N_TESTS"

# plant_run CALLER ATTACKER [reset]: CALLER's run opens sub to everyone and waits
# until ATTACKER has planted sub/run.sh and sub/own/x; one check (the
# plant was made during the run, and the run ended well).
plant_run() {
	new_wd
	[ "$1" = root ] || chown "$1": "$WD"
	printf '%s\n' 'umask 0; mkdir sub; chmod 777 sub; : >ready
i=0
while [ ! -e sub/own/x ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ -e sub/own/x ] && echo saw-plant' >"$T/script"
	# reset: the payload then sets sub's modification time back to
	# before the run, which it may (it made sub).
	[ "${3:-}" = reset ] && echo 'touch -d 2000-01-01 sub' >>"$T/script"
	_as=
	if [ "$1" != root ]; then
		mkdir -p "$T/tmp-$1"
		chown "$1": "$T/tmp-$1"
		_as="runuser -u $1 -- env TMPDIR=$T/tmp-$1"
	fi
	# shellcheck disable=SC2086
	$_as "$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 -w "$WD" \
	    <"$T/script" >"$T/run.out" 2>"$T/run.err" 3>"$T/run.diag" &
	_run=$!
	JAIL_PIDS="$JAIL_PIDS $_run"
	wait_for "[ -e '$WD/ready' ] || ! kill -0 $_run 2>/dev/null" 60
	as "$2" sh -c "echo 'echo planted by $2' >'$WD/sub/run.sh' &&
	    mkdir '$WD/sub/own' && echo mine >'$WD/sub/own/x'" 2>"$T/plant.err"
	wait "$_run"
	_st=$?
	is "$_st:$(cat "$T/run.out")" 0:saw-plant \
	    "$1: $2 planted sub/run.sh and sub/own/x during the run, which ended well"
	[ -s "$T/plant.err" ] && diag "$(cat "$T/plant.err")"
	_warn=$(grep -o '"warnings":\[.*' "$T/run.diag")
}

# left_names CALLER ATTACKER: three checks.
left_names() {
	absent "$1: the name sub/run.sh no longer leads to what $2 wrote" "$WD/sub/run.sh"
	absent "$1: ... nor sub/own to $2's directory" "$WD/sub/own"
	case $_warn in
	*'sub/run.sh (uid '*'sub/own (uid '* | *'sub/own (uid '*'sub/run.sh (uid '*)
		pass "$1: the warnings name both" ;;
	*)
		fail "$1: the warnings name both"
		diag "$_warn" ;;
	esac
}

plant_run root sbxtest
# Whatever the entries are called now, their owner cannot change them
# (first: absent removes what it finds).
for f in $(find "$WD/sub" -name 'run.sh*' -o -path '*/own*/x'); do
	as sbxtest sh -c "echo CHANGED >'$f'" 2>/dev/null
done
is "$(grep -rl CHANGED "$WD" 2>&1)" "" \
    "root: sbxtest cannot rewrite what it planted, wherever it is now"
left_names root sbxtest

plant_run sbxtest 65534
left_names sbxtest 65534

# Under namespaces a root caller's sandbox makes root's files on disk
# (idmapped), so an entry of uid 65534's is not the run's: a daemon
# running as nobody planted it. It was taken for the sandbox's own and
# stayed, nobody's. (Under landlock the sandbox is 65534 on disk; its
# entries are handed back before the search.)
if [ "${SBX_BACKEND:-namespaces}" = namespaces ]; then
	plant_run root 65534
	left_names root 65534
fi

# The search used to judge "changed in the run" by the directory's
# modification time, which the sandbox sets back: the plant stayed.
plant_run root sbxtest reset
left_names root sbxtest

done_testing
