# The secret list (sbxrun(1), Filesystem): the caller's ~/.ssh ~/.aws ... and
# /etc/shadow & co. stay unreadable in every mode, open included, also
# when the workdir is the home itself or a -r path covers them; sbxrun
# takes the home from both $HOME and the password database. --deny-read
# adds paths. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

# A fake set of secrets in the private $HOME (outside /tmp, so that only
# the secret list keeps them from "open").
SECRETS='.ssh/id_rsa .ssh/authorized_keys .aws/credentials .gnupg/private.key
.config/gcloud/credentials.db .kube/config .docker/config.json .netrc
.git-credentials .npmrc .pypirc .config/gh/hosts.yml .azure/accessTokens.json
.password-store/bank.gpg'
SALT=$(od -An -N4 -tx4 /dev/urandom | tr -d ' ')
canary() {
	echo "SECRET-$(echo "$1" | tr '/.' '__')-$SALT"
}
for s in $SECRETS; do
	mkdir -p "$HOME/$(dirname "$s")"
	canary "$s" >"$HOME/$s"
done
c_notes=$(uniq_tag notes)
echo "$c_notes" >"$HOME/notes.txt"
chmod -R a+rX "$HOME"

# Reads every secret by its absolute path, then walks the home.
read_all="cd /
for f in $(for s in $SECRETS; do printf "'%s' " "$HOME/$s"; done); do cat \"\$f\"; done
cat '$HOME/notes.txt'
grep -r SECRET- '$HOME'
find '$HOME' -type f -exec cat {} +
exit 0"

check_secrets() {
	_out=$(output)
	for s in $SECRETS; do
		unlike "$_out" "$(canary "$s")" "$1: ~/$s is not readable"
	done
}

for mode in strict allowlist open; do
	new_wd
	if [ "$mode" = allowlist ]; then
		set -- -r "$HOME" -r "$HOME/.ssh"
	else
		set --
	fi
	jail_sh "$read_all" --fs "$mode" "$@" -w "$WD"
	is_status 0 "$mode: the reading script ran"
	check_secrets "$mode"
	if [ "$mode" = strict ]; then
		unlike "$(output)" "$c_notes" "strict: the rest of the home is not readable either"
	else
		# The control: the home is visible, only the secrets are not.
		like "$(output)" "$c_notes" "$mode: a plain file of the home is readable (control)"
	fi
done

# --- the workdir is the home ----------------------------------------------
for s in $SECRETS; do
	fsum "$HOME/$s"
done >"$T/before"
for mode in strict open; do
	jail_sh "$read_all
cd '$HOME'
cat .ssh/id_rsa .netrc .aws/credentials
echo evil >>.ssh/authorized_keys
echo evil >.ssh/id_rsa
echo evil >.netrc
echo evil >.config/gh/hosts.yml
rm -rf .aws .gnupg
rm -f .npmrc
mv .ssh ssh-moved
mv .netrc netrc-moved
mv .config config-moved
ln .git-credentials gc-link && cat gc-link
exit 0" --fs "$mode" -w "$HOME"
	is_status 0 "$mode, workdir = home: the script ran"
	check_secrets "$mode, workdir = home"
	like "$(output)" "$c_notes" "$mode, workdir = home: the home's plain files are readable (control)"
	for s in $SECRETS; do
		fsum "$HOME/$s"
	done >"$T/after"
	ok "$mode, workdir = home: every secret file is unchanged on the host" cmp -s "$T/before" "$T/after" ||
	    diag "$(diff "$T/before" "$T/after")"
	absent "$mode, workdir = home: .ssh could not be renamed away" "$HOME/ssh-moved"
	absent "$mode, workdir = home: .netrc could not be renamed away" "$HOME/netrc-moved"
	absent "$mode, workdir = home: .config (holding secrets) could not be renamed away" \
	    "$HOME/config-moved"
	absent "$mode, workdir = home: no hard link to a secret was made" "$HOME/gc-link"
done

