# A build in a git checkout, and attacks on its .git from inside
# (sbxrun(1), FILES; doc/design/everyday.md, section 3). With .git in the
# workdir, the top level must take new files (a build's objects, a
# library, a program), while .git and the protected paths stay as they
# were: no hook planted (file or symlink), .git/config not replaced,
# appended to or truncated, HEAD not removed, nothing made in .git, .git
# not renamed, no file hard-linked into it, no directory moved into it,
# and no .envrc made at the top. Every verdict is read on the host: the
# files the build made, a listing of .git (paths, modes, sizes, contents)
# taken before and after, git fsck, and the paths that must not exist.
# Run for $SBX_BACKEND (default namespaces); attack-gitll-landlock.sh runs
# it under the landlock backend, where the top level was frozen before.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=21
plan "$N_TESTS"
if ! command -v git >/dev/null 2>&1; then
	skip "git is not installed (install git)" "$N_TESTS"
	done_testing
	exit
fi

git_host() {
	env -u GIT_DIR -u GIT_WORK_TREE GIT_CONFIG_NOSYSTEM=1 HOME="$JT" \
	    GIT_CEILING_DIRECTORIES="$(dirname "$WD")" git -C "$WD" "$@"
}
# Every path below .git with its type, mode, size and content checksum.
git_listing() {
	(cd "$WD" && find .git -printf '%p %y %m %s\n' | sort &&
	    find .git -type f -exec cksum {} + | sort)
}

new_wd
git_host init -q . || fail "git init on the host"
printf 'int f(void) { return 1; }\n' >"$WD/lib.c"
printf 'int f(void);\nint main(void) { return f() - 1; }\n' >"$WD/main.c"
git_host add lib.c main.c
git_host -c user.email=t@example.org -c user.name=t commit -qm init
before=$(git_listing)
chmod -R a+rX "$WD"

# --- a build creating new top-level files ----------------------------------------------
if command -v cc >/dev/null 2>&1; then
	build='cc -c lib.c -o lib.o && cc -c main.c -o main.o && ar rc libf.a lib.o &&
cc -o prog main.o libf.a && ./prog'
else
	build='cp lib.c lib.o && cp main.c main.o && cat lib.o >libf.a && printf "#!/bin/sh\n" >prog && chmod +x prog'
fi
jail_sh "$SBX_T_PRELUDE
t build sh -c '$build'
t newdir sh -c 'mkdir -p out/sub && echo made >out/sub/file'
t rename sh -c 'echo tmp >new.tmp && mv new.tmp new.txt'
t remove sh -c 'echo gone >scratch && rm scratch'
exit 0" -w "$WD"
is_status 0 "the build script ran"
is "$(rc_of build)" 0 "the build in a git checkout succeeded inside"
ok "the library made at the top level is on the host" test -s "$WD/libf.a"
ok "the program made at the top level is on the host" test -x "$WD/prog"
is "$(cat "$WD/out/sub/file" 2>/dev/null)" made "a new directory tree at the top level is on the host"
ok "a file renamed at the top level is there under its new name" test -f "$WD/new.txt"
absent "a file removed at the top level is gone" "$WD/scratch"
is "$(git_listing)" "$before" "the build left .git as it was"

# --- attacks on .git from inside ---------------------------------------------------------
mark=$JT/hook-ran
jail_sh "$SBX_T_PRELUDE
t hook_link ln -s ../../evil .git/hooks/pre-commit
t hook_file sh -c 'printf \"#!/bin/sh\\ntouch $mark\\n\" >.git/hooks/pre-commit'
t hook_exec sh -c 'printf \"#!/bin/sh\\ntouch $mark\\n\" >.git/hooks/post-checkout && chmod +x .git/hooks/post-checkout'
t config_rename sh -c 'printf \"[core]\\n\\tfsmonitor = touch $mark\\n\" >evil.cfg && mv evil.cfg .git/config'
t config_append sh -c 'printf \"[core]\\n\\tfsmonitor = touch $mark\\n\" >>.git/config'
t config_trunc truncate -s 0 .git/config
t head_unlink rm -f .git/HEAD
t hooks_mkdir mkdir .git/hooks/x
t git_mkdir mkdir .git/newdir
t git_rename mv .git gone
t git_rm rm -rf .git
t hooks_rename mv .git/hooks .git/hooks.old
t link_in ln lib.c .git/linked
t dir_in sh -c 'mkdir moved && mv moved .git/moved'
t envrc sh -c 'echo \"touch $mark\" >.envrc'
exit 0" -w "$WD"
is_status 0 "the attack script ran"
is "$(git_listing)" "$before" "nothing in .git was made, removed, renamed or changed"
ok "git fsck finds the repository clean" git_host fsck --no-progress
absent "no pre-commit hook was planted" "$WD/.git/hooks/pre-commit"
absent ".git was not renamed away" "$WD/gone"
absent "no .envrc was made at the top level" "$WD/.envrc"
git_host -c user.email=t@example.org -c user.name=t commit -q --allow-empty -m after \
    >/dev/null 2>&1
git_host checkout -q . >/dev/null 2>&1
absent "the caller's git commit and checkout ran no planted command" "$mark"
is "$(rc_of hook_link)$(rc_of config_rename)$(rc_of git_rename)" "111" \
    "inside, the hook, the config swap and the rename of .git failed (second opinion)"

# --- the same under --trace ---------------------------------------------------------------
# The trace traps every open to observe it; an open that writes must still
# be judged, never only observed and let go on.
before=$(git_listing)
jail_sh "$SBX_T_PRELUDE
t hook_file sh -c 'printf \"#!/bin/sh\\ntouch $mark\\n\" >.git/hooks/pre-commit'
t config_append sh -c 'printf \"[core]\\n\\tfsmonitor = touch $mark\\n\" >>.git/config'
t config_trunc truncate -s 0 .git/config
t envrc sh -c 'echo \"touch $mark\" >.envrc'
exit 0" -w "$WD" --trace "$T/attack.trace"
is_status 0 "the attack script ran under --trace"
is "$(git_listing)" "$before" "under --trace too, nothing in .git was made or changed"
absent "under --trace, no pre-commit hook was planted" "$WD/.git/hooks/pre-commit"
absent "under --trace, no .envrc was made at the top level" "$WD/.envrc"
ok "the trace file was written" test -s "$T/attack.trace"
done_testing
