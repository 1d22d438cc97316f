# Names checked once and used later (doc/design/paths.md): sbxrun resolves
# every host path once, to a descriptor, and uses only that descriptor;
# nothing under the sandbox's control is followed, and nothing is written
# to the caller's disk for placeholders. Attacks, judged from the host:
#
#   - another user who owns a parent of the workdir flips it between the
#     real directory and a symlink to a root-only directory (and to /etc)
#     while root runs sbxrun there: the canary is never read, nothing is
#     made in that directory, nothing in /etc;
#   - a second sandbox on the same workdir flips a mount source inside it
#     to a symlink to a root-only directory;
#   - the sandbox swaps a directory on the way to a mount target for a
#     symlink, so that cleanup would remove an entry elsewhere;
#   - a read-only workdir runs;
#   - the workdir exchanged once, held right after the pin (tests/holdcall);
#   - SIGKILL of sbxrun at random moments leaves no placeholder;
#   - landlock: the same workdir flip (the rules, the lend, the sandbox's
#     current directory), a flip of a directory above the workdir (the lend
#     must not chown the root-only directory it would lead to), and a
#     mount source flipped by a second sandbox (the sandbox never reads the
#     tree the name was swapped to).
#
# The races run ATTACK_RUNS times (default 100). Run by hand with
#
#	SBXRUN=/path/to/sbxrun [FLIPPER=/path/to/tests/flipper] sh tests/integration/attack-paths.sh
. "$(dirname "$0")/jail-lib.sh"

RUNS=${ATTACK_RUNS:-100}
FLIPPER=${FLIPPER:-$(dirname "$SBXRUN")/tests/flipper}
if [ ! -x "$FLIPPER" ]; then
	echo "Bail out! tests/flipper is missing at $FLIPPER (make check builds it)"
	exit 1
fi
cp "$FLIPPER" "$JT/flipper"
chmod 755 "$JT/flipper"
TAG=$(uniq_tag canary)

# A root-only directory holding a canary, next to nothing the sandbox may see.
secret_dir() {
	mkdir -p "$1"
	echo "$TAG" >"$1/canary"
	chmod 700 "$1"
	chmod 600 "$1/canary"
}

# Runs the flipper as user $1 on $2 <-> $3 in the background ($FLIP_PID).
flip_start() {
	rm -f "$4"
	if [ "$1" = root ]; then
		"$JT/flipper" "$2" "$3" "$4" &
	else
		runuser -u "$1" -- "$JT/flipper" "$2" "$3" "$4" &
	fi
	FLIP_PID=$!
	JAIL_PIDS="${JAIL_PIDS:-} $FLIP_PID"
}

flip_stop() {
	touch "$1"
	wait "$FLIP_PID" 2>/dev/null
}

# Waits until the flipper in the second sandbox (sbx_bg) has made $1 a
# symlink at least once: FLIPPING=yes. Bounded by a count of looks, and
# over at once if that sandbox has ended (FLIPPING=no, and why).
wait_flipping() {
	FLIPPING=no
	_n=0
	while [ "$_n" -lt 2000 ]; do
		if [ -L "$1" ]; then
			FLIPPING=yes
			return
		fi
		case $(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$SBX_PID/status" 2>/dev/null) in
		'' | Z) break ;;
		esac
		_n=$((_n + 1))
		sleep 0.01
	done
	diag "the second sandbox is not flipping $1 after $_n looks: $(cat "$T/bg.err")"
}

# --- 1. the workdir flipped by the owner of its parent --------------------------------
# Root runs sbxrun on -w P/proj; P belongs to sbxtest, who swaps proj for a
# symlink to a root-only directory (then to /etc) as fast as it can.
workdir_race() { # NAME TARGET
	_p=$JT/parent-$1
	mkdir -p "$_p/proj"
	ln -s "$2" "$_p/proj.lnk"
	chown -R sbxtest: "$_p"
	chown -h sbxtest: "$_p/proj.lnk"
	# The workdir is root's (a root caller's landlock run lends it), its
	# parent the attacker's.
	chown root: "$_p/proj"
	: >"$T/race.out"
	flip_start sbxtest "$_p/proj" "$_p/proj.lnk" "$_p/stop"
	_i=0
	_ran=0
	_refused=0
	while [ "$_i" -lt "$RUNS" ]; do
		_i=$((_i + 1))
		jail_sh "cat ./canary 2>/dev/null; ls -ln ./shadow 2>/dev/null; echo x >./sbx-planted-$TAG 2>/dev/null; exit 0" \
		    -w "$_p/proj"
		case $SBX_STATUS in
		0) _ran=$((_ran + 1)) ;;
		*) _refused=$((_refused + 1)) ;;
		esac
		cat "$T/out" >>"$T/race.out"
	done
	flip_stop "$_p/stop"
	diag "$1: $RUNS runs against the flipper: $_ran ran, $_refused refused"
}

