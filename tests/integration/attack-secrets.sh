# Hides are decided from what the sandbox could reach, not from what the
# caller sees at set-up, and secrets are recognised by what they are, not
# by the path string (man sbxrun(1), FILES AND SECRETS):
#   1. a secret under a directory the caller cannot search at set-up time
#      (the workdir is the home, ~/.config is mode 0600) stays unreadable
#      after the sandbox, which owns ~/.config, opens it up again;
#   2. a hard link to a secret file placed in the workdir or a -r tree is
#      refused (125, naming it);
#   3. (root) a bind mount of ~/.ssh or of the home inside the workdir or a
#      -r tree is hidden; a bind mount of /etc is refused as a workdir, and
#      one of the home as a mount source;
#   4. an entry of a read tree, or a secret there, removed between the
#      listing and the jail's use of it: the run goes on, the rest hidden.
# Every verdict is taken on the host: the sandbox copies whatever it can
# read into a file of the workdir, and the canary must not be in it.
# Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

ME=$(id -u)
# A root caller's sandbox runs as 65534 under landlock: give it the home,
# so that it owns ~/.config as a caller's own sandbox would.
SBXUID=$ME
[ "$ME" = 0 ] && [ "$SBX_BACKEND" = landlock ] && SBXUID=65534

MOUNTED=
_attack_cleanup() {
	for _m in $MOUNTED; do
		umount "$_m" 2>/dev/null || umount -l "$_m" 2>/dev/null
	done
	chmod -R u+rwx "$HOME" 2>/dev/null
	_jail_cleanup
}
trap _attack_cleanup EXIT

# Copies every file it can read, by the paths given, into loot.
steal() {
	printf 'for f in %s; do cat "$f" >>loot 2>/dev/null; cat "$f" 2>/dev/null; done; exit 0' "$*"
}

loot_clean() {
	# $1 description, $2 loot file, $3 canary
	if [ -f "$2" ] && grep -q "$3" "$2"; then
		fail "$1"
		diag "$2 holds the canary"
	else
		pass "$1"
	fi
	rm -f "$2"
}

# --- 1. a secret below a directory the caller cannot search -----------------
c_gc=$(uniq_tag gcloud)
mkdir -p "$HOME/.config/gcloud"
echo "$c_gc" >"$HOME/.config/gcloud/creds"
echo note >"$HOME/notes.txt"
chmod 755 "$HOME"
chown -R "$SBXUID" "$HOME"
chmod 600 "$HOME/.config"
for mode in strict open; do
	jail_sh "cd '$HOME' && chmod 700 .config; ls -la .config >&2
$(steal .config/gcloud/creds "$HOME/.config/gcloud/creds")" --fs "$mode" -w "$HOME"
	is_status 0 "$mode, workdir = home, ~/.config 0600: the script ran"
	loot_clean "$mode: ~/.config/gcloud/creds is not read after chmod 700 .config" \
	    "$HOME/loot" "$c_gc"
	unlike "$(output)" "$c_gc" "$mode: the canary is not in the output either"
	chmod 600 "$HOME/.config"
done
chmod 755 "$HOME/.config"
chown -R "$ME" "$HOME"

# --- 2. a hard link to a secret file ----------------------------------------
c_key=$(uniq_tag sshkey)
mkdir -p "$HOME/.ssh"
echo "$c_key" >"$HOME/.ssh/id_rsa"
chmod 700 "$HOME/.ssh"
chmod 600 "$HOME/.ssh/id_rsa"
chown -R "$SBXUID" "$HOME/.ssh"
new_wd
ln "$HOME/.ssh/id_rsa" "$WD/copy"
jail_sh "$(steal copy)" -w "$WD"
is_status 125 "a hard link to ~/.ssh/id_rsa in the workdir is refused"
like "$(cat "$T/err")" "$WD/copy" "the refusal names the link"
loot_clean "the linked key was not read" "$WD/loot" "$c_key"
rm -f "$WD/copy"

RD=$JT/rtree
mkdir -p "$RD/sub"
ln "$HOME/.ssh/id_rsa" "$RD/sub/k"
chmod -R a+rX "$RD"
new_wd
jail_sh "$(steal "$RD/sub/k")" --fs allowlist -r "$RD" -w "$WD"
is_status 125 "a hard link to ~/.ssh/id_rsa in a -r tree is refused"
like "$(cat "$T/err")" "$RD/sub/k" "the refusal names the link"
loot_clean "the linked key was not read through -r" "$WD/loot" "$c_key"
rm -f "$RD/sub/k"

