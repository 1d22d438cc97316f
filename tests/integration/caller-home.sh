# The caller's home for a uid that /etc/passwd lacks (sbxrun(1),
# Filesystem): a sbxrun with glibc linked in loads no NSS module, so it
# asks the system's getent, and the secret list covers that home. Root
# only: sbxrun runs as a uid with no account, in a private mount namespace
# where /usr/bin/getent is a script of ours that plays the directory
# service. Verdicts from the host side: a canary in that home's ~/.ssh,
# readable by its file mode, must not appear in the output. getent is
# asked only when nsswitch.conf names sources besides files.
. "$(dirname "$0")/jail-lib.sh"

N=38
if [ "$(id -u)" != 0 ]; then
	skip "root only: replaces /usr/bin/getent in a private mount namespace" $N
	done_testing
	exit
fi
for c in unshare setpriv mount; do
	if ! command -v "$c" >/dev/null 2>&1; then
		skip "no $c: cannot run sbxrun as a uid with no account" $N
		done_testing
		exit
	fi
done
if [ ! -x /usr/bin/getent ]; then
	skip "no /usr/bin/getent on this machine" $N
	done_testing
	exit
fi
if ! ldd "$SBXRUN" 2>&1 | grep -q 'statically linked'; then
	skip "sbxrun uses the shared glibc (--disable-static-libc): the system's NSS answers, not getent" $N
	done_testing
	exit
fi

uid=43210
while grep -q "^[^:]*:[^:]*:$uid:" /etc/passwd; do
	uid=$((uid + 1))
done
cp "$SBXRUN" "$JT/sbxrun"
chmod 755 "$JT/sbxrun"
mkdir -p "$JT/tmp" "$JT/envhome" "$JT/ldap/.ssh"
chmod 1777 "$JT/tmp" "$JT/envhome"
tag=$(uniq_tag ldaphome)
echo "$tag" >"$JT/ldap/.ssh/id_canary"
chown -R "$uid:$uid" "$JT/ldap"
chmod 755 "$JT/ldap" "$JT/ldap/.ssh"
chmod 644 "$JT/ldap/.ssh/id_canary"

# The directory service: "found" knows the uid, "none" does not, "fails"
# errs, "other" answers for another uid.
cat >"$JT/getent-found" <<EOS
#!/bin/sh
[ "\$1:\$2" = "passwd:$uid" ] && { echo "ldapuser:x:$uid:$uid:LDAP user:$JT/ldap:/bin/sh"; exit 0; }
exit 2
EOS
printf '#!/bin/sh\nexit 2\n' >"$JT/getent-none"
# "hangs" answers, closes its output and never ends (10 s here).
cat >"$JT/getent-hangs" <<EOS
#!/bin/sh
echo "ldapuser:x:$uid:$uid:LDAP user:$JT/ldap:/bin/sh"
exec >/dev/null
sleep 10
EOS
printf '#!/bin/sh\nexit 1\n' >"$JT/getent-fails"
printf '#!/bin/sh\necho "ldapuser:x:%s:1::%s:/bin/sh"\n' "$((uid + 1))" "$JT/ldap" >"$JT/getent-other"
chmod 755 "$JT"/getent-*
printf 'cat %s; exit 0\n' "$JT/ldap/.ssh/id_canary" >"$T/script"
chmod 644 "$T/script"

# A machine whose passwd database is /etc/passwd alone, and one with a
# directory service besides (what the other cases need, whatever this
# machine's own nsswitch.conf says).
printf 'passwd: files\ngroup: files\nhosts: files dns\n' >"$JT/nsswitch-files"
printf 'passwd: files ldap\ngroup: files ldap\nhosts: files dns\n' >"$JT/nsswitch-ldap"
chmod 644 "$JT/nsswitch-files" "$JT/nsswitch-ldap"
# /etc/passwd with a 5000-byte line before the uid's entry.
{
	grep '^root:' /etc/passwd
	printf 'longuser:x:4000:4000:%s:/nonexistent:/bin/sh\n' "$(head -c 5000 /dev/zero | tr '\0' x)"
	echo "fileuser:x:$uid:$uid:files user:$JT/ldap:/bin/sh"
} >"$JT/passwd-long"
chmod 644 "$JT/passwd-long"

