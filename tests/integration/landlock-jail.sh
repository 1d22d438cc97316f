# What only the landlock backend does, because it has no namespace (see
# BACKENDS in sbxrun(1)): a private TMPDIR instead of a private /tmp; the
# walks that keep hidden and protected paths out of reach with Landlock's
# allow-only, inherited rights; mounts refused, or symlinks under
# --allow-degraded; the host filter (no socket with the network off, no
# System V IPC, no set-id bit); a root caller's payload as uid 65534 with
# the workdir lent and handed back (by init if sbxrun is killed); the
# payload's PDEATHSIG. Verdicts come from the host side.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

# A root caller's sandbox runs as uid 65534, which must reach the
# workdirs and $TMPDIR below $T.
chmod 711 "$T"
ME_U=$(id -u)
ME_G=$(id -g)

abi=$("$SBXRUN" --probe | sed -n 's/.*"landlock_abi":\([0-9]*\).*/\1/p')
if [ "${abi:-0}" -lt 6 ]; then
	skip "Landlock ABI ${abi:-0} here; the landlock backend needs ABI 6 (Linux 6.12)" 1
	done_testing
	exit
fi

# --- the private TMPDIR -------------------------------------------------------------
tag=$(uniq_tag tmp)
c_tmp=$(uniq_tag hosttmp)
echo "$c_tmp" >"/tmp/$tag.host"
chmod 644 "/tmp/$tag.host"
JAIL_CLEAN="$JAIL_CLEAN /tmp/$tag.host"
jail_sh "$SBX_T_PRELUDE
echo \"TMPDIR=\$TMPDIR\"
t tmpdir sh -c 'echo x >\"\$TMPDIR/f\" && cat \"\$TMPDIR/f\"'
t pytemp python3 -c 'import tempfile; tempfile.NamedTemporaryFile().write(b\"x\")'
t slash_tmp sh -c 'echo pwned >/tmp/$tag'
cat /tmp/$tag.host
exit 0" -w "$WD"
is_status 0 "the TMPDIR script ran"
like "$(output)" "TMPDIR=$TMPDIR/sbxrun-tmp." "TMPDIR is a private directory in the caller's TMPDIR"
is "$(rc_of tmpdir):$(rc_of pytemp)" "0:0" "TMPDIR is writable, python's tempfile uses it"
absent "/tmp itself is not writable (it is the host's)" "/tmp/$tag"
unlike "$(output)" "$c_tmp" "the host's /tmp is not readable"
is "$(leftovers)" "" "the private TMPDIR is removed after the run"

# --- a workdir with .git: the protect walk --------------------------------------------
new_wd
mkdir -p "$WD/.git/hooks" "$WD/src"
echo '[core]' >"$WD/.git/config"
echo top >"$WD/top.txt"
fsum "$WD/.git/config" >"$T/config.before"
jail_sh "$SBX_T_PRELUDE
t newtop sh -c 'echo x >new.txt'
t rewrite sh -c 'echo changed >top.txt'
t sub sh -c 'mkdir -p src/a/b && echo deep >src/a/b/f'
t hook sh -c 'echo evil >.git/hooks/pre-commit'
t config sh -c 'echo evil >>.git/config'
t swap sh -c 'mv .git/config .git/config.old'
t gitmv mv .git .git.old
exit 0" -w "$WD"
is_status 0 "the git workdir script ran"
is "$(cat "$WD/top.txt"):$(cat "$WD/src/a/b/f" 2>&1)" "changed:deep" \
    "existing top-level files and every subdirectory stay writable"
ok "a new entry at the top of a workdir that holds .git (the name supervisor judges it)" \
    test -f "$WD/new.txt"
absent "no hook planted" "$WD/.git/hooks/pre-commit"
is "$(fsum "$WD/.git/config")" "$(cat "$T/config.before")" ".git/config is unchanged"
ok ".git was not renamed away" test -d "$WD/.git" -a ! -e "$WD/.git.old"
unlike "$(jget warnings)" "takes no new entry" "no warning of a frozen workdir"
is "$(stat -c %u:%g "$WD/src/a/b/f")" "$ME_U:$ME_G" "a new file belongs to the caller"

# --- a workdir holding a secret (the home): the hidden walk ----------------------------
new_wd
mkdir -p "$WD/.ssh" "$WD/proj"
c_key=$(uniq_tag key)
echo "$c_key" >"$WD/.ssh/id_rsa"
chmod 700 "$WD/.ssh"
echo plain >"$WD/notes.txt"
HOME=$WD jail_sh "$SBX_T_PRELUDE
cat .ssh/id_rsa
t ls_ssh ls .ssh
t plant sh -c 'echo evil >.ssh/authorized_keys'
t mv mv .ssh .ssh.old
t notes cat notes.txt
t proj sh -c 'echo x >proj/out'
exit 0" -w "$WD"
is_status 0 "the workdir = home script ran"
unlike "$(output)" "$c_key" "a secret inside the workdir is unreadable"
failed_inside "a secret directory inside the workdir cannot be listed" ls_ssh
absent "nothing can be planted in the secret directory" "$WD/.ssh/authorized_keys"
ok "the secret directory was not renamed away" test -d "$WD/.ssh" -a ! -e "$WD/.ssh.old"
is "$(rc_of notes):$(rc_of proj)" "0:0" "the rest of the workdir stays readable and writable"

