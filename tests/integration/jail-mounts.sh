# Mounts (sbxrun(1), Filesystem): -m SRC:TARGET[:ro|:rw] shows SRC at
# WORKDIR/TARGET, writing through only with :rw; forbidden sources and
# targets through a symlink are refused with 125 and a reason. Run for
# $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

ME_U=$(id -u)

# --- rw and ro ------------------------------------------------------------
mkdir -p "$JT/rw" "$JT/ro"
echo orig >"$JT/rw/f"
echo orig >"$JT/ro/f"
echo orig >"$JT/file-ro.txt"
echo orig >"$JT/file-rw.txt"
c_ro=$(uniq_tag ro)
echo "$c_ro" >"$JT/ro/read-me"
chmod -R a+rX "$JT"
fsum "$JT/ro/f" >"$T/ro.before"
fsum "$JT/file-ro.txt" >"$T/file-ro.before"
if ns_only "mounts at WORKDIR/TARGET need a mount namespace" 17; then
	jail_sh "$SBX_T_PRELUDE
cat data-ro/read-me cfg-ro.txt
t rw_write sh -c 'echo changed >data-rw/f'
t rw_new sh -c 'echo new >data-rw/g'
t rwfile sh -c 'echo changed >cfg-rw.txt'
t ro_write sh -c 'echo evil >data-ro/f'
t ro_append sh -c 'echo evil >>data-ro/f'
t ro_new sh -c 'echo evil >data-ro/new'
t ro_rm rm -f data-ro/f
t ro_mv mv data-ro/f data-ro/f2
t ro_chmod chmod 777 data-ro/f
t ro_umount rmdir data-ro
t rofile sh -c 'echo evil >cfg-ro.txt'
exit 0" -m "$JT/rw:data-rw:rw" -m "$JT/ro:data-ro" -m "$JT/file-ro.txt:cfg-ro.txt" \
	    -m "$JT/file-rw.txt:cfg-rw.txt:rw" -w "$WD"
	is_status 0 "the mounting run exits 0"
	like "$(output)" "$c_ro" "a ro mount is readable at WORKDIR/TARGET"
	is "$(cat "$JT/rw/f")" changed "-m SRC:data:rw writes through to the host file"
	is "$(cat "$JT/rw/g" 2>&1)" new "-m SRC:data:rw creates files on the host"
	is "$(stat -c %u "$JT/rw/g" 2>&1)" "$ME_U" "a file created in a rw mount belongs to the caller"
	is "$(cat "$JT/file-rw.txt")" changed "a rw file mount writes through"
	failed_inside "writing a ro mount fails inside" ro_write
	failed_inside "removing from a ro mount fails inside" ro_rm
	is "$(fsum "$JT/ro/f")" "$(cat "$T/ro.before")" "-m SRC:data (ro): the real file is unchanged"
	absent "-m SRC:data (ro): no new file on the host" "$JT/ro/new"
	absent "-m SRC:data (ro): no rename on the host" "$JT/ro/f2"
	is "$(stat -c %a "$JT/ro/f")" "$(stat -c %a "$JT/ro/read-me")" "-m SRC:data (ro): mode unchanged"
	is "$(fsum "$JT/file-ro.txt")" "$(cat "$T/file-ro.before")" "a ro file mount is unchanged"
	failed_inside "writing a ro file mount fails inside" rofile
	ok "the ro mount's source is still there" test -d "$JT/ro"
	# The mount point lives in the host's workdir; what was mounted does not.
	absent "nothing of the mount is left in the workdir's data-ro" "$WD/data-ro/read-me"
	absent "nothing of the rw mount is left in the workdir's data-rw" "$WD/data-rw/f"
fi

