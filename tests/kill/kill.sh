#!/bin/sh
# Kills sbxrun with SIGKILL at random moments and counts what it leaves.
#
#   SBXRUN=/path/to/sbxrun sh tests/kill/kill.sh [TRIALS]   (as root)
#
# TRIALS runs (default 100) mix both Linux backends, root and the
# unprivileged user sbxtest (SBX_KILL_USER), fresh and -w workdirs,
# --interp, mounts and protected paths, and a root -w tree of 20,000 files
# under landlock (the lend and the hand-back walk it all). Each run is
# killed after a random delay; then, with every wait bounded, the leftovers
# are counted by kind from the host: temp workdirs and private TMPDIRs in
# the runs' $TMPDIR, entries in a -w tree that were not there before
# (placeholders, mount targets; what the sandbox made is kept apart by
# name), entries of a -w tree not owned by its owner, .sbxrun directories,
# processes of the run, mounts. Exits 0 only when every count is zero.
set -u

SBXRUN=${SBXRUN:?set SBXRUN to the sbxrun binary}
TRIALS=${1:-100}
USER_NAME=${SBX_KILL_USER:-sbxtest}
BIG=${SBX_KILL_BIG:-20000}

if [ "$(id -u)" != 0 ]; then
	echo "kill.sh: must run as root (it runs sbxrun as root and as $USER_NAME)" >&2
	exit 2
fi
if ! id "$USER_NAME" >/dev/null 2>&1; then
	echo "kill.sh: no user $USER_NAME" >&2
	exit 2
fi
UID_U=$(id -u "$USER_NAME")
GID_U=$(id -g "$USER_NAME")

WORK=$(mktemp -d /tmp/sbxkill.XXXXXX) || exit 2
chmod 755 "$WORK"
trap 'rm -rf "$WORK"' EXIT
BIN=$WORK/sbxrun
cp "$SBXRUN" "$BIN" && chmod 755 "$BIN" || exit 2
TMPD=$WORK/tmp
mkdir "$TMPD" && chmod 1777 "$TMPD"
MARK="SBXKILL_MARK=$WORK"
SRC=$WORK/src # a mount source
mkdir "$SRC" && echo data >"$SRC/file" && chmod -R a+rX "$SRC"

# The 20,000-file tree of the root lend, made once.
BIGT=$WORK/big
mkdir "$BIGT"
i=0
while [ $i -lt $((BIG / 200)) ]; do
	mkdir "$BIGT/d$i"
	(cd "$BIGT/d$i" && seq 1 199 | xargs touch)
	i=$((i + 1))
done
echo "# big tree: $(find "$BIGT" | wc -l) entries"
ROOTW=$WORK/rootw
USERW=$WORK/userw
mkdir -p "$ROOTW/sub" "$USERW/sub"
echo a >"$ROOTW/sub/a"
echo a >"$USERW/sub/a"
chown -R "$UID_U:$GID_U" "$USERW"

# What each tree held before any run: anything else after a run is a
# leftover, unless the sandbox made it (out*, *.sbxrun-untrusted.*).
for t in "$BIGT" "$ROOTW" "$USERW"; do
	(cd "$t" && find . | sort) >"$t.list"
done

rand() { # rand N: 0..N-1
	echo $(($(od -An -N2 -tu2 /dev/urandom) % $1))
}

# The payload, the script on stdin: some files, a .git where none may
# be, a moment of work.
cat >"$WORK/payload.sh" <<'EOF'
echo x >out.$$ 2>/dev/null
mkdir .git 2>/dev/null
echo y >.git/config 2>/dev/null
i=0
while [ $i -lt 300 ]; do i=$((i + 1)); done
sleep 0.05
EOF
chmod 644 "$WORK/payload.sh"

# Processes of this test's runs: sbxrun and its forks carry the mark in
# their environment; the sandbox's are in $WORK.
procs() {
	e=$(grep -lsxz -- "$MARK" /proc/[0-9]*/environ | grep -v "^/proc/$$/" | wc -l)
	c=$(ls -l /proc/[0-9]*/cwd 2>/dev/null | grep -c -- "-> $WORK")
	echo $((e + c))
}

new_entries() { # new_entries TREE
	(cd "$1" && find . | sort) | comm -13 "$1.list" - |
	    grep -v -e '^\./out\.' -e '\.sbxrun-untrusted\.' | grep -c .
}

L_TEMP=0 L_PTMP=0 L_NEW=0 L_OWNER=0 L_SCRIPT=0 L_PROC=0 L_MOUNT=0
KILLED=0 FINISHED=0

