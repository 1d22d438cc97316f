# A repository with a submodule: git keeps the submodule's own hooks and
# config in .git/modules/NAME, and runs them when the caller works in the
# submodule (git status there reads core.fsmonitor, a checkout runs
# post-checkout). The whole of .git must stay read-only, not only
# .git/hooks and .git/config: under the landlock backend this held only
# while the name supervisor judged the workdir's names, and not where a
# secret below the workdir (or a machine without the supervisor) left the
# Landlock rules alone (doc/design/goldens.md). Both ways are tried. The
# verdicts are read on the host: a listing of .git before and after, and
# a marker that the caller's own git commands in the submodule must not
# create. Run for $SBX_BACKEND (default namespaces);
# attack-gitmod-landlock.sh runs it under the landlock backend.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=9
plan "$N_TESTS"
if ! command -v git >/dev/null 2>&1; then
	skip "git is not installed (install git)" "$N_TESTS"
	done_testing
	exit
fi

git_at() {
	_d=$1
	shift
	env -u GIT_DIR -u GIT_WORK_TREE GIT_CONFIG_NOSYSTEM=1 HOME="$JT" \
	    GIT_CEILING_DIRECTORIES="$(dirname "$WD")" git -C "$_d" \
	    -c user.email=t@example.org -c user.name=t -c protocol.file.allow=always "$@"
}
git_listing() {
	(cd "$WD" && find .git -printf '%p %y %m %s\n' | sort &&
	    find .git -type f -exec cksum {} + | sort)
}

# The submodule's source, then the superproject that holds it.
mkdir "$JT/libsrc"
git_at "$JT/libsrc" init -q . && echo 'int f;' >"$JT/libsrc/f.c" &&
    git_at "$JT/libsrc" add f.c && git_at "$JT/libsrc" commit -qm lib ||
    fail "the submodule's source"
git_at "$WD" init -q . && git_at "$WD" submodule add -q "$JT/libsrc" lib >/dev/null 2>&1 &&
    git_at "$WD" commit -qm sub || fail "a superproject with a submodule"
ok "the submodule's hooks and config are in .git/modules/lib" \
    test -d "$WD/.git/modules/lib/hooks" -a -f "$WD/.git/modules/lib/config"
echo secret >"$WD/secret.txt"
chmod -R a+rX "$WD"
cp -a "$WD/.git" "$JT/git.orig"

mark=$JT/hook-ran
attack="$SBX_T_PRELUDE
t hook sh -c 'printf \"#!/bin/sh\\ntouch $mark\\n\" >.git/modules/lib/hooks/post-checkout && chmod +x .git/modules/lib/hooks/post-checkout'
t config sh -c 'printf \"[core]\\n\\tfsmonitor = touch $mark\\n\" >>.git/modules/lib/config'
t info sh -c 'echo \"* filter=x\" >.git/info/attributes'
t head sh -c 'echo ref: refs/heads/evil >.git/HEAD'
exit 0"

for how in "a secret below the workdir" "no secret below it"; do
	# Only the previous code could have left anything: start clean.
	rm -rf "$mark" "$WD/.git" && cp -a "$JT/git.orig" "$WD/.git"
	git_listing >"$T/before"
	if [ "$how" = "no secret below it" ]; then
		jail_sh "$attack" -w "$WD"
	else
		jail_sh "$attack" -w "$WD" --deny-read "$WD/secret.txt"
	fi
	is_status 0 "$how: the attack script ran"
	is "$(git_listing | diff "$T/before" - | grep '^[<>]')" "" \
	    "$how: nothing in .git was made or changed"
	absent "$how: no hook was planted in the submodule" "$WD/.git/modules/lib/hooks/post-checkout"
	git_at "$WD/lib" status >/dev/null 2>&1
	git_at "$WD/lib" checkout -q . >/dev/null 2>&1
	absent "$how: the caller's git status and checkout in the submodule ran nothing" "$mark"
done
done_testing