# --- mounts: refused, or symlinks with --allow-degraded --------------------------------
new_wd
mkdir -p "$JT/msrc/ro" "$JT/msrc/rw"
echo orig >"$JT/msrc/ro/f"
echo orig >"$JT/msrc/rw/f"
chmod -R a+rwX "$JT/msrc/rw"
chmod -R a+rX "$JT/msrc"
jail -m "$JT/msrc/ro:data/ro" -w "$WD" -- /bin/true
is_status 125 "a mount is refused with 125"
like "$(jget error)" "mounts" "the error names the rule 'mounts'"
absent "nothing was made for the refused mount" "$WD/data"
"$SBXRUN" --backend landlock --allow-degraded --print-backend -w "$WD" \
    -m "$JT/msrc/ro:data/ro" >"$T/pb" 2>/dev/null
like "$(cat "$T/pb")" "symlink    $WD/data/ro -> $JT/msrc/ro" "--print-backend shows the symlink"
jail_sh "$SBX_T_PRELUDE
cat data/ro/f
t ro_write sh -c 'echo evil >data/ro/f'
t rw_write sh -c 'echo changed >out/f'
exit 0" --allow-degraded -m "$JT/msrc/ro:data/ro" -m "$JT/msrc/rw:out:rw" -w "$WD"
is_status 0 "--allow-degraded: the mounting run exits 0"
is "$(jget isolation):$(jget unenforced)" 'partial:["mounts"]' "isolation partial, mounts unenforced"
like "$(output)" orig "a ro source is readable at WORKDIR/TARGET"
is "$(cat "$JT/msrc/ro/f")" orig "a ro source stays unchanged"
is "$(cat "$JT/msrc/rw/f")" changed "a rw source is written through"
like "$(jget warnings)" "is a symbolic link to $JT/msrc/ro, not a mount" "a warning says it is a link"
absent "the link is removed after the run" "$WD/out"
absent "the directory made for it is removed too" "$WD/data"

# --- the host filter ---------------------------------------------------------------------
new_wd
listener_start
jail_sh "$SBX_T_PRELUDE
t unix python3 -c 'import socket; s = socket.socket(socket.AF_UNIX); s.connect(\"$LSN_SOCK2\")'
t dgram python3 -c 'import socket; a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)'
t stream python3 -c 'import socket; a, b = socket.socketpair(); a.send(b\"x\"); assert b.recv(1) == b\"x\"'
t shm python3 -c 'import ctypes, sys; sys.exit(ctypes.CDLL(None).shmget(0, 4096, 0o1600) < 0)'
t setuid sh -c 'cp /bin/true x && chmod 4755 x'
t chmod chmod 755 x
exit 0" -w "$WD"
is_status 0 "the host filter script ran"
is "$(log_lines)" 0 "no host unix socket was reached"
is "$(rc_of unix):$(rc_of dgram):$(rc_of stream)" "1:1:0" \
    "no socket, no datagram pair; a stream pair works"
failed_inside "System V shared memory is refused" shm
is "$(stat -c %a "$WD/x" 2>&1)" 755 "no set-user-ID bit can be set (a plain chmod works)"

# --- PDEATHSIG: the payload dies with init ------------------------------------------------
# The kill comes once the payload runs sleep: init's child exists from its
# clone on, and killed before its set-up armed PDEATHSIG it would end on
# that set-up's own check ("the jail's init died while starting"), not on
# what is tested here.
# sleeping_payload: init's child once it has exec'd sleep; sets pl, init.
sleeping_payload() {
	init=$(init_of "$SBX_PID")
	pl=
	[ -n "$init" ] || return 1
	pl=$(pgrep -P "$init" | head -n 1)
	[ -n "$pl" ] && [ "$(cat "/proc/$pl/comm" 2>/dev/null)" = sleep ]
}
new_wd
sbx_bg -w "$WD" -- sleep 60 </dev/null
if wait_for sleeping_payload 20; then
	# Both at once: no init left to kill the tree, no sbxrun to reap it.
	kill -KILL "$SBX_PID" "$init"
	wait_for "! kill -0 $pl 2>/dev/null || [ \"\$(status_field $pl State | cut -c1)\" = Z ]" 20
	ok "the payload dies when sbxrun and its init are killed together" test $? -eq 0
else
	fail "the payload dies when sbxrun and its init are killed together"
	diag "no payload running sleep (sbxrun $SBX_PID, init '$init', payload '$pl')"
fi
sbx_bg_wait 20

done_testing
