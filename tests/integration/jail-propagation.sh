# The jail's mounts never reach the host (sbxrun(1), FILES; doc/design/
# jail-plan.md): a root caller's workdir on a shared mount (systemd makes
# / shared) is cloned for the jail, and a clone of a shared mount joins
# its peer group, so the placeholders the jail mounts on top of it (the
# protected .git/hooks and .git/config) used to propagate to the host's
# mount and stay there after the run. Judged on the host's mount table,
# during the run and after it. Run for both Linux backends.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=6
if ! root_only "a shared mount of the host's is made for the test" "$N_TESTS"; then
	done_testing
	exit 0
fi

SH=$JT/shared
_prop_cleanup() {
	umount -l "$SH" 2>/dev/null
	_jail_cleanup
}
trap _prop_cleanup EXIT
mkdir -p "$SH"
if ! mount -t tmpfs -o mode=755 sbxprop "$SH" || ! mount --make-shared "$SH"; then
	fail "a shared tmpfs for the workdir"
	done_testing
	exit 1
fi
# Mount points at or below the shared mount, as the host sees them.
below() { cut -d' ' -f5 /proc/self/mountinfo | grep -c "^$SH" ; }

for b in namespaces landlock; do
	WD=$SH/wd-$b
	mkdir -p "$WD/.git/hooks"
	echo x >"$WD/.git/config"
	chmod 755 "$WD"
	before=$(below)
	BG_STDIN=$T/script
	# The script's first step marks that it runs: the payload starts only
	# once the jail's mounts are all made, so the sample below is taken
	# with every one of them in place (init exists before any).
	printf ': >started\ni=0; while [ ! -e go ] && [ $i -lt 200 ]; do sleep 0.05; i=$((i + 1)); done\necho ran\n' >"$T/script"
	SBX_BACKEND=$b sbx_bg -w "$WD"
	wait_for "[ -e '$WD/started' ]" 30 || diag "$b: the script never started: $(cat "$T/bg.err")"
	during=$(below)
	: >"$WD/go"
	sbx_bg_wait 30
	is "$SBX_STATUS $(cat "$T/bg.out")" "0 ran" "$b: the run ended well"
	is "$during" "$before" "$b: the host's shared mount gained no mount during the run"
	is "$(below)" "$before" "$b: ... nor after it"
done

done_testing