# --- the home from the password database ------------------------------------
# $HOME is a temp dir here; sbxrun must hide the secrets of the passwd home
# too. A canary file of our own in its ~/.ssh (never reading anything else).
if [ -d "$PWHOME" ] && [ -w "$PWHOME" ] && [ "$PWHOME" != "$HOME" ]; then
	if [ ! -d "$PWHOME/.ssh" ]; then
		mkdir -m 700 "$PWHOME/.ssh" && JAIL_CLEAN="$PWHOME/.ssh $JAIL_CLEAN"
	fi
	pw_tag=$(uniq_tag pwhome)
	pw_file=$PWHOME/.ssh/sbxjail-canary-$$
	JAIL_CLEAN="$pw_file $JAIL_CLEAN"
	echo "$pw_tag" >"$pw_file"
	for mode in strict open; do
		new_wd
		jail_sh "cat '$pw_file'; exit 0" --fs "$mode" -w "$WD"
		is_status 0 "$mode: reading the passwd home's ~/.ssh ran"
		unlike "$(output)" "$pw_tag" "$mode: ~/.ssh of the passwd home ($PWHOME) is not readable"
	done
else
	skip "the caller's passwd home ($PWHOME) is not writable: cannot plant a canary" 4
fi

# --- system secrets ---------------------------------------------------------
# As root, a world-readable /etc/sudoers.* canary: file permissions would
# let anyone read it, so only the secret list (/etc/sudoers*) keeps it out.
sudo_canary=
if [ "$(id -u)" = 0 ]; then
	sudo_canary=/etc/sudoers.sbxjail-$$
	echo "Defaults sbxjail-canary" >"$sudo_canary"
	chmod 644 "$sudo_canary"
fi
for mode in strict open; do
	new_wd
	jail_sh "cat /etc/shadow /etc/gshadow /etc/shadow- /etc/gshadow-; cat /etc/sudoers ${sudo_canary}
for k in /etc/ssh/ssh_host_*_key; do cat \"\$k\"; done
exit 0" --fs "$mode" -w "$WD"
	is_status 0 "$mode: reading /etc/shadow & co. ran"
	unlike "$(output)" "root:" "$mode: /etc/shadow and /etc/gshadow are not readable"
	unlike "$(output)" "PRIVATE KEY" "$mode: ssh host keys are not readable"
	if [ -n "$sudo_canary" ]; then
		unlike "$(output)" "sbxjail-canary" "$mode: a world-readable /etc/sudoers.* is not readable"
	elif [ -r /etc/sudoers ]; then
		unlike "$(output)" "Defaults" "$mode: /etc/sudoers is not readable"
	else
		skip "no readable /etc/sudoers on this host"
	fi
done
# The namespaces backend covers a hidden file with an empty one it makes
# in the new root; its name is removed before the root turns read-only.
# A secret file the sandbox could read is covered: as root the
# world-readable /etc/sudoers.* canary above, otherwise the caller's own
# ~/.git-credentials of the passwd home, seen with --fs open (made empty
# here when missing, never read). /etc/shadow, which file permissions
# already keep from the sandbox, is left to them (sbxrun(1)): unreadable
# (above), not covered.
if ns_only "the hiding file is the namespaces backend's" 4; then
	covered=$sudo_canary
	set -- -w
	if [ -z "$covered" ]; then
		covered=$PWHOME/.git-credentials
		set -- --fs open -w
		if [ ! -e "$covered" ] && [ -d "$PWHOME" ] && [ -w "$PWHOME" ] &&
		    [ "$PWHOME" != "$HOME" ]; then
			(umask 077 && : >"$covered") && JAIL_CLEAN="$covered $JAIL_CLEAN"
		fi
	fi
	if [ -f "$covered" ] && [ ! -L "$covered" ] && [ "$(stat -c %u "$covered")" = "$(id -u)" ]; then
		new_wd
		jail_sh "ls -A /; stat -c 'covered: mode %a size %s' '$covered'; stat -c 'shadow: mode %a' /etc/shadow; exit 0" \
		    "$@" "$WD"
		is_status 0 "listing / ran"
		like "$(output)" "covered: mode 0 size 0" "$covered is covered by an empty mode-000 file"
		unlike "$(output)" "sbx-hidden" "the file hidden paths are covered with has no name in /"
		like "$(output)" "shadow: mode $(stat -c %a /etc/shadow)" \
		    "/etc/shadow, sealed by its permissions, is left to them"
	else
		skip "no secret file of the caller's own in $PWHOME, and none can be made" 4
	fi
