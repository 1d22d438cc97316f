# Root callers (sbxrun(1), Filesystem): run as root, the sandboxed code still
# has no privilege over host files: it is not uid 0 outside the jail, so
# a root-owned 0600 file that a mount, allowlist or "open" makes visible
# stays unreadable, and files it leaves in the workdir belong to root
# afterwards. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=17
if ! root_only "the rules for a root caller" "$N_TESTS"; then
	done_testing
	exit
fi

c_root=$(uniq_tag root0600)
mkdir -p "$JT/rootdir"
chmod 755 "$JT/rootdir"
echo "$c_root" >"$JT/rootdir/secret"
chown 0:0 "$JT/rootdir/secret"
chmod 600 "$JT/rootdir/secret"
echo public >"$JT/rootdir/public"
chmod 644 "$JT/rootdir/public"
# The real root home (0700 on most systems): a canary of our own in it.
home_canary=
if [ -d "$PWHOME" ] && [ "$PWHOME" != / ]; then
	home_canary=$(uniq_tag roothome)
	echo "$home_canary" >"$PWHOME/sbxjail-canary-$$"
	chmod 600 "$PWHOME/sbxjail-canary-$$"
	JAIL_CLEAN="$PWHOME/sbxjail-canary-$$ $JAIL_CLEAN"
fi

# --- a root-owned 0600 file made visible --------------------------------------
if ns_only "mounts at WORKDIR/TARGET need a mount namespace" 3; then
	new_wd
	jail_sh "cat data/public data/secret; exit 0" -m "$JT/rootdir:data" -w "$WD"
	is_status 0 "-m dir:data: the script ran"
	like "$(output)" public "-m dir:data: a 0644 file is readable (control)"
	unlike "$(output)" "$c_root" "-m dir:data: a root-owned 0600 file stays unreadable"
fi
new_wd
jail_sh "cat '$JT/rootdir/public' '$JT/rootdir/secret'; exit 0" --fs open -w "$WD"
is_status 0 "--fs open: the script ran"
like "$(output)" public "--fs open: a 0644 root file is readable (control)"
unlike "$(output)" "$c_root" "--fs open: a root-owned 0600 file stays unreadable"
new_wd
jail_sh "cat '$JT/rootdir/public' '$JT/rootdir/secret'; exit 0" --fs allowlist -r "$JT/rootdir" \
    -w "$WD"
is_status 0 "-r dir: the script ran"
unlike "$(output)" "$c_root" "-r dir: a root-owned 0600 file stays unreadable"
if [ -n "$home_canary" ]; then
	new_wd
	jail_sh "cat '$PWHOME/sbxjail-canary-$$'; ls '$PWHOME'; exit 0" --fs open -w "$WD"
	unlike "$(output)" "$home_canary" "--fs open: a 0600 file in root's home stays unreadable"
else
	skip "root has no home directory here"
fi

# --- files left in the workdir belong to root -----------------------------------
new_wd
jail_sh 'mkdir -p a/b && echo x >a/b/c && echo y >top && ln -s top link && mkfifo fifo; exit 0' \
    -w "$WD"
is_status 0 "the creating script ran"
is "$(stat -c %u:%g "$WD/top" 2>&1)" 0:0 "a file created inside belongs to root:root afterwards"
is "$(stat -c %u:%g "$WD/a/b/c" 2>&1)" 0:0 "a file in new directories belongs to root:root"
is "$(stat -c %u:%g "$WD/a" 2>&1)" 0:0 "a new directory belongs to root:root"
is "$(stat -c %u:%g "$WD/link" 2>&1)" 0:0 "a new symlink belongs to root:root"

# --- the sandboxed process is not uid 0 outside ----------------------------------
# Seen from the host: /proc/PID/status of the payload while it sleeps.
new_wd
sbx_bg -w "$WD" -- /bin/sh -c 'echo started >started; exec sleep 30'
wait_for "[ -s '$WD/started' ]" 10
pl=$(payload_of "$SBX_PID")
uids=$(status_field "$pl" Uid)
gids=$(status_field "$pl" Gid)
diag "payload pid $pl: Uid $uids, Gid $gids"
ok "the payload is running (pid ${pl:-none})" test -n "$pl"
case " $(echo "$uids" | tr '\t' ' ') " in
*" 0 "*) fail "the payload's uids outside the jail are not 0 (real, effective, saved, fs)" ;;
"  ") fail "the payload's uids outside the jail are not 0 (no status)" ;;
*) pass "the payload's uids outside the jail are not 0 (real, effective, saved, fs)" ;;
esac
case " $(echo "$gids" | tr '\t' ' ') " in
*" 0 "* | "  ") fail "the payload's gids outside the jail are not 0" ;;
*) pass "the payload's gids outside the jail are not 0" ;;
esac
kill -KILL "$SBX_PID" 2>/dev/null
sbx_bg_wait 10

done_testing
