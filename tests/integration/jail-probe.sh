# --probe and --print-backend (sbxrun(1), OPTIONS and BACKENDS), and the layers a
# real run reports. Run for $SBX_BACKEND (default namespaces).
. "$(dirname "$0")/jail-lib.sh"

# --- --probe ------------------------------------------------------------------
"$SBXRUN" --probe >"$T/probe" 2>"$T/probe.err"
is "$?" 0 "--probe exits 0"
ok "--probe prints one JSON line" json_line "$T/probe"
# --probe is judged against host facts measured here without sbxrun.
if host_userns; then
	is "$(jget userns "$T/probe")" true "--probe: userns true (this caller can make one here)"
	is "$(jget auto "$T/probe")" namespaces "--probe: auto picks namespaces"
else
	is "$(jget userns "$T/probe")" false "--probe: userns false (this caller cannot make one here)"
	unlike "$(jget auto "$T/probe")" namespaces "--probe: auto does not pick namespaces"
fi
is "$(jget landlock_abi "$T/probe")" "$(host_landlock_abi)" "--probe: landlock_abi is the kernel's"
is "$(jget seccomp "$T/probe")" true "--probe: seccomp true"
is "$(jget "backends.$SBX_BACKEND.usable" "$T/probe")" true \
    "--probe: the $SBX_BACKEND backend is usable ($(jget "backends.$SBX_BACKEND.why" "$T/probe"))"

# A run with --backend auto takes what --probe names, in every fs mode: a
# problem building this run's jail is an error, not a reason to fall
# through to a weaker backend.
auto=$(jget auto "$T/probe")
for mode in strict open; do
	new_wd
	sbx --backend auto --fs "$mode" -w "$WD" -- /bin/true
	is "$(jget backend)" "$auto" "--backend auto, --fs $mode: the run uses $auto, as --probe says"
done

# --- --print-backend ----------------------------------------------------------------
new_wd
mkdir -p "$JT/src"
"$SBXRUN" --backend "$SBX_BACKEND" --print-backend -w "$WD" -m "$JT/src:data" >"$T/pb" 2>"$T/pb.err"
is "$?" 0 "--print-backend exits 0"
pb=$(cat "$T/pb")
like "$pb" "landlock " "--print-backend shows the Landlock rules"
like "$pb" "$WD" "--print-backend names the workdir"
for s in io_uring_setup unshare mount keyctl bpf personality MPTCP TIOCSTI; do
	like "$pb" "$s" "--print-backend's seccomp summary names $s"
done
if ns_only "the mount table is the namespaces backend's" 4; then
	like "$pb" "mount table" "--print-backend shows the mount table"
	like "$pb" "proc       /proc" "the mount table has a fresh /proc"
	like "$pb" "tmpfs      /tmp" "the mount table has a private /tmp"
	like "$pb" "$WD/data <- $JT/src ro" "the mount table puts -m SRC:data at WORKDIR/data, read-only"
fi
is "$(ls -A "$WD")" "" "--print-backend runs nothing (the workdir stays empty)"
"$SBXRUN" --backend "$SBX_BACKEND" --print-backend >/dev/null 2>&1
is "$(leftovers)" "" "--print-backend leaves no temporary workdir"

# --- the layers of a real run ---------------------------------------------------------
new_wd
jail -w "$WD" -- /bin/true
is_status 0 "a run exits 0"
ok "its diagnostics line is complete" check_diag "$T/diag"
is "$(jget backend)" "$SBX_BACKEND" "diagnostics: backend $SBX_BACKEND"
is "$(jget isolation)" full "diagnostics: isolation full"
is "$(jget layers.seccomp)" true "diagnostics: layers.seccomp true"
ok "diagnostics: layers.landlock_abi >= 1 ($(jget layers.landlock_abi))" \
    test "$(jget layers.landlock_abi)" -ge 1
if ns_only "the namespace layers" 2; then
	is "$(jget layers.userns)" true "diagnostics: layers.userns true"
	is "$(jget layers.netns)" true "diagnostics: layers.netns true (network fully off)"
fi

done_testing
