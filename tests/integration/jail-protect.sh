# The built-in protect list (sbxrun.profile(5)): inside the workdir, the
# files other tools run or load without asking (.envrc, .vscode/, ...; the
# shell rc files when the workdir is a home) stay as they were, whatever
# the sandbox writes, chmods, renames or creates; what it makes at a
# missing one is moved aside after the run. --no-protect-defaults drops
# the list (the control: the same writes then land). Every verdict is read
# on the host. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

FILES=".envrc .devcontainer.json .gitmodules .gitattributes .pre-commit-config.yaml"
DIRS=".vscode .idea .devcontainer"

# Every entry, existing: files hold "orig", directories a file "f" that does.
populate() {
	for f in $FILES; do
		echo "orig $f" >"$WD/$f"
		chmod 644 "$WD/$f"
	done
	for d in $DIRS; do
		mkdir -p "$WD/$d"
		echo "orig $d" >"$WD/$d/f"
		chmod 755 "$WD/$d"
	done
}

# The attack on every entry: write in place, chmod, make a new entry in a
# directory, rename away and plant another under the name.
ATTACK="for f in $FILES; do
	echo evil >>\$f; chmod 777 \$f; mv \$f \$f.moved; echo evil >\$f
done
for d in $DIRS; do
	echo evil >>\$d/f; echo evil >\$d/new; chmod 777 \$d; mv \$d \$d.moved
	mkdir -p \$d; echo evil >\$d/f
done
echo fine >newfile
exit 0"

state() {
	for f in $FILES; do
		printf '%s %s %s\n' "$f" "$(stat -c %a "$WD/$f" 2>&1)" "$(cat "$WD/$f" 2>&1)"
	done
	for d in $DIRS; do
		printf '%s %s %s %s\n' "$d" "$(stat -c %a "$WD/$d" 2>&1)" \
		    "$(ls -A "$WD/$d" 2>&1 | tr '\n' ' ')" "$(cat "$WD/$d/f" 2>&1)"
	done
}

# --- existing entries -----------------------------------------------------------
for mode in strict open; do
	new_wd
	populate
	state >"$T/before"
	jail_sh "$ATTACK" --fs "$mode" -w "$WD"
	is_status 0 "$mode: the attack script ran"
	is "$(state)" "$(cat "$T/before")" \
	    "$mode: every built-in entry keeps its content, mode and listing"
	is "$(cat "$WD/newfile" 2>&1)" fine \
	    "$mode: a new top-level file next to them still appears (control)"
done

# --- sbxrun killed during the run --------------------------------------------------
# A CI cancel or the OOM killer ends sbxrun with SIGKILL while the sandbox
# has replaced .envrc and .vscode/: once the jail's init and
# the keeper are done (init puts the copies back under landlock, before
# the keeper's hand-back), the caller's entries are back, with their
# content, mode and owner, and the planted .envrc is moved aside.
# Under namespaces the entries are read-only binds and nothing changes.
new_wd
populate
state >"$T/before"
sbx_bg_ready 'mv .envrc .envrc.old; echo "echo planted" >.envrc
mv .vscode .vscode.old; mkdir .vscode; echo evil >.vscode/f' -w "$WD"
# Done when the keeper, which waits for init's restore, has exited.
sbx_kill_wait
is "$(state)" "$(cat "$T/before")" \
    "sbxrun SIGKILLed: every built-in entry keeps its content, mode and listing"
is "$(stat -c %u "$WD/.envrc" 2>&1)" "$(id -u)" "sbxrun SIGKILLed: .envrc is the caller's"
if [ "$SBX_BACKEND" = landlock ]; then
	is "$(cat "$WD/.envrc.sbxrun-untrusted.1" 2>&1)" "echo planted" \
	    "sbxrun SIGKILLed: the planted .envrc is moved aside"
fi
is "$(leftovers)" "" "sbxrun SIGKILLed: nothing is left in TMPDIR (the copies)"

