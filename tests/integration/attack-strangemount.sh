# Another local user mounts a FUSE filesystem (fusermount3 is set-user-ID)
# on a directory the sandbox opened to everyone in the caller's workdir,
# for the time of the checks after the run: they never cross into another
# mount, so what the run left below it went unseen (a .git at the top was
# not moved aside, a repository below was not named, a root caller's
# landlock lend was not handed back there, a thrown-away temp workdir was
# not removed), and the caller found that user's files there instead. Now
# such a mount, made during the run below a tree, is detached for a root
# caller before the checks and named; a caller other than root cannot
# detach another user's mount, and it is named as covering what was not
# checked (linux-mountwatch.h).
#
# The payload makes .git at the top (a config with core.fsmonitor) and
# opens it to everyone, then waits until the harness, having seen the
# other user's mount on it in the host's table, says go. Verdicts on the
# host: the mount table after the run, the workdir, the warnings. The
# harness must be root (it acts as the other users); run as another user
# the file skips with a reason. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=13
[ "${SBX_BACKEND:-namespaces}" = landlock ] && N_TESTS=16
other_users_only "$N_TESTS"
need_skewfs
if [ ! -c /dev/fuse ]; then
	skip "the kernel has no FUSE (/dev/fuse)" "$N_TESTS"
	done_testing
	exit
fi
# The attackers run their own copy of the server.
cp "$SKEWFS" "$JT/skewfs"
chmod 755 "$JT/skewfs"
MOUNTS=
_sm_cleanup() {
	for _m in $MOUNTS; do
		umount -l "$_m" 2>/dev/null
	done
	_jail_cleanup
}
trap _sm_cleanup EXIT

# mounted PATH: whether the host's table has a mount on PATH.
mounted() {
	awk -v p="$1" '$5 == p { f = 1 } END { exit !f }' /proc/self/mountinfo
}

cat >"$T/script" <<'EOF'
umask 0
chmod 755 .
mkdir -p .git/objects .git/refs/heads sub/x
printf 'ref: refs/heads/main\n' >.git/HEAD
printf '[core]\n\tfsmonitor = "touch planted-ran; false"\n' >.git/config
chmod 777 .git sub sub/x
: >ready
i=0
while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
[ -e go ]
EOF

# strange_run CALLER ATTACKER TARGET [WORKDIR]: CALLER's run (with -w
# WORKDIR, else a temp workdir in $JT/tmp-CALLER) makes TARGET open to
# everyone; ATTACKER mounts its FUSE server on it; the run ends. Sets
# MP (the mount point) and WARN; one check.
strange_run() {
	_src=$JT/src.$(echo "$1-$2-$3" | tr / _)
	mkdir -p "$_src" "$JT/tmp-$1"
	chown "$(id -u "$2" 2>/dev/null || echo "$2")" "$_src"
	chmod 755 "$JT/tmp-$1"
	_as=
	if [ "$1" != root ]; then
		chown "$1": "$JT/tmp-$1"
		_as="runuser -u $1 --"
	fi
	if [ -n "${4:-}" ]; then
		[ "$1" = root ] || chown "$1": "$4"
		_w="-w $4"
	else
		_w=
	fi
	# shellcheck disable=SC2086
	$_as env TMPDIR="$JT/tmp-$1" ${SM_ENV:-} "$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 $_w \
	    <"$T/script" >"$T/run.out" 2>"$T/run.err" 3>"$T/run.diag" &
	_run=$!
	JAIL_PIDS="$JAIL_PIDS $_run"
	_wd=${4:-}
	if [ -z "$_wd" ]; then
		wait_for "ls -d '$JT/tmp-$1'/sbxrun.* >/dev/null 2>&1" 30
		_wd=$(ls -d "$JT/tmp-$1"/sbxrun.* 2>/dev/null | head -n 1)
	fi
	wait_for "[ -e '$_wd/ready' ] || ! kill -0 $_run 2>/dev/null" 60
	MP=$_wd/$3
	MOUNTS="$MP $MOUNTS"
	as "$2" "$JT/skewfs" -l 0 "$_src" "$MP" 2>"$T/mount.err"
	wait_for "mounted '$MP'" 10
	mounted "$MP" || diag "the mount on $MP did not appear: $(cat "$T/mount.err")"
	: >"$_wd/go"
	wait "$_run"
	is "$?" 0 "$1: the run ended well, $2's mount on $3 made meanwhile"
	WARN=$(grep -o '"warnings":\[.*' "$T/run.diag")
}

# A root caller, -w: the mount is detached, and the .git under it is moved
# aside as one the run made.
new_wd
strange_run root sbxtest .git "$WD"
like "$WARN" "a mount made on $MP during the run (not the sandbox's: another process's) was detached before the checks" \
    "root: the warnings name the mount, detached"
nok "root: no mount is left on the workdir's .git" mounted "$MP"
absent "root: no .git is left at the workdir's top" "$WD/.git"
like "$WARN" "made .git, where nothing may be made; it was moved aside to .git.sbxrun-untrusted.1" \
    "root: the .git the run made is moved aside, and said to be"

# A caller other than root cannot detach another user's mount: it is
# named as covering what the checks did not see.
new_wd
strange_run sbxtest 65534 .git "$WD"
like "$WARN" "a mount made on $MP during the run (not the sandbox's: another process's) covers what the run left there" \
    "sbxtest: the warnings name the mount and what it covers"
umount -l "$MP" 2>/dev/null
# ... and a mount on a directory below the top that the search would enter.
new_wd
strange_run root sbxtest sub/x "$WD"
nok "root: no mount is left on sub/x" mounted "$MP"
like "$WARN" "the run left" "root: sub/x is searched: the directories it opened are named"

# A mount the look before the checks did not see below the tree (another
# user renamed its parent away for that moment, and back): the search,
# which meets it, detaches it. The look before the checks is skipped here
# (SBXRUN_TEST_MOUNT_PASS=late) to see the search's own at work.
new_wd
SM_ENV=SBXRUN_TEST_MOUNT_PASS=late
strange_run root sbxtest sub/x "$WD"
SM_ENV=
like "$WARN" "a mount made on $MP during the run (not the sandbox's: another process's) was detached during the search" \
    "root, look skipped: the search detaches the mount and names it"
nok "root, look skipped: no mount is left on sub/x" mounted "$MP"

# A temp workdir the landlock backend removes whole (the namespaces
# backend's lives in the jail): the removal never crossed the mount, and
# the directory stayed, with the sandbox's files.
if [ "${SBX_BACKEND:-namespaces}" = landlock ]; then
	strange_run root sbxtest sub/x
	nok "temp workdir: no mount is left on it" mounted "$MP"
	is "$(ls -A "$JT/tmp-root")" "" "temp workdir: it is removed, nothing left in TMPDIR"
fi

done_testing
