# A root caller's run on a workdir of another user's, shared (mode 0777):
# under landlock the sandbox (uid 65534) renames the built-in protected
# entries away and plants its own; the put-back after the run rebuilt
# them from the copy as root's files, so the workdir's owner found their
# .vscode/, .envrc and the files in them root's, which they can no
# longer change (protect.md, "Landlock: a copy instead of a frozen top
# level"). The copy now keeps each entry's owner and group and the
# put-back gives them back, a symlink's included; what the sandbox left,
# moved aside, is its output, handed back to the caller as the rest of
# it (doc/design/handback.md). The same when sbxrun is killed and the
# jail's init puts the entries back. (Under namespaces the entries are
# read-only binds, and a root caller's sandbox cannot rename another
# user's files: nothing to put back.) Verdicts on the host: owners,
# groups, modes and contents.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=16
if ! root_only "only root can give the workdir to another user and run on it" "$N_TESTS"; then
	done_testing
	exit 0
fi

# Another user's and group's ids, not the sandbox's (65534).
OU=4242
OG=4343

# The workdir's owner's protected entries; a group of another's on some.
populate() {
	chown "$OU:$OU" "$WD"
	chmod 777 "$WD"
	mkdir -p "$WD/.vscode/sub"
	echo '{"orig": 1}' >"$WD/.vscode/settings.json"
	echo orig >"$WD/.vscode/sub/f"
	echo 'export ORIG=1' >"$WD/.envrc"
	# A link out of the workdir: one to a file in it makes that file a
	# protected path too, and the supervisor then refuses every rename
	# of a protected name (the rename this test needs).
	ln -s ../shared/devcontainer.json "$WD/.devcontainer.json"
	echo code >"$WD/main.c"
	chmod 755 "$WD/.vscode" "$WD/.vscode/sub"
	chmod 644 "$WD/.vscode/settings.json" "$WD/.vscode/sub/f" "$WD/.envrc" "$WD/main.c"
	chmod 640 "$WD/.vscode/settings.json"
	chown -hR "$OU:$OU" "$WD/.vscode" "$WD/.envrc" "$WD/main.c"
	chown "$OU:$OG" "$WD/.vscode" "$WD/.vscode/settings.json"
	chown -h "$OU:$OG" "$WD/.devcontainer.json"
}

# Owner, group, mode and content (or target) of each entry.
state() {
	for p in .vscode .vscode/settings.json .vscode/sub .vscode/sub/f .envrc; do
		printf '%s %s %s\n' "$p" "$(stat -c '%u:%g %a' "$WD/$p" 2>&1)" \
		    "$([ -f "$WD/$p" ] && cat "$WD/$p" 2>&1)"
	done
	printf '.devcontainer.json %s %s\n' "$(stat -c '%u:%g' "$WD/.devcontainer.json" 2>&1)" \
	    "$(readlink "$WD/.devcontainer.json" 2>&1)"
}

# Renamed away and planted: a directory, a file, a symlink.
ATTACK='mv .vscode vs.old && mkdir .vscode && echo "{\"evil\": 1}" >.vscode/settings.json
mv .envrc envrc.old && echo "export EVIL=1" >.envrc
mv .devcontainer.json dc.old && ln -s /etc/passwd .devcontainer.json
echo new >newfile'

populate
state >"$T/before"
jail_sh "$ATTACK
exit 0" -w "$WD"
is_status 0 "the attack script ran"
is "$(state)" "$(cat "$T/before")" \
    "every entry is back with its owner, group, mode and content"
is "$(stat -c %u:%g "$WD/.envrc" 2>&1)" "$OU:$OU" ".envrc is the workdir owner's"
is "$(stat -c %u:%g "$WD/.vscode/settings.json" 2>&1)" "$OU:$OG" \
    ".vscode/settings.json keeps its owner and its group"
is "$(stat -c %u:%g "$WD/.devcontainer.json" 2>&1)" "$OU:$OG" \
    "the symlink .devcontainer.json keeps its owner and group"
unlike "$(jget warnings)" "not all of it with the owner" "no warning of an owner not given back"
like "$(jget warnings)" "moved aside to .vscode.sbxrun-untrusted.1 and the original put back" \
    "the planted .vscode was moved aside"
# What the sandbox left is its output: the caller's, as newfile is.
is "$(stat -c %u:%g "$WD/.vscode.sbxrun-untrusted.1" 2>&1)" \
    "$(stat -c %u:%g "$WD/newfile" 2>&1)" \
    "the planted .vscode, moved aside, is handed back as the sandbox's other files"
is "$(stat -c %u:%g "$WD/.vscode.sbxrun-untrusted.1/settings.json" 2>&1)" "0:0" \
    "what the sandbox made there is the caller's"
is "$(leftovers)" "" "nothing is left in TMPDIR (the copies, other users' files among them)"

# --- sbxrun killed: the jail's init puts them back -----------------------------------
new_wd
populate
state >"$T/before"
sbx_bg_ready "$ATTACK" -w "$WD"
sbx_kill_wait
is "$(state)" "$(cat "$T/before")" \
    "sbxrun SIGKILLed: every entry is back with its owner, group, mode and content"
is "$(stat -c %u:%g "$WD/.envrc" 2>&1)" "$OU:$OU" "sbxrun SIGKILLed: .envrc is the workdir owner's"
is "$(stat -c %u:%g "$WD/.vscode" 2>&1)" "$OU:$OG" "sbxrun SIGKILLed: .vscode keeps its owner and group"
is "$(stat -c %u:%g "$WD/.devcontainer.json" 2>&1)" "$OU:$OG" \
    "sbxrun SIGKILLed: the symlink keeps its owner and group"
is "$(cat "$WD/.envrc.sbxrun-untrusted.1" 2>&1)" "export EVIL=1" \
    "sbxrun SIGKILLed: the planted .envrc is moved aside"
is "$(leftovers)" "" "sbxrun SIGKILLed: nothing is left in TMPDIR (the copies)"

done_testing