# (Under landlock the resolver pins the workdir too; the rules, a root
# caller's lend and the sandbox's current directory must all come from
# that pin, not from the name.)
if root_only "another user must own the workdir's parent" 9; then
	secret_dir "$JT/secret"
	workdir_race secret "$JT/secret"
	unlike "$(cat "$T/race.out")" "$TAG" "workdir flipped to a root-only directory: the canary is never read"
	absent "workdir flipped to a root-only directory: nothing is made in it" "$JT/secret/sbx-planted-$TAG"
	is "$(stat -c %U:%a "$JT/secret/canary")" "root:600" "the canary keeps its owner and mode"
	is "$(find "$JT/secret" ! -user 0 | wc -l)" 0 "nothing in the root-only directory changed owner"
	ok "the workdir is a directory again after the race" test -d "$JT/parent-secret/proj"

	sum_before=$(fsum /etc/shadow)
	owner_before=$(stat -c %u:%g:%a /etc/shadow)
	workdir_race etc /etc
	unlike "$(cat "$T/race.out")" "shadow" "workdir flipped to /etc: the sandbox never sees /etc/shadow"
	absent "workdir flipped to /etc: nothing is made in /etc" "/etc/sbx-planted-$TAG"
	rm -f "/etc/sbx-planted-$TAG" # what a broken build left
	is "$(stat -c %u:%g:%a /etc/shadow):$(fsum /etc/shadow)" "$owner_before:$sum_before" \
	    "/etc/shadow keeps its owner, mode and content"
	# Sanity: the same workdir without a flipper runs.
	jail_sh "ls" -w "$JT/parent-etc/proj"
	is_status 0 "the workdir runs when nobody flips it (control)"
fi

