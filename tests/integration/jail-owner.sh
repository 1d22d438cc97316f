# Owner-checking tools (git's safe.directory check, ssh's key checks) must
# behave for a root caller as they do for any other: the caller's own files
# appear to belong to the sandbox's uid, in the workdir and in a read-only
# mount of the caller's. Before, a root caller's sandbox was uid 0 of its
# user namespace and saw root's files as the overflow id 65534, so git
# refused a mounted repository ("detected dubious ownership"). Judged by
# git's exit status and output, and from the host: the mounted repository
# is unchanged, the workdir's stays sound (git fsck), and what the sandbox
# makes belongs to the caller. Run for $SBX_BACKEND (default namespaces),
# as root and as any other user.
. "$(dirname "$0")/jail-lib.sh"

command -v git >/dev/null 2>&1 || {
	fail "git is not installed: install git to run this test"
	done_testing
	exit 1
}

hostgit() {
	env -u GIT_DIR -u GIT_WORK_TREE GIT_CONFIG_NOSYSTEM=1 HOME="$JT" \
	    GIT_CEILING_DIRECTORIES="$JT:$T" git "$@"
}

# repo DIR: a repository with one commit, owned by the caller.
repo() {
	hostgit init -q "$1" &&
	    echo one >"$1/file" &&
	    hostgit -C "$1" add file &&
	    hostgit -C "$1" -c user.name=t -c user.email=t@t commit -q -m "first-commit" &&
	    chmod -R a+rX "$1"
}

# tree_sum DIR: every file's path, mode, owner and content, in one sum.
tree_sum() {
	(cd "$1" && find . -print0 | sort -z | xargs -0 stat -c '%n %a %u %g %s %Y' &&
	    find . -type f -print0 | sort -z | xargs -0 cat) | cksum
}

mkdir -p "$JT/src"
chmod 755 "$JT/src"
repo "$JT/src/repo" || fail "cannot make the host repository"
repo "$WD/repo" || fail "cannot make the workdir's repository"
ro_before=$(tree_sum "$JT/src/repo")
wd_head=$(hostgit -C "$WD/repo" rev-parse HEAD)

# --- a repository in the workdir ------------------------------------------------
jail_sh "
git -C repo status --short; echo R:status:\$?
git -C repo log --format=%s; echo R:log:\$?
echo made >made-inside; mkdir made-dir
exit 0" -w "$WD"
is_status 0 "git in the workdir: the script ran"
is "$(rc_of status)" 0 "git status in the workdir's repository exits 0"
is "$(rc_of log)" 0 "git log in the workdir's repository exits 0"
like "$(cat "$T/out")" "first-commit" "git log shows the commit"
unlike "$(cat "$T/out" "$T/err")" "dubious ownership" "no 'dubious ownership'"
is "$(hostgit -C "$WD/repo" rev-parse HEAD)" "$wd_head" "the workdir's repository keeps its HEAD"
ok "git fsck on the host: the workdir's repository is sound" hostgit -C "$WD/repo" fsck --no-progress
is "$(stat -c %u:%g "$WD/made-inside" "$WD/made-dir" | sort -u)" "$(id -u):$(id -g)" \
    "what the sandbox made belongs to the caller on disk"

# --- a read-only mount of the caller's repository (namespaces: -m) -------------
if ns_only "read-only mounts (-m) are placed by a mount namespace" 6; then
	jail_sh "
git -C rorepo status --short; echo R:status:\$?
git -C rorepo log --format=%s; echo R:log:\$?
exit 0" -m "$JT/src/repo:rorepo" -w "$WD"
	is_status 0 "git in a read-only mount: the script ran"
	is "$(rc_of status)" 0 "git status in a read-only mounted repository exits 0"
	is "$(rc_of log)" 0 "git log in a read-only mounted repository exits 0"
	like "$(cat "$T/out")" "first-commit" "git log shows the mounted repository's commit"
	unlike "$(cat "$T/out" "$T/err")" "dubious ownership" "no 'dubious ownership'"
	is "$(tree_sum "$JT/src/repo")" "$ro_before" \
	    "the mounted repository is unchanged on the host (paths, modes, owners, contents)"
fi

# --- what the sandbox sees as its own ------------------------------------------
# The sandbox's uid owns the workdir in its view; a root-only file stays
# unreadable whatever owner it shows (the kernel judges the real owner).
if root_only "a root-owned 0600 file next to the repository" 2; then
	secret=$(uniq_tag owner0600)
	echo "$secret" >"$JT/src/repo/secret"
	chmod 600 "$JT/src/repo/secret"
	if [ "$SBX_BACKEND" = namespaces ]; then
		jail_sh "cat rorepo/secret; echo R:cat:\$?; exit 0" -m "$JT/src/repo:rorepo" -w "$WD"
	else
		chmod 755 "$JT/src" "$JT/src/repo"
		jail_sh "cat '$JT/src/repo/secret'; echo R:cat:\$?; exit 0" \
		    --fs allowlist -r "$JT/src/repo" -w "$WD"
	fi
	unlike "$(cat "$T/out" "$T/err")" "$secret" "a root-only 0600 file stays unreadable"
	ok "... and reading it failed inside" [ "$(rc_of cat)" != 0 ]
	rm -f "$JT/src/repo/secret"
fi
jail_sh 'test -O . && echo R:mine:0' -w "$WD"
is "$(rc_of mine)" 0 "inside, the workdir belongs to the sandbox's own uid"

done_testing