# --- missing entries ------------------------------------------------------------
new_wd
jail_sh "for f in $FILES; do echo evil >\$f; done
for d in $DIRS; do mkdir \$d && echo evil >\$d/f; done
echo fine >newfile
exit 0" -w "$WD"
is_status 0 "missing entries: the planting script ran"
for n in $FILES $DIRS; do
	absent "missing $n: nothing is left under that name" "$WD/$n"
	like "$(jget warnings)" "made $n, where nothing may be made; it was moved aside to $n.sbxrun-untrusted.1" \
	    "missing $n: warnings name where it went"
done
is "$(cat "$WD/newfile" 2>&1)" fine "missing entries: other new files stay (control)"

# --protect with a trailing slash, or with "." and "//" in it, names the
# same entry: a missing one made in the run is moved aside all the same.
# ("hooks/" was looked up as an empty name after the run, and what the
# sandbox made there stayed, unnamed.)
for spelling in "hooks/" "./hooks//" "x/./y/"; do
	new_wd
	n=${spelling%%/*}
	[ "$n" = . ] && n=hooks
	[ "$spelling" = "x/./y/" ] && { mkdir "$WD/x"; n=x/y; }
	jail_sh "mkdir -p $n && echo evil >$n/post-checkout; exit 0" -w "$WD" --protect "$spelling"
	is_status 0 "--protect '$spelling': the planting script ran"
	absent "--protect '$spelling': nothing is left under $n" "$WD/$n"
	like "$(jget warnings)" "made $n, where nothing may be made; it was moved aside to $n.sbxrun-untrusted.1" \
	    "--protect '$spelling': warnings name where $n went"
done

# A temp workdir that goes whole (no -w, no --keep): under landlock the
# keeper's undo is then not waited for (doc/design/startup.md, section
# 30), and what it moved aside still reaches the diagnostics line, read
# with its FINISH; the workdir is gone after the run. (Under namespaces
# that workdir is the jail's own and nothing of it reaches the host.)
if [ "${SBX_BACKEND:-namespaces}" = landlock ]; then
	jail_sh 'echo evil >.envrc; mkdir .vscode; exit 0'
	is_status 0 "temp workdir: the planting script ran"
	for n in .envrc .vscode; do
		like "$(jget warnings)" "made $n, where nothing may be made; it was moved aside to $n.sbxrun-untrusted.1" \
		    "temp workdir: warnings name where $n went"
	done
	is "$(leftovers)" "" "temp workdir: nothing is left in TMPDIR"
fi

# The sandbox takes every numbered name the move aside would use first:
# the planted .envrc must still leave its name (for a random one).
new_wd
jail_sh 'echo evil >.envrc; n=1
while [ $n -le 100 ]; do : >.envrc.sbxrun-untrusted.$n; n=$((n + 1)); done
exit 0' -w "$WD"
is_status 0 "the 100 names taken: the planting script ran"
absent "the 100 names taken: nothing is left as .envrc" "$WD/.envrc"
is "$(cat "$WD"/.envrc.sbxrun-untrusted.???????????????? 2>&1)" evil \
    "... it went to a name with a random part, which warnings name"

# --- the control: --no-protect-defaults -------------------------------------------
new_wd
populate
jail_sh "$ATTACK" --no-protect-defaults -w "$WD"
is_status 0 "--no-protect-defaults: the script ran"
is "$(cat "$WD/.envrc" 2>&1)" evil "--no-protect-defaults: .envrc is writable (the test can fail)"
is "$(cat "$WD/.vscode.moved/new" 2>&1)" evil \
    "--no-protect-defaults: .vscode/ takes new files and can be renamed"
ok "--no-protect-defaults: .gitmodules could be renamed" test -e "$WD/.gitmodules.moved"
new_wd
jail_sh "echo evil >.envrc; exit 0" -w "$WD" -p "$(printf '[sandbox]\nprotect_defaults = no\n' >"$T/np.ini"; echo "$T/np.ini")"
is "$(cat "$WD/.envrc" 2>&1)" evil "protect_defaults = no: a new .envrc stays"

# --- a workdir that is the home -----------------------------------------------------
RC=".bashrc .profile .zshenv .inputrc .gitconfig"
home_populate() {
	for f in $RC; do
		echo "orig $f" >"$HOME/$f"
		chmod 644 "$HOME/$f"
	done
	mkdir -p "$HOME/.config/fish"
	echo "orig fish" >"$HOME/.config/fish/config.fish"
}
home_state() {
	for f in $RC .config/fish/config.fish; do
		printf '%s %s %s\n' "$f" "$(stat -c %a "$HOME/$f" 2>&1)" "$(cat "$HOME/$f" 2>&1)"
	done
	ls -A "$HOME/.config/fish"
}
home_populate
home_state >"$T/home.before"
jail_sh "for f in $RC; do echo evil >>\$f; chmod 777 \$f; mv \$f \$f.moved; echo evil >\$f; done
echo evil >>.config/fish/config.fish; echo evil >.config/fish/conf.d
mv .config/fish .config/fish.moved; mkdir -p .config/fish; echo evil >.config/fish/config.fish
echo evil >.zshrc; echo evil >.bash_profile
echo fine >newfile
exit 0" -w "$HOME"
is_status 0 "home: the rc-file script ran"
is "$(home_state)" "$(cat "$T/home.before")" "home: rc files keep content, mode and place"
absent "home: a new .zshrc is not left" "$HOME/.zshrc"
absent "home: a new .bash_profile is not left" "$HOME/.bash_profile"
is "$(cat "$HOME/newfile" 2>&1)" fine "home: a new file in the home still appears (control)"
rm -rf "$HOME"/.[!.]* "$HOME"/newfile

# sbxrun's own profiles: one the sandbox wrote in the home would be what a
# later run's -p NAME loads, ahead of the machine's and the installed ones.
mkdir -p "$HOME/.config/sbxrun/profiles"
printf '[sandbox]\nnetwork = off\n' >"$HOME/.config/sbxrun/profiles/mine.ini"
plant='echo "network = on" >>.config/sbxrun/profiles/mine.ini
mkdir -p .config/sbxrun/profiles; printf "[sandbox]\nnetwork = on\n" >.config/sbxrun/profiles/strict.ini
exit 0'
jail_sh "$plant" -w "$HOME"
is_status 0 "home profiles: the planting script ran"
is "$(cat "$HOME/.config/sbxrun/profiles/mine.ini")" "$(printf '[sandbox]\nnetwork = off')" \
    "home profiles: the caller's profile keeps its content"
absent "home profiles: no new profile is left for -p to find" \
    "$HOME/.config/sbxrun/profiles/strict.ini"
rm -rf "$HOME/.config"
jail_sh "$plant" -w "$HOME"
absent "home profiles: none either where the caller had no profile directory" \
    "$HOME/.config/sbxrun/profiles/strict.ini"
rm -rf "$HOME"/.[!.]*

# Start-up files of the shells, editors, tmux and X sessions beyond the
# classic rc files: Debian's .bashrc runs .bash_aliases; vim, Emacs and
# tmux run what they find in their directories.
STARTUP=".bash_aliases .emacs.el .emacs.d/early-init.el .config/emacs/init.el .vim/vimrc
.vim/plugin/p.vim .config/vim/vimrc .tmux.conf .config/tmux/tmux.conf .xsession .xinitrc"
mkdir -p "$HOME/.vim"
echo orig >"$HOME/.vim/vimrc"
jail_sh "for f in $(echo $STARTUP); do mkdir -p \"\${f%/*}\"; echo evil >>\"\$f\"; done
echo fine >newfile; exit 0" -w "$HOME"
is_status 0 "home start-up files: the planting script ran"
is "$(cat "$HOME/.vim/vimrc")" orig "home start-up files: the caller's .vim/vimrc keeps its content"
left=
for f in $STARTUP; do
	[ "$f" = .vim/vimrc ] && continue
	[ -e "$HOME/$f" ] && left="$left $f"
done
is "$left" "" "home start-up files: none of the planted ones is left"
is "$(cat "$HOME/newfile" 2>&1)" fine "home start-up files: a new file still appears (control)"
rm -rf "$HOME"/.[!.]* "$HOME"/newfile

# A read-write mount of the workdir's parent, or of a protected directory,
# would reach .envrc, .vscode and .git under another name: refused before
# anything runs (sbxrun(1), Filesystem).
new_wd
echo orig >"$WD/.envrc"
mkdir -p "$WD/.vscode"
for what in parent .vscode; do
	case $what in
	parent) m="$(dirname "$WD"):up:rw" ;;
	*) m="$WD/.vscode:vs:rw" ;;
	esac
	jail_sh "echo evil >>up/$(basename "$WD")/.envrc; echo evil >vs/tasks.json; exit 0" \
	    -w "$WD" -m "$m" --allow-degraded
	is_status 125 "a read-write mount of the workdir's $what: refused (125)"
done
is "$(cat "$WD/.envrc")" orig "... the workdir's .envrc is unchanged"
absent "... nothing was written in .vscode" "$WD/.vscode/tasks.json"

# Not a home: the same names are the project's own (control).
new_wd
echo orig >"$WD/.bashrc"
jail_sh "echo evil >.bashrc; exit 0" -w "$WD"
is "$(cat "$WD/.bashrc")" evil "not a home: .bashrc is an ordinary file (control)"

# --- a protected name that is a symlink ----------------------------------------------
# What the caller's tools read through .envrc (built in) or a [protect]
# name is the link's target: writing through the link or at the target
# itself must leave the target as it was, when it lies in the workdir. A
# link to a file outside the workdir is named in the plan's notes.
new_wd
mkdir -p "$WD/scripts" "$WD/real"
echo orig >"$WD/scripts/env.sh"
echo orig >"$WD/real/cfg.txt"
ln -s scripts/env.sh "$WD/.envrc"
ln -s real/cfg.txt "$WD/cfg"
chmod 644 "$WD/scripts/env.sh" "$WD/real/cfg.txt"
touch -d '2020-01-01 00:00:00' "$WD/scripts/env.sh" "$WD/real/cfg.txt"
jail_sh "echo evil >>.envrc; echo evil >>scripts/env.sh; echo evil >>cfg
echo evil >>real/cfg.txt; mv real/cfg.txt real/x; echo evil >real/cfg.txt
chmod 777 scripts/env.sh real/cfg.txt; touch -d '2001-01-01 00:00:00' scripts/env.sh real/cfg.txt
echo fine >newfile; exit 0" --protect cfg -w "$WD"
is_status 0 "links: the script ran"
is "$(stat -c '%a %Y' "$WD/scripts/env.sh" "$WD/real/cfg.txt" | tr '\n' ' ')" \
    "644 $(date -d '2020-01-01 00:00:00' +%s) 644 $(date -d '2020-01-01 00:00:00' +%s) " \
    "links: the targets keep their mode and times (chmod and touch at the target's own name)"
is "$(cat "$WD/scripts/env.sh")" orig "links: .envrc's target keeps its content"
is "$(cat "$WD/real/cfg.txt")" orig "links: a [protect] link's target keeps its content"
absent "links: the target was not renamed away" "$WD/real/x"
is "$(readlink "$WD/.envrc")" scripts/env.sh "links: .envrc still points where it did"
is "$(cat "$WD/newfile" 2>&1)" fine "links: a new file still appears (control)"
new_wd
ln -s /etc/hostname "$WD/cfg"
jail --print-backend --protect cfg -w "$WD" </dev/null
like "$(cat "$T/out" "$T/err")" "protected path cfg is a symlink to /etc/hostname, outside the workdir" \
    "links: a target outside the workdir is named in the plan"

# Links inside .git and inside a protected directory lead to what git and
# the tools run: a hook kept in the work tree (.git/hooks/pre-commit ->
# ../../scripts/pre-commit), a VS Code task file kept elsewhere. And a
# .git that is itself a link to a directory of the workdir is the
# repository. Each target is protected as the link is.
new_wd
mkdir -p "$WD/.git/hooks" "$WD/scripts" "$WD/.vscode" "$WD/shared"
printf '[core]\n\tbare = false\n' >"$WD/.git/config"
printf '#!/bin/sh\necho lint ok\n' >"$WD/scripts/pre-commit"
echo '{}' >"$WD/shared/tasks.json"
chmod 755 "$WD/scripts/pre-commit"
chmod 644 "$WD/shared/tasks.json"
ln -s ../../scripts/pre-commit "$WD/.git/hooks/pre-commit"
ln -s ../shared/tasks.json "$WD/.vscode/tasks.json"
jail_sh 'echo "touch /tmp/pwned" >>scripts/pre-commit; echo evil >shared/tasks.json
echo fine >scripts/other; exit 0' -w "$WD"
is_status 0 "links inside: the script ran"
is "$(cat "$WD/scripts/pre-commit")" "$(printf '#!/bin/sh\necho lint ok')" \
    "links inside: the hook's target in the work tree keeps its content"
is "$(cat "$WD/shared/tasks.json")" '{}' "links inside: .vscode's link target keeps its content"
is "$(cat "$WD/scripts/other" 2>&1)" fine "links inside: a new file next to it still appears (control)"
jail_sh 'echo "touch /tmp/pwned" >>sx/pre-commit; exit 0' -w "$WD" -m "$WD/scripts:sx:rw" \
    --allow-degraded
is_status 125 "links inside: a read-write mount of the hook's directory is refused (125)"
is "$(cat "$WD/scripts/pre-commit")" "$(printf '#!/bin/sh\necho lint ok')" \
    "... and the hook keeps its content"
new_wd
mkdir -p "$WD/.gitdir/hooks"
printf '[core]\n\tbare = false\n' >"$WD/.gitdir/config"
ln -s .gitdir "$WD/.git"
jail_sh 'echo "[core] fsmonitor = touch /tmp/pwned" >>.gitdir/config
echo evil >.gitdir/hooks/pre-commit; exit 0' -w "$WD"
is "$(cat "$WD/.gitdir/config")" "$(printf '[core]\n\tbare = false')" \
    ".git a link to .gitdir: the real repository's config keeps its content"
absent ".git a link to .gitdir: no hook is made there" "$WD/.gitdir/hooks/pre-commit"

# Protected paths too large to copy (the landlock backend copies the
# built-in ones that exist and falls back to read-only rules when they
# pass its bound): the copy's directory is removed and nobody reports
# it missing afterwards; nothing is left in TMPDIR.
new_wd
mkdir "$WD/.vscode" "$T/tmpd"
(cd "$WD/.vscode" && seq 1 20001 | xargs touch)
TMPDIR=$T/tmpd jail_sh 'echo ran >marker' -w "$WD"
is_status 0 "large: the script ran"
is "$(cat "$WD/marker" 2>&1)" ran "large: its file is there"
unlike "$(cat "$T/err")" "no longer the directory sbxrun made" \
    "large: no copy directory is reported missing"
is "$(ls -A "$T/tmpd")" "" "large: nothing is left in TMPDIR"
is "$(ls "$WD/.vscode" | wc -l)" 20001 "large: .vscode keeps its entries"
rm -rf "$WD/.vscode"

done_testing