# --- a read-write mount of a bare repository -----------------------------------------
# Its config and hooks are not held read-only (the workdir's are): a
# change to them in the run is named, since a caller's git there would run
# what they hold. A plain directory's config is no git's (the control).
if ns_only "mounts at WORKDIR/TARGET need a mount namespace" 2; then
	mkdir -p "$JT/mirror/objects" "$JT/mirror/refs" "$JT/mirror/hooks" "$JT/plain"
	echo 'ref: refs/heads/main' >"$JT/mirror/HEAD"
	printf '[core]\n\tbare = true\n' >"$JT/mirror/config"
	echo x >"$JT/plain/config"
	new_wd
	jail_sh 'printf "[core]\n\tfsmonitor = evil\n" >>lib/config; echo y >plain/config; exit 0' \
	    -m "$JT/mirror:lib:rw" -m "$JT/plain:plain:rw" -w "$WD"
	like "$(jget warnings)" "the run changed the git directory at the read-write mount $JT/mirror" \
	    "a bare repository's config changed through a rw mount is named"
	unlike "$(jget warnings)" "git directory at the read-write mount $JT/plain" \
	    "... a plain directory's config is not (control)"
fi

# --- refused sources --------------------------------------------------------
mkdir -p "$HOME/.ssh" "$HOME/.config/gh"
echo key >"$HOME/.ssh/id_rsa"
ln -s "$HOME/.ssh" "$JT/ssh-link"
refuse() {
	_d=$1
	shift
	new_wd
	# --allow-degraded: a backend that cannot mount at all (landlock)
	# still checks the source, and must refuse it for that reason.
	jail --allow-degraded "$@" -w "$WD" -- /bin/true
	is_status 125 "refused with 125: $_d"
	like "$(cat "$T/err")" "refused" "the reason names the refusal: $_d"
}
refuse "-m /" -m /:data
refuse "-m /etc" -m /etc:data
refuse "-m /usr" -m /usr:data
refuse "-m /var" -m /var:data
refuse "-m /proc/self" -m /proc/self:data
refuse "-m /proc" -m /proc:data
refuse "-m /sys/kernel" -m /sys/kernel:data
refuse "-m /dev" -m /dev:data
refuse "-m ~/.ssh" -m "$HOME/.ssh:data"
refuse "-m ~/.ssh/id_rsa (inside a secret)" -m "$HOME/.ssh/id_rsa:data"
refuse "-m ~/.config/gh" -m "$HOME/.config/gh:data"
refuse "-m a symlink to ~/.ssh" -m "$JT/ssh-link:data"
refuse "-m ~/./.config/../.ssh (not canonical)" -m "$HOME/./.config/../.ssh:data"
refuse "-m \$HOME itself" -m "$HOME:data"
if [ -d "$PWHOME" ] && [ "$PWHOME" != / ]; then
	refuse "-m the passwd home ($PWHOME)" -m "$PWHOME:data"
else
	skip "the caller has no home directory in the password database" 2
fi
refuse "-m --deny-read path" --deny-read "$JT/ro" -m "$JT/ro:data"

# --- refused workdirs ----------------------------------------------------------
mkdir -p "$HOME/.aws/sub"
for w in / /etc /usr/lib /proc/self /sys /dev /tmp /var/tmp /var/lib "$HOME/.ssh" "$HOME/.aws/sub"; do
	jail -w "$w" -- /bin/true
	is_status 125 "-w $w is refused with 125"
done

# --- refused targets ----------------------------------------------------------
refuse_target() {
	_d=$1
	shift
	jail --allow-degraded "$@" -w "$WD" -- /bin/true
	is_status 125 "refused with 125: $_d"
}
new_wd
mkdir -p "$JT/elsewhere"
ln -s "$JT/elsewhere" "$WD/link"
ln -s "$JT/elsewhere" "$WD/link2"
refuse_target "a target through a symlink (link/data)" -m "$JT/ro:link/data"
refuse_target "a target that is a symlink" -m "$JT/ro:link2"
absent "nothing was mounted or made through the symlink" "$JT/elsewhere/data"
ok "the symlinked target is left alone" test -L "$WD/link2"
refuse_target "a target with .." -m "$JT/ro:../escape"
absent "nothing made at the workdir's parent" "$T/escape"
refuse_target "an absolute target" -m "$JT/ro:/etc/data"
refuse_target "sbxrun's own state (.sbxrun)" -m "$JT/ro:.sbxrun"
refuse_target "the workdir itself (.)" -m "$JT/ro:."
refuse_target "a missing source" -m "$JT/no-such-dir:data"
: >"$WD/file"
refuse_target "a directory onto an existing file" -m "$JT/ro:file"

done_testing