fi
[ -n "$sudo_canary" ] && rm -f "$sudo_canary"

# --- a secret that is a symlink -------------------------------------------------
# ~/.kube -> a directory elsewhere: what it resolves to is hidden too.
c_kube=$(uniq_tag realkube)
mkdir -p "$JT/real-kube"
echo "$c_kube" >"$JT/real-kube/config"
chmod -R a+rX "$JT/real-kube"
mv "$HOME/.kube" "$T/kube.saved"
ln -s "$JT/real-kube" "$HOME/.kube"
for mode in allowlist open; do
	new_wd
	if [ "$mode" = allowlist ]; then set -- -r "$JT/real-kube"; else set --; fi
	jail_sh "cat '$HOME/.kube/config' '$JT/real-kube/config'; exit 0" --fs "$mode" "$@" -w "$WD"
	is_status 0 "$mode: reading a symlinked secret ran"
	unlike "$(output)" "$c_kube" "$mode: the target of a symlinked ~/.kube is not readable"
done
rm "$HOME/.kube"
mv "$T/kube.saved" "$HOME/.kube"

# --- --deny-read --------------------------------------------------------------
new_wd
c_p=$(uniq_tag denied)
c_q=$(uniq_tag neighbour)
c_r=$(uniq_tag denydir)
c_s=$(uniq_tag denylink)
c_e=$(uniq_tag dotenv)
mkdir -p "$JT/priv" "$JT/privdir/sub" "$JT/priv2"
echo "$c_p" >"$JT/priv/secret.txt"
echo "$c_q" >"$JT/priv/other.txt"
echo "$c_r" >"$JT/privdir/sub/file"
echo "$c_s" >"$JT/priv2/target.txt"
ln -s "$JT/priv2/target.txt" "$JT/link-to-target"
echo "$c_e" >"$WD/.env"
chmod -R a+rX "$JT"
fsum "$WD/.env" >"$T/env.before"
(cd "$WD" && jail_sh "cat '$JT/priv/secret.txt' '$JT/priv/other.txt' '$JT/privdir/sub/file'
cat '$JT/priv2/target.txt' '$JT/link-to-target'
cat .env
echo evil >.env
mv .env env-moved
exit 0" --fs open --deny-read "$JT/priv/secret.txt" --deny-read "$JT/privdir" \
    --deny-read "$JT/link-to-target" --deny-read .env -w "$WD"
echo "$SBX_STATUS" >"$T/status")
SBX_STATUS=$(cat "$T/status")
is_status 0 "--deny-read: the reading script ran"
unlike "$(output)" "$c_p" "--deny-read FILE hides that file"
like "$(output)" "$c_q" "--deny-read FILE leaves its neighbour readable"
unlike "$(output)" "$c_r" "--deny-read DIR hides what is below it"
unlike "$(output)" "$c_s" "--deny-read LINK hides the link's target too"
unlike "$(output)" "$c_e" "--deny-read of a relative path in the workdir hides it"
fsum "$WD/.env" >"$T/env.after"
ok "--deny-read: the hidden file in the workdir is unchanged on the host" \
    cmp -s "$T/env.before" "$T/env.after"
absent "--deny-read: the hidden file could not be renamed away" "$WD/env-moved"

# Allowlisting a denied path does not undo the denial.
new_wd
jail_sh "cat '$JT/priv/secret.txt'; exit 0" --fs allowlist -r "$JT/priv" \
    --deny-read "$JT/priv/secret.txt" -w "$WD"
is_status 0 "--deny-read with -r: the reading script ran"
unlike "$(output)" "$c_p" "--deny-read wins over -r"

done_testing