# as_nobody SERVICE BACKEND [NSSWITCH]: sbxrun as $uid, --fs open (the
# home is visible, only the secret list hides its ~/.ssh), HOME elsewhere;
# NSSWITCH defaults to files then ldap. With IGNCHLD=1 sbxrun starts with
# SIGCHLD ignored, as a daemon may hand it on; with PASSWD=FILE, FILE is
# /etc/passwd.
as_nobody() {
	unshare -m sh -c 'mount --bind "$1" /usr/bin/getent &&
		mount --bind "$7" /etc/nsswitch.conf &&
		{ [ -z "$9" ] || mount --bind "$9" /etc/passwd; } &&
		exec setpriv --reuid "$2" --regid "$2" --clear-groups env -i PATH=/usr/bin:/bin \
		HOME="$3" TMPDIR="$4" python3 -c "
import os, signal, sys
if sys.argv[1] == \"1\":
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[2], sys.argv[2:])
" "$8" "$5" --diag none --fs open --backend "$6"' \
		sh "$JT/getent-$1" "$uid" "$JT/envhome" "$JT/tmp" "$JT/sbxrun" "$2" \
		"${3:-$JT/nsswitch-ldap}" "${IGNCHLD:-0}" "${PASSWD:-}" <"$T/script" >"$T/out" 2>"$T/err"
	SBX_STATUS=$?
}

for b in namespaces landlock; do
	as_nobody found "$b"
	is_status 0 "$b: a uid known to getent only runs"
	unlike "$(output)" "$tag" "$b: ~/.ssh of the home getent names is not readable"
	IGNCHLD=1 as_nobody found "$b"
	is_status 0 "$b: started with SIGCHLD ignored, the same uid runs"
	unlike "$(output)" "$tag" "$b: ... and its ~/.ssh is not readable"
	as_nobody hangs "$b"
	is_status 125 "$b: a getent that answers and never ends refuses the run"
	like "$(output)" "did not answer within" "$b: the message says getent did not end in time"
	as_nobody none "$b"
	is_status 0 "$b: a uid no source knows runs"
	like "$(output)" "$tag" "$b: control: with no home known, the canary is readable"
	as_nobody fails "$b"
	is_status 125 "$b: getent failing refuses the run"
	like "$(output)" "getent passwd $uid failed" "$b: the message names getent's failure"
	as_nobody other "$b"
	is_status 125 "$b: an entry for another uid refuses the run"
	like "$(output)" "another uid" "$b: the message says why"
	# Where nsswitch.conf names files alone, /etc/passwd's miss is the
	# answer: getent (failing here) is not asked.
	as_nobody fails "$b" "$JT/nsswitch-files"
	is_status 0 "$b: passwd from files only: getent is not asked"
	like "$(output)" "$tag" "$b: passwd from files only: no home, the canary is readable"
	# sbxrun reads /etc/passwd itself (no NSS): an entry after a line
	# longer than its first buffer is still found, and its home's
	# ~/.ssh hidden; getent, which fails, is not asked.
	PASSWD=$JT/passwd-long as_nobody fails "$b" "$JT/nsswitch-files"
	is_status 0 "$b: /etc/passwd with a long line first: the uid is found there"
	unlike "$(output)" "$tag" "$b: ... and the ~/.ssh of the home it names is not readable"
done

# --help and --version answer without asking the user database: getent
# here leaves a mark and fails (which refuses a run: the control).
cat >"$JT/getent-marks" <<EOS
#!/bin/sh
: >"$JT/tmp/getent-asked"
exit 1
EOS
chmod 755 "$JT/getent-marks"
ask_marks() {
	rm -f "$JT/tmp/getent-asked"
	unshare -m sh -c 'mount --bind "$1" /usr/bin/getent &&
		mount --bind "$2" /etc/nsswitch.conf &&
		exec setpriv --reuid "$3" --regid "$3" --clear-groups env -i PATH=/usr/bin:/bin \
		HOME=/ "$4" "$5" --diag none' \
		sh "$JT/getent-marks" "$JT/nsswitch-ldap" "$uid" "$JT/sbxrun" "$1" \
		</dev/null >"$T/out" 2>"$T/err"
	SBX_STATUS=$?
}
for flag in --help --version; do
	ask_marks "$flag"
	is_status 0 "$flag answers for a uid only getent could know"
	absent "$flag does not ask getent" "$JT/tmp/getent-asked"
done
ask_marks --fs=open
is_status 125 "control: a run asks getent, which fails here"
ok "control: ... and getent left its mark" test -e "$JT/tmp/getent-asked"

done_testing
