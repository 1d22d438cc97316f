# Repositories made in the run (sbxrun(1), FILES): with no .git in the
# workdir, the sandbox can make the workdir itself a bare repository
# (HEAD, objects/, refs/ and a config whose core.fsmonitor is a command)
# at its top level; the caller's next "git status" there would run that
# command. What the run made at the top level is moved aside after it and
# named in the warnings; repositories made deeper are listed there. The
# verdict: a marker the planted command would make on the host, written
# by the caller's own git. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=16
if ! command -v git >/dev/null 2>&1; then
	fail "git is not installed: cannot run the caller's git afterwards (install git)"
	done_testing
	exit
fi

ran=$JT/git-command-ran
mkdir -p "$JT/home"
git_host() {
	env -u GIT_DIR -u GIT_WORK_TREE GIT_CONFIG_NOSYSTEM=1 HOME="$JT/home" \
	    GIT_CEILING_DIRECTORIES="$(dirname "$WD")" git -C "$WD" "$@"
}
# The planted layout: the workdir as its own git directory, whose config
# makes it its own work tree too and runs a command in "git status".
bare="mkdir -p objects refs/heads
echo 'ref: refs/heads/main' >HEAD
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = \"touch $ran; false\"\\n' >config"

# --- a bare repository at the top level ---------------------------------------------
new_wd
echo 'print(1)' >"$WD/app.py"
jail_sh "$bare
exit 0" -w "$WD"
is_status 0 "the bare-layout script ran"
git_host status >/dev/null 2>&1
git_host log >/dev/null 2>&1
absent "the caller's git status runs no command planted in a top-level bare layout" "$ran"
like "$(cat "$T/diag")" "moved aside" "warnings name the move of the bare layout"
like "$(cat "$T/diag")" "config to config.sbxrun-untrusted.1" "warnings name where config went"
ok "HEAD was moved aside, not removed" test -f "$WD/HEAD.sbxrun-untrusted.1"
is "$(cat "$WD/app.py")" "print(1)" "the rest of the workdir is untouched (control)"

# --- with git itself ------------------------------------------------------------------
rm -f "$ran"
new_wd
jail_sh "git init -q --bare . >/dev/null 2>&1 || { $bare; }
{ git config core.bare false && git config core.worktree . &&
    git config core.fsmonitor 'touch $ran; false'; } 2>/dev/null || { $bare; }
exit 0" -w "$WD"
is_status 0 "the git-init script ran"
git_host status >/dev/null 2>&1
absent "git init --bare in the workdir: the caller's git status runs nothing" "$ran"

# A layout whose names are symlinks: the links move, never what they name.
new_wd
jail_sh "mkdir objects refs; echo 'ref: refs/heads/main' >HEAD; ln -s /etc/passwd config
exit 0" -w "$WD"
ok "a symlink planted as config was moved aside, its target untouched" \
    sh -c "test -L '$WD/config.sbxrun-untrusted.1' && test -s /etc/passwd && test -f /etc/passwd"

# --- sbxrun killed before its checks ------------------------------------------------
# The move above is sbxrun's, after the run: a CI cancel or the OOM killer
# that ends sbxrun with SIGKILL while the layout is there left it for the
# caller's next git status. The keeper (docker: init), which outlives
# sbxrun, now moves HEAD aside then.
rm -f "$ran"
new_wd
sbx_bg_ready "$bare" -w "$WD"
sbx_kill_wait
git_host status >/dev/null 2>&1
absent "sbxrun SIGKILLed: the caller's git status runs no command of the layout" "$ran"
ok "sbxrun SIGKILLed: HEAD was moved aside" test -f "$WD/HEAD.sbxrun-untrusted.1"

# --- a workdir that was a bare repository before the run is left alone --------------
new_wd
git_host init -q --bare . || diag "git init failed"
jail_sh "echo x >file; exit 0" -w "$WD"
ok "a bare repository that was there before keeps its HEAD and config" \
    test -f "$WD/HEAD" -a -f "$WD/config"
unlike "$(cat "$T/diag")" "moved aside" "and no move is reported"

# --- repositories made deeper are listed --------------------------------------------
rm -f "$ran"
new_wd
jail_sh "mkdir -p vendor/lib/.git sub && (cd vendor/lib/.git && $bare) && (cd sub && $bare)
echo x >plain; exit 0" -w "$WD"
is_status 0 "the deep-repository script ran"
like "$(cat "$T/diag")" "vendor/lib/.git" "warnings list a .git made deeper"
ok "warnings list a bare repository made deeper" \
    grep -Eq 'repositor[^"]*(: |, )sub(,|")' "$T/diag"

done_testing
