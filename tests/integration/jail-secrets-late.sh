# A secret of the list that does not exist when the run starts and is made
# on the host while the sandbox runs (an `aws configure` in another
# terminal) stays unreadable where the sandbox sees the tree around it
# read-only: --fs open and allowlist (sbxrun(1), Filesystem). No mount can
# cover a name that is not there; the Landlock rules go around its nearest
# directory that exists instead. The sandbox waits, on a file in its
# workdir, for the host to make the secrets, then copies what it can read
# into the workdir, where the host looks. Run for $SBX_BACKEND (default
# namespaces).
. "$(dirname "$0")/jail-lib.sh"

# The tree around the secrets: outside /tmp (which the jail replaces), a
# plain file beside them as the control.
mkdir -p "$JT/data"
c_ctl=$(uniq_tag control)
echo "$c_ctl" >"$JT/data/control"
chmod -R a+rX "$JT/data" "$HOME"

# Waits (bounded) for the host's go, then reads.
script="i=0
: >ready
while [ ! -e go ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done
cat '$JT/data/keys/token' >got-deny 2>&1
cat '$HOME/.aws/credentials' >got-home 2>&1
cat '$HOME/.config/gh/hosts.yml' >got-home2 2>&1
cat '$JT/data/control' >got-control 2>&1
exit 0"
printf '%s\n' "$script" >"$T/late.sh"

wait_for() {
	_i=0
	while [ ! -e "$1" ] && [ "$_i" -lt 200 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

for mode in open allowlist; do
	new_wd
	rm -rf "$JT/data/keys" "$HOME/.aws" "$HOME/.config"
	c_deny=$(uniq_tag deny)
	c_home=$(uniq_tag home)
	c_home2=$(uniq_tag home2)
	if [ "$mode" = allowlist ]; then
		set -- -r "$JT/data" -r "$HOME"
	else
		set --
	fi
	BG_STDIN=$T/late.sh sbx_bg --fs "$mode" "$@" --deny-read "$JT/data/keys/token" -w "$WD"
	wait_for "$WD/ready"
	ok "$mode: the sandbox started and waits" test -e "$WD/ready"
	# Made by the host, readable by anyone by their modes alone.
	mkdir -p "$JT/data/keys" "$HOME/.aws" "$HOME/.config/gh"
	echo "$c_deny" >"$JT/data/keys/token"
	echo "$c_home" >"$HOME/.aws/credentials"
	echo "$c_home2" >"$HOME/.config/gh/hosts.yml"
	chmod -R a+rX "$JT/data" "$HOME"
	: >"$WD/go"
	sbx_bg_wait 60
	is_status 0 "$mode: the reading script ran"
	unlike "$(cat "$WD/got-deny" 2>/dev/null)" "$c_deny" \
	    "$mode: a --deny-read file made during the run is not readable"
	unlike "$(cat "$WD/got-home" 2>/dev/null)" "$c_home" \
	    "$mode: ~/.aws/credentials made during the run is not readable"
	unlike "$(cat "$WD/got-home2" 2>/dev/null)" "$c_home2" \
	    "$mode: ~/.config/gh made during the run (no ~/.config before) is not readable"
	like "$(cat "$WD/got-control" 2>/dev/null)" "$c_ctl" \
	    "$mode: the plain file beside it is readable (control)"
done
rm -rf "$JT/data/keys" "$HOME/.aws" "$HOME/.config"

# What the sandbox cannot search needs no walk: /root (mode 0700) keeps
# everything below it from a root caller's sandbox (uid 65534) and from
# any other caller's, so a missing name below it splits nothing there.
# Under a root caller the secret list names ~root/.config/gh and co.,
# below /root/.config, which may be searchable itself.
if [ -d /root ] && [ "$(stat -c %a /root)" = 700 ]; then
	jail --fs open --deny-read /root/.config/sbxjail-missing --print-backend </dev/null
	ok "open: /root, which the sandbox cannot search, is not walked" \
	    sh -c '! grep -q "^landlock .* /root/" "$1" && ! grep -qx "landlock   l---- /root" "$1"' \
	    sh "$T/out"
else
	diag "/root is not mode 0700 here: nothing to check"
fi

done_testing
