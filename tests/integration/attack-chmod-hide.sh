# A sandbox of the caller's uid can take the caller's own read or search
# permission from a directory it made or owns (chmod 000, 0111): the
# clean-up after the run, which runs as the caller, then cannot look below
# it. It took EACCES for "nothing made there" and left what was planted
# there without a word (a git config whose core.fsmonitor the caller's next
# git ran, a nested repository). Where the clean-up cannot look (the
# moving aside of protected names), a warning names each such directory
# and says what was not looked at. The search for repositories opens a
# directory of the caller's for itself only, and gives it its exact mode
# back: a directory the caller locked itself looks the same (a rename
# changes its ctime), and it stays locked. Root's clean-up reads through
# any mode. Judged on the host. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

if [ "$(id -u)" = 0 ]; then
	root_note=" (root: read through)"
else
	root_note=
fi

# 1. A home workdir: a git config under ~/.config, then ~/.config 000.
mkdir -p "$HOME/.config/other"
echo mine >"$HOME/.config/other/f"
jail_sh 'mkdir -p .config/git && printf "[core]\n\tfsmonitor = \"touch /tmp/x; false\"\n" >.config/git/config
chmod 000 .config; exit 0' -w "$HOME"
is_status 0 "home: the planting script ran"
if [ -z "$root_note" ]; then
	like "$(jget warnings)" ".config cannot be searched" "home: a warning names ~/.config"
else
	chmod u+rwx "$HOME/.config" 2>/dev/null
	absent "home: no git config is left below ~/.config$root_note" "$HOME/.config/git/config"
fi
chmod u+rwx "$HOME/.config" 2>/dev/null
rm -rf "$HOME"/.[!.]*

# 2. The workdir itself 000, with a new .envrc.
new_wd
echo data >"$WD/file"
jail_sh 'echo evil >.envrc; chmod 000 .; exit 0' -w "$WD"
is_status 0 "workdir 000: the planting script ran"
if [ -z "$root_note" ]; then
	like "$(jget warnings)" "cannot be searched" "workdir 000: a warning says the workdir was not looked in"
else
	chmod u+rwx "$WD" 2>/dev/null
	absent "workdir 000: no .envrc is left$root_note" "$WD/.envrc"
fi
chmod u+rwx "$WD" 2>/dev/null

# 2b. The workdir itself locked and open to others (0073): another local
# user could put entries in it after the run. It loses write for others
# through the descriptor held since before the run, though the search
# cannot read it. (It kept 0073.)
new_wd
jail_sh 'chmod 0073 .; exit 0' -w "$WD"
is_status 0 "workdir 0073: the script ran"
is "$(stat -c %a "$WD")" 71 "workdir 0073: it is left 0071, closed to others"
chmod 755 "$WD"

# 3. A nested repository below a directory of mode 0111 (searchable, not
# listable: the caller's tools still work there).
new_wd
jail_sh 'mkdir -p hid/r/.git/objects hid/r/.git/refs && echo "ref: refs/heads/m" >hid/r/.git/HEAD
chmod 0111 hid; exit 0' -w "$WD"
is_status 0 "0111: the planting script ran"
like "$(jget warnings)" "hid/r/.git" "0111: a warning names the nested repository$root_note"
is "$(stat -c %a "$WD/hid")" 111 "... and the directory has its mode 0111 back"
chmod -R u+rwx "$WD" 2>/dev/null

# 3b. The same below a directory of mode 0001, which its owner can neither
# list nor search (others can search it), two levels down.
new_wd
jail_sh 'mkdir -p a/b/r/.git/objects a/b/r/.git/refs && echo "ref: refs/heads/m" >a/b/r/.git/HEAD
chmod 0001 a/b; chmod 0001 a; exit 0' -w "$WD"
is_status 0 "0001: the planting script ran"
like "$(jget warnings)" "a/b/r/.git" "0001: a warning names the nested repository$root_note"
is "$(stat -c %a "$WD/a")" 1 "... the directory has its mode 0001 back"
chmod u+rwx "$WD/a"
is "$(stat -c %a "$WD/a/b")" 1 "... and so has the one below it"
chmod -R u+rwx "$WD" 2>/dev/null

# 4. A directory the caller locked before the run stays locked, the run
# doing nothing at all.
new_wd
mkdir -p "$WD/locked/sub"
echo secret >"$WD/locked/sub/x"
chmod 000 "$WD/locked"
jail_sh 'mv locked l2 2>/dev/null && mv l2 locked; exit 0' -w "$WD"
is "$(stat -c %a "$WD/locked")" 0 "a directory locked before the run stays locked (mode 000)"
chmod 755 "$WD/locked"
done_testing
