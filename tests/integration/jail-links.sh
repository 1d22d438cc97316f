# Symlinks and hard links give no way out (sbxrun(1), Filesystem): access is
# judged on what a path resolves to, and links made inside reach nothing
# outside. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

c_key=$(uniq_tag sshkey)
c_out=$(uniq_tag outside)
c_dir=$(uniq_tag outdir)
c_nb=$(uniq_tag parentfile)
mkdir -p "$HOME/.ssh" "$JT/outdir"
echo "$c_key" >"$HOME/.ssh/id_rsa"
echo "$c_out" >"$JT/outside.txt"
echo "$c_dir" >"$JT/outdir/f"
chmod -R a+rX "$JT"
chmod 600 "$HOME/.ssh/id_rsa"

# Links the host made in the workdir: (name target) pairs.
plant_links() {
	new_wd
	echo "$c_nb" >"$(dirname "$WD")/parent.txt"
	ln -s "$HOME/.ssh/id_rsa" "$WD/key"
	ln -s "$HOME/.ssh" "$WD/sshdir"
	ln -s "$HOME" "$WD/home"
	ln -s "$JT/outside.txt" "$WD/outside"
	ln -s "$JT/outdir" "$WD/outdir"
	ln -s / "$WD/root"
	ln -s ../parent.txt "$WD/up"
	ln -s /etc/shadow "$WD/shadow"
}

reads="cat key sshdir/id_rsa home/.ssh/id_rsa root$HOME/.ssh/id_rsa
cat outside outdir/f root$JT/outside.txt up ../parent.txt
cat /proc/self/root$JT/outside.txt /proc/self/cwd/../parent.txt /proc/1/root$JT/outside.txt
cat /proc/self/root$HOME/.ssh/id_rsa /proc/1/root$HOME/.ssh/id_rsa
cat shadow
ln -s '$HOME/.ssh/id_rsa' key2 && cat key2
ln -s '$JT/outside.txt' out2 && cat out2
ln -s / root2 && cat root2$JT/outside.txt root2$HOME/.ssh/id_rsa
ln '$HOME/.ssh/id_rsa' hard-key; cat hard-key
ln '$JT/outside.txt' hard-out; cat hard-out
ln /etc/shadow hard-shadow; cat hard-shadow"

writes="tag=\$1
echo pwned >outdir/\$tag
echo pwned >root$JT/\$tag
echo pwned >home/\$tag
echo pwned >sshdir/authorized_keys
ln -s '$JT/outdir' od2 && echo pwned >od2/\$tag.2
ln -s '$HOME' h2 && echo pwned >h2/\$tag.2
echo pwned >>outside
echo pwned >up"

for mode in strict allowlist open; do
	plant_links
	tag=$(uniq_tag w)
	fsum "$JT/outside.txt" >"$T/out.before"
	printf '%s\n%s\nexit 0\n' "$reads" "$writes" >"$T/script"
	jail --fs "$mode" -w "$WD" -- /bin/sh -c "$(cat "$T/script")" sh "$tag"
	is_status 0 "$mode: the link script ran"
	unlike "$(output)" "$c_key" "$mode: no symlink or hard link reaches ~/.ssh/id_rsa"
	unlike "$(output)" "root:" "$mode: no link reaches /etc/shadow"
	if [ "$mode" = open ]; then
		like "$(output)" "$c_out" "open: a readable file is readable through a link (control)"
	else
		unlike "$(output)" "$c_out" "$mode: no symlink, hard link or /proc path reaches a file outside"
		unlike "$(output)" "$c_dir" "$mode: a symlinked directory outside shows nothing"
		unlike "$(output)" "$c_nb" "$mode: ../ and /proc/self/cwd/.. do not reach the workdir's parent"
	fi
	absent "$mode: nothing written through a symlinked directory" "$JT/outdir/$tag"
	absent "$mode: nothing written through a symlink to /" "$JT/$tag"
	absent "$mode: nothing written through a symlink to the home" "$HOME/$tag"
	absent "$mode: nothing written into ~/.ssh through a symlink" "$HOME/.ssh/authorized_keys"
	absent "$mode: nothing written through a symlink made inside" "$JT/outdir/$tag.2"
	absent "$mode: nothing written into the home through a symlink made inside" "$HOME/$tag.2"
	is "$(fsum "$JT/outside.txt")" "$(cat "$T/out.before")" "$mode: a file outside is unchanged"
	is "$(cat "$(dirname "$WD")/parent.txt")" "$c_nb" "$mode: the workdir's parent's file is unchanged"
	is "$(stat -c %h "$JT/outside.txt")" 1 "$mode: no hard link to a file outside was made"
	is "$(stat -c %h "$HOME/.ssh/id_rsa")" 1 "$mode: no hard link to ~/.ssh/id_rsa was made"
	absent "$mode: no hard link of ~/.ssh/id_rsa in the workdir" "$WD/hard-key"
	absent "$mode: no hard link of /etc/shadow in the workdir" "$WD/hard-shadow"
done

done_testing
