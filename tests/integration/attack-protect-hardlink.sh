# A built-in protected file that is a hard link to a file outside the
# workdir (threat model, attacker 1: the sandbox; protect.md, "Landlock:
# a copy instead of a frozen top level"). Under landlock the protected
# entries used to stay writable during the run and be put back from a
# copy afterwards, by name: a write through .envrc reached the inode, so
# the caller's file outside, which no rule opens, kept the sandbox's
# bytes, while the workdir's name showed the original again and the
# warning said it had been put back. A regular file with another link now
# makes the run keep those entries with read-only rules instead, as the
# namespaces backend's read-only binds do.
# Verdicts on the host: the files outside, what the workdir's names are,
# what the warnings say. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

# The caller's files outside, owned by the uid the sandbox acts as
# (outside_file), and their second names in the workdir: .envrc, and a
# file inside a protected directory.
OUT_RC=$(outside_file 644)
OUT_VS=$(outside_file 644)
echo 'export GOOD=1' >"$OUT_RC"
echo '{"good": 1}' >"$OUT_VS"
mkdir "$WD/.vscode"
chmod 755 "$WD/.vscode"
ln "$OUT_RC" "$WD/.envrc"
ln "$OUT_VS" "$WD/.vscode/settings.json"
inode() { stat -c %d:%i "$1" 2>&1; }

jail_sh "$SBX_T_PRELUDE
t rc sh -c 'echo \"export EVIL=1\" >>.envrc'
t vs sh -c 'echo \"{\\\"evil\\\": 1}\" >.vscode/settings.json'
t out sh -c 'echo \"export EVIL=1\" >>$OUT_RC'
exit 0" -w "$WD"
is_status 0 "the script ran"
is "$(cat "$OUT_RC" 2>&1)" "export GOOD=1" \
    "the file outside linked as .envrc keeps its content"
is "$(cat "$OUT_VS" 2>&1)" '{"good": 1}' \
    "the file outside linked as .vscode/settings.json keeps its content"
is "$(inode "$WD/.envrc")" "$(inode "$OUT_RC")" \
    ".envrc is still the caller's link (nothing was put back in its place)"
is "$(inode "$WD/.vscode/settings.json")" "$(inode "$OUT_VS")" \
    ".vscode/settings.json is still the caller's link"
absent "nothing the sandbox left at .envrc was moved aside" "$WD/.envrc.sbxrun-untrusted.1"
absent "nothing the sandbox left at .vscode was moved aside" "$WD/.vscode.sbxrun-untrusted.1"
unlike "$(jget warnings)" "put back" "no warning claims a put-back"
failed_inside "the write through .envrc failed (second opinion)" rc
failed_inside "the write through .vscode/settings.json failed (second opinion)" vs
if [ "$SBX_BACKEND" = landlock ]; then
	like "$(jget warnings)" "has another hard link" \
	    "landlock: a warning says why the entries get read-only rules"
fi

# Only the file inside .vscode is linked: the warning names it.
new_wd
OUT_VS=$(outside_file 644)
echo '{"good": 1}' >"$OUT_VS"
mkdir "$WD/.vscode"
chmod 755 "$WD/.vscode"
echo 'export GOOD=1' >"$WD/.envrc"
chmod 644 "$WD/.envrc"
echo '{}' >"$WD/.vscode/tasks.json"
ln "$OUT_VS" "$WD/.vscode/settings.json"
jail_sh 'echo "{\"evil\": 1}" >.vscode/settings.json; echo evil >>.envrc; exit 0' -w "$WD"
is_status 0 "nested link: the script ran"
is "$(cat "$OUT_VS" 2>&1)" '{"good": 1}' "nested link: the file outside keeps its content"
is "$(cat "$WD/.envrc" 2>&1)" "export GOOD=1" "nested link: .envrc keeps its content"
if [ "$SBX_BACKEND" = landlock ]; then
	like "$(jget warnings)" ".vscode/settings.json has another hard link" \
	    "landlock: the warning names the linked file"
fi

done_testing