trial=0
while [ $trial -lt "$TRIALS" ]; do
	kind=$((trial % 10))
	user=root w= interp= extra= backend=namespaces maxms=150
	case $kind in
	0) ;;
	1) backend=landlock ;;
	2 | 9) backend=landlock w=$BIGT maxms=700 ;;
	3) backend=landlock w=$BIGT interp=1 maxms=700 ;;
	4) w=$ROOTW interp=1 extra="--mount $SRC:mnt/inner --mount $SRC/file:mnt/f --protect prot/x" ;;
	5) user=$USER_NAME interp=1 ;;
	6) user=$USER_NAME backend=landlock ;;
	7) user=$USER_NAME backend=landlock w=$USERW interp=1 extra="--allow-degraded --mount $SRC:lnk/inner" ;;
	8) user=$USER_NAME w=$USERW extra="--mount $SRC:mnt/inner --protect prot/x" ;;
	esac
	set -- --backend "$backend" --diag none --timeout 20s
	[ -n "$w" ] && set -- "$@" -w "$w"
	[ -n "$interp" ] && set -- "$@" --interp sh
	# shellcheck disable=SC2086
	set -- "$@" $extra
	delay=$(rand "$maxms")
	if [ "$user" = root ]; then
		env "$MARK" TMPDIR="$TMPD" "$BIN" "$@" \
		    <"$WORK/payload.sh" >/dev/null 2>&1 &
	else
		setpriv --reuid="$UID_U" --regid="$GID_U" --clear-groups \
		    env "$MARK" TMPDIR="$TMPD" HOME="$WORK" "$BIN" "$@" \
		    <"$WORK/payload.sh" >/dev/null 2>&1 &
	fi
	pid=$!
	sleep "$(printf '0.%03d' "$delay")"
	if kill -KILL "$pid" 2>/dev/null; then KILLED=$((KILLED + 1)); else FINISHED=$((FINISHED + 1)); fi
	wait "$pid" 2>/dev/null
	# Bounded: the keeper may still be undoing (the hand-back of the
	# big tree); 200 x 50 ms at most.
	n=0
	while [ $n -lt 200 ] && [ "$(procs)" -gt 0 ]; do
		sleep 0.05
		n=$((n + 1))
	done
	c_temp=$(find "$TMPD" -mindepth 1 -maxdepth 1 -name 'sbxrun.*' | wc -l)
	c_ptmp=$(find "$TMPD" -mindepth 1 -maxdepth 1 -name 'sbxrun-tmp.*' | wc -l)
	c_new=0 c_owner=0 c_script=0
	if [ -n "$w" ]; then
		c_new=$(new_entries "$w")
		if [ "$w" = "$USERW" ]; then
			c_owner=$(find "$w" ! -user "$UID_U" | wc -l)
		else
			c_owner=$(find "$w" ! -user 0 | wc -l)
		fi
		c_script=$(find "$w" -name .sbxrun | wc -l)
	fi
	c_proc=$(procs)
	c_mount=$(grep -c "$WORK" /proc/self/mountinfo)
	if [ $((c_temp + c_ptmp + c_new + c_owner + c_script + c_proc + c_mount)) -gt 0 ]; then
		echo "# trial $trial ($user $backend${w:+ -w $(basename "$w")}${interp:+ --interp}, killed at ${delay} ms): temp=$c_temp tmpdir=$c_ptmp new=$c_new owner=$c_owner script=$c_script procs=$c_proc mounts=$c_mount"
	fi
	L_TEMP=$((L_TEMP + c_temp)) L_PTMP=$((L_PTMP + c_ptmp)) L_NEW=$((L_NEW + c_new))
	L_OWNER=$((L_OWNER + c_owner)) L_SCRIPT=$((L_SCRIPT + c_script))
	L_PROC=$((L_PROC + c_proc)) L_MOUNT=$((L_MOUNT + c_mount))
	# Back to the state before, for the next trial (and count no leftover
	# twice): what is left is removed and the trees' owners restored.
	find "$TMPD" -mindepth 1 -maxdepth 1 -exec rm -rf {} +
	for t in "$BIGT" "$ROOTW" "$USERW"; do
		(cd "$t" && find . -mindepth 1 -maxdepth 1 \( -name 'out.*' -o -name '*.sbxrun-untrusted.*' -o -name .sbxrun -o -name .git -o -name mnt -o -name lnk -o -name prot \) -exec rm -rf {} +)
	done
	chown -R 0:0 "$BIGT" "$ROOTW"
	chown -R "$UID_U:$GID_U" "$USERW"
	for p in $(grep -lsxz -- "$MARK" /proc/[0-9]*/environ | cut -d/ -f3); do
		kill -KILL "$p" 2>/dev/null
	done
	trial=$((trial + 1))
done

echo "# $TRIALS trials: $KILLED killed, $FINISHED finished before the kill"
echo "leftovers: temp_workdirs=$L_TEMP private_tmpdirs=$L_PTMP new_entries=$L_NEW not_owned=$L_OWNER sbxrun_dirs=$L_SCRIPT processes=$L_PROC mounts=$L_MOUNT"
total=$((L_TEMP + L_PTMP + L_NEW + L_OWNER + L_SCRIPT + L_PROC + L_MOUNT))
if [ "$total" -eq 0 ]; then
	echo "ok: nothing survived"
	exit 0
fi
echo "FAIL: $total leftovers"
exit 1
