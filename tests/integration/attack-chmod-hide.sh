# A sandbox of the caller's uid can take the caller's own read or search
# permission from a directory it made or owns (chmod 000, 0111): the
# clean-up after the run, which runs as the caller, then could not look
# below it, took EACCES for "nothing made there", and left what was
# planted there without a word (a git config whose core.fsmonitor the
# caller's next git ran, a nested repository). Now a directory the caller
# owns and the run changed is given its owner's rwx back and searched,
# with a warning. Root's clean-up reads through any mode (control).
# Judged on the host. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

# 1. A home workdir: a git config under ~/.config, then ~/.config 000.
mkdir -p "$HOME/.config/other"
echo mine >"$HOME/.config/other/f"
jail_sh 'mkdir -p .config/git && printf "[core]\n\tfsmonitor = \"touch /tmp/x; false\"\n" >.config/git/config
chmod 000 .config; exit 0' -w "$HOME"
is_status 0 "home: the planting script ran"
chmod u+rwx "$HOME/.config" 2>/dev/null
absent "home: no git config is left below ~/.config" "$HOME/.config/git/config"
is "$(cat "$HOME/.config/other/f" 2>&1)" mine "home: the caller's other files stay (control)"
rm -rf "$HOME"/.[!.]*

# 2. The workdir itself 000, with a new .git and .envrc.
new_wd
echo data >"$WD/file"
jail_sh 'mkdir -p .git/hooks && printf "[core]\n\tbare = false\n" >.git/config
echo evil >.envrc; chmod 000 .; exit 0' -w "$WD"
is_status 0 "workdir 000: the planting script ran"
chmod u+rwx "$WD" 2>/dev/null
absent "workdir 000: no .envrc is left" "$WD/.envrc"
absent "workdir 000: no .git is left" "$WD/.git"
is "$(cat "$WD/file" 2>&1)" data "workdir 000: the caller's file stays (control)"

# 3. A nested repository below a directory of mode 0111 (searchable, not
# listable: the caller's tools still work there).
new_wd
jail_sh 'mkdir -p hid/r/.git/objects hid/r/.git/refs && echo "ref: refs/heads/m" >hid/r/.git/HEAD
chmod 0111 hid; exit 0' -w "$WD"
is_status 0 "0111: the planting script ran"
like "$(jget warnings)" "hid/r/.git" "0111: a warning names the nested repository"
chmod -R u+rwx "$WD" 2>/dev/null
done_testing