# A hard link to a secret below a directory of the caller's own that
# cannot be listed at set-up (~/.config mode 0000): whether it leads to a
# secret cannot be known, so a file with other names is refused. Root
# lists it anyway, and the link is named as above.
c_gc2=$(uniq_tag gcloud2)
mkdir -p "$HOME/.config/gcloud"
echo "$c_gc2" >"$HOME/.config/gcloud/credentials.db"
new_wd
ln "$HOME/.config/gcloud/credentials.db" "$WD/notes.txt"
chmod 000 "$HOME/.config"
jail_sh "$(steal notes.txt)" -w "$WD"
chmod 755 "$HOME/.config"
is_status 125 "a hard link to a secret below a ~/.config of mode 0000 is refused"
like "$(cat "$T/err")" "$WD/notes.txt" "the refusal names the link"
loot_clean "the link below the unlistable ~/.config was not read" "$WD/loot" "$c_gc2"
# The same with ~/.config/gcloud of mode 0444: its names can be listed,
# nothing of them looked at (found by review).
new_wd
ln "$HOME/.config/gcloud/credentials.db" "$WD/notes.txt"
chmod 444 "$HOME/.config/gcloud"
jail_sh "$(steal notes.txt)" -w "$WD"
chmod 755 "$HOME/.config/gcloud"
is_status 125 "a hard link to a secret in a ~/.config/gcloud of mode 0444 is refused"
loot_clean "the link below the unsearchable ~/.config/gcloud was not read" "$WD/loot" "$c_gc2"
rm -f "$WD/notes.txt" "$HOME/.config/gcloud/credentials.db"

# The control: a hard link to a plain file of the home is no secret.
echo plain >"$HOME/plain"
new_wd
ln "$HOME/plain" "$WD/plain"
jail_sh "cat plain" -w "$WD"
is_status 0 "a hard link to a plain file is accepted (control)"
rm -f "$WD/plain" "$HOME/plain"

# --- 3. bind-mounted aliases (root only) -------------------------------------
bindmount() {
	mkdir -p "$2" && mount --bind "$1" "$2" && MOUNTED="$2 $MOUNTED"
}
unbind() {
	umount "$1"
}
if root_only "bind mounts need root" 11; then
	new_wd
	bindmount "$HOME/.ssh" "$WD/alias"
	jail_sh "$(steal alias/id_rsa)" -w "$WD"
	is_status 0 "a bind mount of ~/.ssh in the workdir: the script ran"
	loot_clean "~/.ssh bound inside the workdir is hidden" "$WD/loot" "$c_key"
	unbind "$WD/alias"

	RD2=$JT/rtree2
	bindmount "$HOME" "$RD2/h"
	chmod 755 "$RD2"
	new_wd
	jail_sh "$(steal "$RD2/h/.ssh/id_rsa")" --fs allowlist -r "$RD2" -w "$WD"
	is_status 0 "a bind mount of the home in a -r tree: the script ran"
	loot_clean "the home bound inside a -r tree keeps ~/.ssh hidden" "$WD/loot" "$c_key"
	unbind "$RD2/h"

	new_wd
	bindmount "$HOME" "$WD/h"
	jail_sh "$(steal h/.ssh/id_rsa)" --fs open -w "$WD"
	is_status 0 "open, a bind mount of the home in the workdir: the script ran"
	loot_clean "open: the home bound inside the workdir keeps ~/.ssh hidden" "$WD/loot" \
	    "$c_key"
	unbind "$WD/h"

	# A read-only bind of /etc: a workdir there must be refused before
	# anything runs (read-only, so that nothing can change /etc).
	ETC=$JT/etcalias
	marker=$(uniq_tag etcran)
	if bindmount /etc "$ETC" && mount -o remount,bind,ro "$ETC"; then
		jail_sh "echo $marker" -w "$ETC"
		is_status 125 "a bind mount of /etc as the workdir is refused"
		like "$(cat "$T/err")" "refused" "the refusal says why"
		unlike "$(output)" "$marker" "nothing ran in the /etc alias"
	else
		fail "cannot make a read-only bind mount of /etc"
		fail "(skipped)"
		fail "(skipped)"
	fi
	unbind "$ETC"

	HA=$JT/homealias
	bindmount "$HOME" "$HA"
	new_wd
	jail_sh "$(steal h/.ssh/id_rsa)" -m "$HA:h" -w "$WD"
	is_status 125 "a bind mount of the home as a mount source is refused"
	loot_clean "nothing was read through the home alias" "$WD/loot" "$c_key"
	unbind "$HA"
fi

# --- 3b. a --deny-read glob below a directory that cannot be listed ---------
# glob(3) passes over a matched directory it cannot list (mode 0111: a
# name in it can still be opened): such a directory is hidden whole, and
# a warning says so. The sandbox, which owns it, opens it up first.
c_g=$(uniq_tag globkey)
new_wd
mkdir -p "$WD/data/a" "$WD/data/b"
echo "$c_g" >"$WD/data/a/id.key"
echo "$c_g" >"$WD/data/b/id.key"
chmod 111 "$WD/data/a"
jail_sh "chmod 755 data/a 2>/dev/null; $(steal data/a/id.key data/b/id.key)" \
    -w "$WD" --deny-read "$WD/data/*/*.key"
