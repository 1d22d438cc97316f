# A repository below the workdir's top level that was there before the
# run, changed in place (sbxrun(1), the git search). Appending
# core.fsmonitor to sub/.git/config, writing a hook, or rewriting one that
# was there changes the change time of the config, of hooks/ or of the
# hook, not of sub/.git itself: a search that looked at the .git
# directory's own time named none of them, and the caller's next git
# status in sub ran the sandbox's command. The same holds for a bare
# repository and for a submodule's git directory (.git/modules/NAME).
# Verdict on the host: sbxrun's warning names each repository changed in
# place; one the run did not touch is not named.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=14
if ! command -v git >/dev/null 2>&1; then
	skip "git is not installed (install git)" "$N_TESTS"
	done_testing
	exit 0
fi

git_init() {
	env -u GIT_DIR -u GIT_WORK_TREE GIT_CONFIG_NOSYSTEM=1 HOME="$JT" \
	    git -c init.defaultBranch=main init -q "$@"
}
# Whether the warning names exactly PATH among the repositories.
named() {
	grep -o '"the run made or changed [^"]*"' "$T/diag" |
	    sed 's/^.* there): //; s/"$//' | tr ',' '\n' | sed 's/^ //' | grep -qxF "$1"
}

# At most eight repositories are named (sbxrun(1)), and a root caller's
# landlock run changes them all: two runs of fewer each.
for r in config newhook oldhook calm; do
	git_init "$WD/$r"
done
printf '#!/bin/sh\nexit 0\n' >"$WD/oldhook/.git/hooks/pre-commit"
printf '#!/bin/sh\nexit 0\n' >"$WD/calm/.git/hooks/pre-commit"
WD1=$WD
new_wd
for r in head worktree linked super; do
	git_init "$WD/$r"
done
: >"$WD/worktree/.git/config.worktree"
# A linked worktree's git directory, as "git worktree add" leaves it: a
# HEAD next to commondir, no objects or refs of its own.
mkdir -p "$WD/linked/.git/worktrees/wt"
echo 'ref: refs/heads/main' >"$WD/linked/.git/worktrees/wt/HEAD"
echo ../.. >"$WD/linked/.git/worktrees/wt/commondir"
: >"$WD/linked/.git/worktrees/wt/config.worktree"
git_init --bare "$WD/bare.git"
git_init --bare "$WD/super/.git/modules/lib"
chmod -R a+rwX "$WD1" "$WD"
# Inode times come from the coarse clock: what was made before must fall
# in an earlier tick than the run's start (a change in the same tick
# counts as made in the run, sbxrun(1)).
sleep 0.1

mark=$JT/planted-ran
jail_sh "$SBX_T_PRELUDE
t config sh -c 'printf \"[core]\\n\\tfsmonitor = touch $mark\\n\" >>config/.git/config'
t newhook sh -c 'printf \"#!/bin/sh\\ntouch $mark\\n\" >newhook/.git/hooks/post-checkout && chmod +x newhook/.git/hooks/post-checkout'
t oldhook sh -c 'echo \"touch $mark\" >>oldhook/.git/hooks/pre-commit'
exit 0" -w "$WD1"
is_status 0 "the first script ran"
ok "the sandbox changed the caller's repositories in place" \
    grep -q "touch $mark" "$WD1/config/.git/config" "$WD1/oldhook/.git/hooks/pre-commit"
diag "$(jget warnings)"
ok "a config appended to is named" named config/.git
ok "a hook written into hooks/ is named" named newhook/.git
ok "a hook that was there and was rewritten is named" named oldhook/.git
if [ "$SBX_BACKEND" = landlock ] && [ "$(id -u)" = 0 ]; then
	# sbxrun(1): the workdir is lent to uid 65534 and handed back.
	skip "a root caller's landlock run changes every file's owner and back: each one reads as changed"
else
	nok "a repository the run did not touch is not named" named calm/.git
fi

jail_sh "$SBX_T_PRELUDE
t head sh -c 'echo ref: refs/heads/other >head/.git/HEAD'
t worktree sh -c 'printf \"[core]\\n\\tfsmonitor = touch $mark\\n\" >>worktree/.git/config.worktree'
t linked sh -c 'printf \"[core]\\n\\tfsmonitor = touch $mark\\n\" >>linked/.git/worktrees/wt/config.worktree'
t bare sh -c 'printf \"[core]\\n\\tfsmonitor = touch $mark\\n\" >>bare.git/config'
t module sh -c 'printf \"#!/bin/sh\\ntouch $mark\\n\" >super/.git/modules/lib/hooks/post-checkout'
exit 0" -w "$WD"
is_status 0 "the second script ran"
diag "$(jget warnings)"
ok "a HEAD rewritten in place is named" named head/.git
ok "a config.worktree appended to is named" named worktree/.git
ok "a linked worktree's git directory changed in place is named" named linked/.git/worktrees/wt
ok "a bare repository's config appended to is named" named bare.git
ok "a submodule's git directory given a hook is named" named super/.git/modules/lib
if [ "$SBX_BACKEND" = landlock ] && [ "$(id -u)" = 0 ]; then
	skip "a root caller's landlock run changes every file's owner and back: each one reads as changed" 2
else
	nok "the superproject whose submodule's directory was changed is not named" named super/.git
	nok "nor the repository whose worktree's directory was" named linked/.git
fi

done_testing
