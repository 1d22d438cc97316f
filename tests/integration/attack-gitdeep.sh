# The search for repositories the run made below the workdir's top level
# (sbxrun(1), FILES) looks only at directories: files are never opened,
# and a directory that cannot hold a subdirectory (st_nlink 2 on ext4,
# xfs, tmpfs) is not even listed, only asked for a ".git" and a "HEAD" by
# name. Each case plants what such a shortcut could miss: a .git file (a
# worktree's "gitdir:" pointer) in a directory of plain files that existed
# before, a .git file or directory that existed and was changed, a chain
# deeper than the search keeps open, with more after it on the way back
# up. The verdict is sbxrun's own warning, which the host reads; and that
# the search's work on the host does not grow with the number of files.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=10

# n files in directory $1.
fill() {
	mkdir -p "$1"
	i=0
	while [ $i -lt "$2" ]; do
		: >"$1/f$i"
		i=$((i + 1))
	done
}
warning() {
	grep -o '"the run made or changed [^"]*"' "$T/diag"
}

# --- pointers in directories of plain files ------------------------------------------
new_wd
fill "$WD/leaf" 50
fill "$WD/old" 5
printf 'gitdir: /nowhere\n' >"$WD/old/.git"
fill "$WD/calm" 5
printf 'gitdir: /nowhere\n' >"$WD/calm/.git"
mkdir -p "$WD/sub/.git"
: >"$WD/sub/.git/HEAD"
mkdir -p "$WD/quiet/.git"
chmod -R a+rwX "$WD"
sleep 0.02 # the inode clock is coarse: what was made before must read as older
jail_sh "printf 'gitdir: /elsewhere\n' >leaf/.git
printf 'gitdir: /elsewhere\n' >old/.git
: >sub/.git/index" -w "$WD"
is_status 0 "the pointer script ran"
w=$(warning)
like "$w" "leaf/.git" "a .git file made among plain files is named"
like "$w" "old/.git" "a .git file that was there and was rewritten is named"
like "$w" "sub/.git" "a .git directory that was there and took a new file is named"
if [ "$SBX_BACKEND" = landlock ] && [ "$(id -u)" = 0 ]; then
	# sbxrun(1): the workdir is lent to uid 65534 and handed back.
	skip "a root caller's landlock run changes every file's owner and back: each one reads as changed" 2
else
	unlike "$w" "calm/.git" "a .git file left alone is not named"
	unlike "$w" "quiet/.git" "a .git directory left alone is not named"
fi

# --- deeper than the search keeps open, and back up -----------------------------------
new_wd
jail_sh "d=c; i=0; while [ \$i -lt 80 ]; do d=\$d/c; i=\$((i + 1)); done
mkdir -p \$d && : >\$d/f && printf 'gitdir: /x\n' >\$d/.git
for z in z1 z2 z3 z4 z5; do mkdir -p \$z/y && : >\$z/y/f && printf 'gitdir: /x\n' >\$z/y/.git; done
exit 0" -w "$WD"
is_status 0 "the deep script ran"
like "$(warning)" "made or changed 6 git repositories" \
    "the .git at depth 81 and each one met on the way back up are counted"

# --- the search's cost does not grow with the files -----------------------------------
# Counted on the host, as the calls sbxrun's own thread makes on the
# workdir and below it (strace without -f: the supervisor's threads and
# the sandbox are not followed; -y names each descriptor's path): 10
# files or 2,000 in the same directories. Calls elsewhere are left out:
# how often the secret list is looked at depends on when the keeper
# answers (startup.md, section 8), so a count of every call moved by
# ~100 between two runs of one size on a busy machine.
calls() {
	new_wd
	fill "$WD/a/b" "$1"
	fill "$WD/a/c" "$1"
	# Not opened to others: a directory left writable by others is
	# listed entry by entry for what other users put there (after a
	# root caller's landlock run, whose hand-back moves every change
	# time, whether the run changed it or not: handback.md).
	printf 'exit 0\n' >"$T/script"
	# A sanitized build's leak check cannot run under ptrace (it stops
	# with a fatal error of its own): off for this counted run only.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -y -o "$T/strace" -e trace=openat,openat2,newfstatat,statx,fstat,getdents64 \
	    "$SBXRUN" --backend "$SBX_BACKEND" --diag none -w "$WD" <"$T/script" >/dev/null 2>&1
	grep -cF "$WD" "$T/strace"
}
if ! command -v strace >/dev/null 2>&1; then
	skip "strace is not installed: cannot count the search's calls" 2
elif ! df -PT "$JAIL_OUTSIDE" | awk 'NR == 2 { exit $2 !~ /^(ext[234]|xfs|tmpfs)$/ }'; then
	skip "$JAIL_OUTSIDE is not on ext4, xfs or tmpfs: the search lists every directory there" 2
else
	few=$(calls 10)
	many=$(calls 2000)
	ok "the run's own calls were counted ($few, then $many)" [ "${few:-0}" -gt 0 ]
	ok "4,000 more files cost the search no more than 40 more calls" \
	    [ "${many:-0}" -le $((few + 40)) ]
fi

done_testing