# --- 1b. the same exchange, once, right after the pin -------------------------------------
# The flipper's swaps land at random moments, as many as the machine lets
# it make. These land where a name used again would matter: sbxrun's first
# look at a name below the workdir (the plan's statx of .git, after the
# workdir was pinned) is held with tests/holdcall; the owner of the
# parent exchanges proj with a link to another directory, once; then the
# run goes on with the name swapped for good. Everything after the pin
# must come from it.
#   1b. the link leads to a root-only directory: the run ends well (or
#       refuses), the canary is never read, nothing is made or changed;
#   1c. the link leads to the attacker's own empty directory, and the
#       workdir holds .envrc and .git: the plan must still see them (a
#       plan that looked by name saw neither, so neither was protected:
#       the sandbox wrote both, and the git guard then moved the caller's
#       .git and .envrc aside as "made by the sandbox").
HOLDCALL=${HOLDCALL:-$(dirname "$SBXRUN")/tests/holdcall}
# held_swap P LINKTARGET SCRIPT [CALLER OWNER]: CALLER (root, or sbxtest)
# runs SCRIPT with -w P/proj, held at the plan's first look below it;
# OWNER (sbxtest, or nobody), P's owner, exchanges P/proj with P/proj.lnk
# -> LINKTARGET, then the run goes on. Sets HS_ST (its status);
# $T/hs.out, $T/hs.err, $T/hs.diag; one check that the hold and the
# exchange happened.
held_swap() {
	_caller=${4:-root}
	_owner=${5:-sbxtest}
	mkdir -p "$1/proj"
	ln -s "$2" "$1/proj.lnk"
	chown -R "$_owner": "$1"
	chown -h "$_owner": "$1/proj.lnk"
	chown -R "$_caller": "$1/proj"
	rm -f "$T/held" "$T/go"
	printf '%s\n' "$3" >"$T/hs.script"
	_as=
	[ "$_caller" = root ] || _as="runuser -u $_caller -- env TMPDIR=/tmp"
	# (A sanitized build's leak check cannot run under ptrace.)
	# shellcheck disable=SC2086
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$HOLDCALL" -s statx -m "*|$1/proj/*" -m "$1/proj|.git|*" -H "$T/held" -g "$T/go" -- \
	    $_as "$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 -w "$1/proj" <"$T/hs.script" \
	    >"$T/hs.out" 2>"$T/hs.err" 3>"$T/hs.diag" &
	_hc=$!
	JAIL_PIDS="$JAIL_PIDS $_hc"
	wait_for "[ -e '$T/held' ]" 30
	exchange_as "$_owner" "$1/proj" "$1/proj.lnk" >"$T/hs.swap"
	: >"$T/go"
	wait "$_hc"
	HS_ST=$?
	case $(cat "$T/held" 2>/dev/null):$(cat "$T/hs.swap") in
	*"|$1/proj/"*:swapped | "$1/proj|"*:swapped)
		pass "held after the pin, the parent's owner exchanged proj with the link" ;;
	*) fail "held after the pin, the parent's owner exchanged proj with the link"
		diag "held: $(cat "$T/held" 2>&1); swap: $(cat "$T/hs.swap")" ;;
	esac
}

if root_only "only root traces sbxrun, and another user must own the parent" 13; then
	if [ ! -x "$HOLDCALL" ]; then
		echo "Bail out! tests/holdcall is missing at $HOLDCALL (make check builds it)"
		exit 1
	fi
	secret_dir "$JT/secret1b"
	held_swap "$JT/parent-held" "$JT/secret1b" \
	    "cat ./canary 2>/dev/null; ls -A; echo x >./sbx-planted-$TAG 2>/dev/null; exit 0"
	case $HS_ST in
	0) pass "the run ended well or refused ($HS_ST)" ;;
	125) pass "the run ended well or refused ($HS_ST)"
		diag "refused: $(tail -n 1 "$T/hs.err")" ;;
	*) fail "the run ended well or refused ($HS_ST)"; diag "$(tail -n 5 "$T/hs.err")" ;;
	esac
	unlike "$(cat "$T/hs.out")" "$TAG" "the canary was never read"
	absent "nothing was made in the root-only directory" "$JT/secret1b/sbx-planted-$TAG"
	is "$(find "$JT/secret1b" ! -user 0 | wc -l):$(stat -c %a "$JT/secret1b")" 0:700 \
	    "the root-only directory kept its owners and mode"

	# 1c. The workdir's protected entries, seen through the pin.
	_p=$JT/parent-decoy
	mkdir -p "$_p/proj/.git" "$_p/decoy"
	echo 'echo safe' >"$_p/proj/.envrc"
	echo '[core]' >"$_p/proj/.git/config"
	chmod 777 "$_p/decoy"
	held_swap "$_p" decoy 'echo "echo PWNED" >>.envrc; echo "	fsmonitor = evil" >>.git/config; exit 0'
	# The real workdir is at proj.lnk now.
	is "$HS_ST:$(cat "$_p/proj.lnk/.envrc" 2>&1)" "0:echo safe" \
	    "the run ended well and the workdir's .envrc is as it was"
	is "$(cat "$_p/proj.lnk/.git/config" 2>&1)" "[core]" "... and so is .git/config"
	unlike "$(cat "$T/hs.diag")" "moved aside" "nothing of the caller's was moved aside as the sandbox's"

	# The same for an unprivileged caller (sbxtest) under a parent of
	# nobody's: the supervisor's guards (the protected and frozen paths,
	# the names kept, the writable tree's top) were read by name too, so
	# under landlock the sandbox wrote the real .git/config.
	_p=$JT/parent-decoy2
	mkdir -p "$_p/proj/.git" "$_p/decoy"
	echo 'echo safe' >"$_p/proj/.envrc"
	echo '[core]' >"$_p/proj/.git/config"
	chmod 777 "$_p/decoy"
	held_swap "$_p" decoy 'echo "echo PWNED" >>.envrc; echo "	fsmonitor = evil" >>.git/config; exit 0' \
	    sbxtest nobody
	case $HS_ST:$(cat "$_p/proj.lnk/.envrc" 2>&1) in
	"0:echo safe" | "125:echo safe") pass "sbxtest: the run ended well or refused ($HS_ST), .envrc is as it was" ;;
	*) fail "sbxtest: the run ended well or refused ($HS_ST), .envrc is as it was"
		diag "$(cat "$_p/proj.lnk/.envrc" 2>&1)" "$(tail -n 3 "$T/hs.err")" ;;
	esac
	is "$(cat "$_p/proj.lnk/.git/config" 2>&1)" "[core]" "sbxtest: ... and so is .git/config"
	unlike "$(cat "$T/hs.diag")" "moved aside" "sbxtest: nothing of the caller's was moved aside"
fi

# --- 2. a mount source inside the workdir, flipped by a second sandbox ----------------
if ns_only "the jail's mounts are made by host root from descriptors" 3 &&
    root_only "the second sandbox must reach what only root can read" 3; then
	secret_dir "$JT/secret2"
	new_wd
	mkdir "$WD/cache"
	ln -s "$JT/secret2" "$WD/cache.lnk"
	cp "$JT/flipper" "$WD/flipper"
	sbx_bg -w "$WD" --timeout 600s -- ./flipper cache cache.lnk stop
	wait_flipping "$WD/cache"
	: >"$T/race2.out"
	_i=0
	_ran=0
	while [ "$_i" -lt "$RUNS" ]; do
		_i=$((_i + 1))
		"$SBXRUN" --backend "$SBX_BACKEND" -w "$WD" -m "$WD/cache:c:rw" -- \
		    sh -c "cat c/canary 2>/dev/null; echo x >c/sbx-planted-$TAG 2>/dev/null; exit 0" \
		    >>"$T/race2.out" 2>/dev/null </dev/null && _ran=$((_ran + 1))
	done
	touch "$WD/stop"
	sbx_bg_wait 60
	diag "mount source: $RUNS runs against a flipping sandbox: $_ran ran"
	unlike "$(cat "$T/race2.out")" "$TAG" "mount source flipped by a second sandbox: the canary is never read"
	absent "mount source flipped by a second sandbox: nothing is made in the root-only directory" \
	    "$JT/secret2/sbx-planted-$TAG"
	is "$FLIPPING" yes "the second sandbox did flip (control)"
fi

# --- 2b. landlock: a directory above the workdir flipped by its owner ------------------
# Root runs sbxrun on -w P/mid/w; sbxtest owns P and swaps mid for a link to
# a directory whose w is root-only (0700, a 0600 canary). The resolver sees
# the real directory (or refuses the link); a root caller's landlock run
# then lends the workdir to uid 65534 with chown: that walk, the rules and
# the sandbox's current directory must start from the pinned workdir, or
# the root-only directory becomes the sandbox's. Ownership is checked from
# the host after every run (the hand-back could undo it at the next one).
if [ "$SBX_BACKEND" = landlock ] &&
    root_only "another user must own a directory above the workdir" 4; then
	_p=$JT/parent-mid
	_l=$JT/llsecret
	mkdir -p "$_p/mid/w" "$_l"
	chmod 755 "$_l"
	secret_dir "$_l/w"
	ln -s "$_l" "$_p/mid.lnk"
	chown -R sbxtest: "$_p"
	chown -h sbxtest: "$_p/mid.lnk"
	chown root: "$_p/mid/w"
	: >"$T/race-mid.out"
	flip_start sbxtest "$_p/mid" "$_p/mid.lnk" "$_p/stop"
	_i=0
	_ran=0
	_chowned=0
	_read=0
	while [ "$_i" -lt "$RUNS" ]; do
		_i=$((_i + 1))
		jail_sh "cat ./canary $_l/w/canary 2>/dev/null; echo x >./sbx-planted-$TAG 2>/dev/null; exit 0" \
		    -w "$_p/mid/w"
		[ "$SBX_STATUS" = 0 ] && _ran=$((_ran + 1))
		cat "$T/out" >>"$T/race-mid.out"
		[ "$(find "$_l" ! -user 0 | wc -l)" = 0 ] || _chowned=$((_chowned + 1))
		grep -q "$TAG" "$T/out" && _read=$((_read + 1))
		chown -R root: "$_l" # so that every run starts clean
	done
	flip_stop "$_p/stop"
	diag "directory above the workdir: $RUNS runs against the flipper: $_ran ran, $_chowned lent the root-only directory, $_read read the canary"
	is "$_chowned" 0 "flip above the workdir: the root-only directory is never lent to the sandbox"
	unlike "$(cat "$T/race-mid.out")" "$TAG" "flip above the workdir: the canary is never read"
	absent "flip above the workdir: nothing is made in the root-only directory" "$_l/w/sbx-planted-$TAG"
	is "$(find "$_p/mid/w" ! -user 0 | wc -l)" 0 "the real workdir is handed back in full"
elif [ "$SBX_BACKEND" != landlock ]; then
	skip "landlock-only: namespaces lends nothing (idmapped mounts)" 4
fi

# --- 2c. landlock: a mount source flipped by a second sandbox -----------------------------
# Without a mount namespace -m SRC:c is a link to SRC (--allow-degraded),
# and SRC gets the mount's rules. A second sandbox on the same workdir
# swaps SRC (WD/cache) for a link to a directory every user may read but
# no rule grants: the rules must be on the pinned source, so the sandbox
# never reads that tree, whatever the name leads to when it looks.
if [ "$SBX_BACKEND" = landlock ]; then
	_o=$JT/other
	mkdir -p "$_o"
	echo "$TAG" >"$_o/canary"
	chmod 755 "$_o"
	chmod 644 "$_o/canary"
	new_wd
	mkdir "$WD/cache"
	ln -s "$_o" "$WD/cache.lnk"
	cp "$JT/flipper" "$WD/flipper"
	sbx_bg -w "$WD" --timeout 600s -- ./flipper cache cache.lnk stop
	wait_flipping "$WD/cache"
	: >"$T/race-ll.out"
	_i=0
	_ran=0
	while [ "$_i" -lt "$RUNS" ]; do
		_i=$((_i + 1))
		"$SBXRUN" --backend landlock --allow-degraded -w "$WD" -m "$WD/cache:c:rw" -- \
		    sh -c "cat c/canary $_o/canary 2>/dev/null; exit 0" \
		    >>"$T/race-ll.out" 2>/dev/null </dev/null && _ran=$((_ran + 1))
	done
	touch "$WD/stop"
	sbx_bg_wait 60
	diag "landlock mount source: $RUNS runs against a flipping sandbox: $_ran ran, $(grep -c "$TAG" "$T/race-ll.out") read the other tree"
	unlike "$(cat "$T/race-ll.out")" "$TAG" "landlock mount source flipped: the sandbox never reads the other tree"
	is "$FLIPPING" yes "the second sandbox did flip (control)"
	# Control: the same source, not flipped, is readable and writable.
	new_wd
	mkdir "$WD/cache"
	echo seen >"$WD/cache/f"
	jail_sh "cat c/f && echo w >c/g" --allow-degraded -w "$WD" -m "$WD/cache:c:rw"
	is "$(cat "$T/out"):$(cat "$WD/cache/g" 2>/dev/null)" "seen:w" "an unflipped mount source works (control)"
else
	skip "landlock-only: namespaces mounts the source from its pin (section 2)" 3
fi

# --- 3. cleanup through a symlink planted on the way to a mount target ----------------
# The sandbox renames the directory made for the mount target a/b and puts
# a symlink to a victim directory (holding an empty b) in its place; the
# cleanup after the run must not rmdir the victim's b.
if ns_only "mount targets are mount points only under namespaces" 2; then
	new_wd
	mkdir -p "$JT/victim/b" "$JT/src3"
	: >"$JT/victim/empty"
	jail_sh "mv a a.old && ln -s $JT/victim a; exit 0" -w "$WD" -m "$JT/src3:a/b"
	is_status 0 "the link-planting script ran"
	ok "cleanup after the run removes nothing through the planted link" test -d "$JT/victim/b"
fi

# --- 4. a read-only workdir --------------------------------------------------------------
# (A root caller's landlock run lends the workdir to uid 65534 with chown,
# which a read-only filesystem refuses: that backend is not covered here.)
if ns_only "landlock lends a root caller's workdir by chown" 2 &&
    root_only "making a read-only mount needs root" 2; then
	RO=$JT/ro
	mkdir -p "$RO"
	echo hello >"$RO/f"
	if mount --bind "$RO" "$RO" && mount -o remount,bind,ro "$RO"; then
		jail_sh "cat f" -w "$RO" --protect .envrc
		is_status 0 "a read-only workdir runs (nothing is written for .git or --protect)"
		is "$(cat "$T/out")" hello "the read-only workdir is readable inside" ||
		    diag "$(cat "$T/err")"
		umount "$RO"
	else
		fail "cannot make a read-only bind mount"
		fail "cannot make a read-only bind mount"
	fi
fi

# --- 5. SIGKILL of sbxrun at random moments leaves no placeholder ----------------------
# sbxrun writes nothing in the workdir for a missing protected name
# (paths.md, "No placeholder"), so nothing may be left there, wherever a
# SIGKILL lands. sbx_bg's pid is a python wrapper until it has exec'd
# sbxrun: a kill before that would kill only the wrapper and test nothing.
# So each kill waits for a state, in turn: sbxrun has just started (no
# delay, or a random one of up to 0.3 s), its jail's init exists (the jail
# is being set up), the payload runs; and sbxrun must still be running
# when the kill is sent (a miss fails, it is not taken as a pass).
new_wd
echo keep >"$WD/file"
SBX_COMM=$(basename "$SBXRUN" | cut -c1-15)
is_sbxrun() {
	[ "$(cat "/proc/$SBX_PID/comm" 2>/dev/null)" = "$SBX_COMM" ] &&
	    [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$SBX_PID/status" 2>/dev/null)" != Z ]
}
payload_sleeps() {
	_pl=$(pgrep -P "$(init_of "$SBX_PID")" 2>/dev/null | head -n 1)
	[ -n "$_pl" ] && [ "$(cat "/proc/$_pl/comm" 2>/dev/null)" = sleep ]
}
_k=0
_left=
_missed=
while [ "$_k" -lt 20 ]; do
	_k=$((_k + 1))
	# (sleep 60: the payload outlives every wait below; the kill ends it.)
	sbx_bg -w "$WD" --protect .envrc --protect conf/app.ini -- sleep 60
	_phase=$((_k % 4))
	_at=
	# Looked for without a pause (a bounded count of looks, each a few
	# forks): sbxrun reaches its payload in well under wait_for's 0.1 s.
	_n=0
	while ! is_sbxrun && [ "$_n" -lt 20000 ]; do
		_n=$((_n + 1))
	done
	if is_sbxrun; then
		case $_phase in
		0) _at=started ;;
		1)
			sleep "0.$(awk -v s="$_k" 'BEGIN { srand(s * 7919); printf "%03d", int(rand() * 300) }')"
			_at=random ;;
		2)
			_n=0
			while [ -z "$(init_of "$SBX_PID")" ] && [ "$_n" -lt 20000 ]; do
				_n=$((_n + 1))
			done
			[ -n "$(init_of "$SBX_PID")" ] && _at=init ;;
		3) wait_for payload_sleeps 30 && _at=payload ;;
		esac
	fi
	# The precondition: sbxrun itself, still running, at the state reached.
	is_sbxrun || _at=
	kill -KILL "$SBX_PID" 2>/dev/null
	sbx_bg_wait 30
	[ -n "$_at" ] && [ "$SBX_STATUS" = 137 ] || _missed="$_missed $_k:phase$_phase:${_at:-none}:$SBX_STATUS"
	# init notices sbxrun's death and undoes what is left (bounded wait).
	wait_for "[ \"\$(ls -A '$WD')\" = file ]" 20 || _left="$_left $(ls -A "$WD" | tr '\n' ' ')"
done
is "$_missed" "" "each of the 20 kills hit sbxrun while it ran, at its state (precondition)"
is "$_left" "" "20 kills of sbxrun at random moments leave nothing in the workdir"

done_testing