chmod 755 "$WD/data/a"
is_status 0 "a --deny-read glob over a directory of mode 0111: the script ran"
loot_clean "a --deny-read glob: a file below a matched directory that cannot be listed is not read" \
    "$WD/loot" "$c_g"
unlike "$(output)" "$c_g" "... nor shown"
[ "$ME" = 0 ] || like "$(jget warnings)" "$WD/data/a cannot be searched now" \
    "... and a warning names the directory hidden whole"

# --- 4. a name gone between the listing and the jail ---------------------------
# The list is made from what exists when the run starts; an entry removed
# before the jail is built (a package manager's temporary file in /etc,
# say) leaves nothing to read, so the run goes on, and what is still
# there stays hidden. tests/holdcall holds the call that opens the name
# until the test has removed it. The secrets are a --deny-read glob in a
# -r tree of the caller's own: a glob is matched against a listing, so
# nothing before the jail opens the file by name. A readable secret makes
# the Landlock rules go around it, entry by entry of the tree, under both
# backends.
HOLDCALL=${HOLDCALL:-$(dirname "$SBXRUN")/tests/holdcall}
if [ ! -x "$HOLDCALL" ]; then
	echo "Bail out! tests/holdcall is missing at $HOLDCALL (make check builds it)"
	exit 1
fi
LD=$JT/listed
mkdir -p "$LD"
c_keep=$(uniq_tag keep)
c_gone=$(uniq_tag gone)
echo "$c_keep" >"$LD/keep.secret"
chmod -R a+rX "$LD"
chmod 755 "$JT"
# held_gone CALL FILE PATTERN...: a run of $T/script held at the first CALL
# whose description matches a PATTERN, FILE removed meanwhile; sets
# SBX_STATUS (3: nothing was held). One check that the hold happened.
held_gone() {
	_call=$1 _file=$2
	shift 2
	_m=
	for _p; do _m="$_m -m $_p"; done
	rm -f "$T/held" "$T/go" "$WD/loot"
	# (A sanitized build's leak check cannot run under ptrace.) The
	# patterns hold no blank.
	# shellcheck disable=SC2086
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    "$HOLDCALL" -s "$_call" $_m -H "$T/held" -g "$T/go" -- \
	    "$SBXRUN" --backend "$SBX_BACKEND" --diag none --fs allowlist -r "$LD" \
	    --deny-read "$LD/*.secret" -w "$WD" <"$T/script" >"$T/out" 2>"$T/err" &
	_hc=$!
	JAIL_PIDS="$JAIL_PIDS $_hc"
	wait_for "[ -e '$T/held' ]" 60
	held=$(cat "$T/held" 2>/dev/null)
	rm -f "$_file"
	: >"$T/go"
	wait "$_hc"
	SBX_STATUS=$?
	case $held in
	*"|${_file#/}|"* | *"|$_file|"* | "${_file%/*}|${_file##*/}|"*)
		pass "the open of ${_file##*/} was held, and it was removed" ;;
	*) fail "the open of ${_file##*/} was held, and it was removed"; diag "held: '$held'" ;;
	esac
}

# A plain entry, removed before the Landlock rule for it was made (the
# payload opens it: by name under namespaces, below the tree's pinned
# descriptor under landlock).
echo plain >"$LD/plain"
chmod 644 "$LD/plain"
new_wd
printf '%s\n' "$(steal "$LD/keep.secret" "$LD/plain")" >"$T/script"
call=openat2
[ "$SBX_BACKEND" = namespaces ] && call=openat
held_gone "$call" "$LD/plain" "*|$LD/plain|*" "$LD|plain|*"
is_status 0 "an entry removed before its rule was made: the script ran"
loot_clean "the other secret is still not read" "$WD/loot" "$c_keep"
absent "the removed entry is still gone" "$LD/plain"

# A secret, removed before it was hidden (the namespaces backend covers
# it with a mount; a Landlock-only run never opens a secret).
if ns_only "secrets are covered by mounts only there" 4; then
	echo "$c_gone" >"$LD/gone.secret"
	chmod 644 "$LD/gone.secret"
	new_wd
	printf '%s\n' "$(steal "$LD/keep.secret" "$LD/gone.secret")" >"$T/script"
	held_gone openat2 "$LD/gone.secret" "*|${LD#/}/gone.secret|*"
	is_status 0 "a secret removed before it was hidden: the script ran"
	loot_clean "the other secret is still not read" "$WD/loot" "$c_keep"
	absent "the removed secret is still gone" "$LD/gone.secret"
fi

done_testing
