# The cgroup v2 leaf (doc/design/limits.md, sbxrun.profile(5)): its
# mechanics end to end against fake cgroup trees (plain directories and
# files under $T, given by SBXRUN_TEST_CGROUP_ROOT), never the machine's
# hierarchy: the decision, the leaf's unique name and place, the files
# written into it, the jail's init placed in it, the events read back
# (oom_killed, memory.peak, forks refused), its removal after the run and
# after a SIGKILL of sbxrun, sbxrun's own move in a delegated group, and
# the fallback to rlimits with the reason said. Every verdict is read on
# the host: the tree's files and directories, the processes.
#
# What no fake tree can show is the kernel enforcing the limits: this
# machine's cgroup v2 has no memory or pids controller (they are bound to
# cgroup v1), so the real path is not exercised here; the first test says
# what the real hierarchy offers.
. "$(dirname "$0")/jail-lib.sh"

if [ "$SBX_BACKEND" = namespaces ]; then
	pids_by=rlimit
else
	pids_by=rlimit-uid
fi

# The cgroup_delegated member of --probe's object.
probe_cgroup() {
	"$SBXRUN" --probe 2>/dev/null |
	    "$PY" -c 'import json, sys; print(str(json.load(sys.stdin)["cgroup_delegated"]).lower())'
}

# The cgroup2 mount point of this machine, from our mount table.
v2=$(awk '$0 ~ / - cgroup2 / { print $5; exit }' /proc/self/mountinfo)

# --- the real hierarchy: read only --------------------------------------------------
if [ -n "$v2" ] && ! grep -qw memory "$v2/cgroup.controllers" 2>/dev/null; then
	jail -w "$WD" --memory 256M --pids 50 -- true
	is_status 0 "a run with limits on this machine"
	is "$(jget limits.memory.by)" rlimit "no memory controller in $v2: memory by rlimit"
	is "$(jget limits.pids.by)" "$pids_by" "... pids by $pids_by"
	like "$(jget warnings)" "has no memory and pids controller" "the warning says why"
	is "$(jget layers.cgroup)" false "layers.cgroup is false"
	is "$(probe_cgroup)" false "--probe: cgroup_delegated is false here"
else
	skip "this machine's cgroup v2 offers memory (or has no v2): the hybrid case" 4
	skip "(see above)" 2
fi

# fake_tree DIR ROOT_SUBTREE: a cgroup root that offers memory and pids.
fake_tree() {
	mkdir -p "$1"
	printf 'cpu io memory pids\n' >"$1/cgroup.controllers"
	printf '%s\n' "$2" >"$1/cgroup.subtree_control"
	: >"$1/cgroup.procs"
}

# The script: says it started, then waits (by count) for the host's go.
cat >"$T/wait" <<'EOF'
: >started
i=0
while [ ! -e go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
echo done >finished
EOF

# leaf_of DIR: the one leaf sbxrun made in DIR, once init is in it.
leaf_of() {
	for _l in "$1"/sbxrun-*; do
		[ -d "$_l" ] && [ -s "$_l/cgroup.procs" ] && echo "$_l"
	done
}

# --- a root caller's leaf below the root ------------------------------------------------
FT=$T/cg1
fake_tree "$FT" "memory pids"
new_wd
export SBXRUN_TEST_CGROUP_ROOT="$FT"
BG_STDIN=$T/wait sbx_bg -w "$WD" -t 60s --memory 256M --pids 50
ok "the jail started" wait_for "[ -e '$WD/started' ]" 30
ok "a leaf appeared in the fake root, with a process in it" wait_for "[ -n \"\$(leaf_of '$FT')\" ]" 10
leaf=$(leaf_of "$FT")
n=$(ls -d "$FT"/sbxrun-* 2>/dev/null | wc -l)
is "$n" 1 "exactly one leaf"
ok "its name is sbxrun-PID-RANDOM ($(basename "$leaf"))" \
	sh -c "basename '$leaf' | grep -Eqx 'sbxrun-$SBX_PID-[0-9a-f]{8}'"
is "$(cat "$leaf/memory.max" 2>/dev/null)" 268435456 "memory.max is the --memory bytes"
is "$(cat "$leaf/memory.swap.max" 2>/dev/null)" 0 "memory.swap.max is 0: memory means memory plus swap"
is "$(cat "$leaf/pids.max" 2>/dev/null)" 50 "pids.max is the --pids count"
init=$(init_of "$SBX_PID")
is "$(tr -d '\n' <"$leaf/cgroup.procs")" "$init" "the jail's init (pid $init) was placed in the leaf, and nothing else"
is "$(tr -d '\n' <"$FT/cgroup.procs")" "" "nothing was moved into the root"
# What the kernel would count: an OOM kill, a peak, refused forks.
printf 'low 0\nhigh 0\nmax 4\noom 1\noom_kill 1\noom_group_kill 0\n' >"$leaf/memory.events"
printf '123456789\n' >"$leaf/memory.peak"
printf 'max 3\n' >"$leaf/pids.events"
: >"$WD/go"
sbx_bg_wait 30
is "$SBX_STATUS" 0 "the run ends with the script's status"
ok "the script finished" test -e "$WD/finished"
is "$(jget limits.memory.by "$T/bg.diag")" cgroup "limits.memory.by is cgroup"
is "$(jget limits.pids.by "$T/bg.diag")" cgroup "limits.pids.by is cgroup"
is "$(jget oom_killed "$T/bg.diag")" true "oom_killed from memory.events' oom_kill"
is "$(jget limits.memory.peak "$T/bg.diag")" 123456789 "limits.memory.peak from memory.peak"
like "$(jget warnings "$T/bg.diag")" "3 forks were refused at the pids limit" "refused forks from pids.events"
like "$(jget warnings "$T/bg.diag")" "test tree" "a test tree is said to enforce nothing"
is "$(jget layers.cgroup "$T/bg.diag")" true "layers.cgroup is true"
ok "the leaf was removed after the run" test ! -e "$leaf"
is "$(ls -A "$FT" | tr '\n' ' ')" "cgroup.controllers cgroup.procs cgroup.subtree_control " \
	"the root holds only what it held"
is "$(cat "$FT/cgroup.subtree_control")" "memory pids" "the root's subtree_control is untouched"

# --- no OOM: oom_killed stays false; a leaf per run ---------------------------------
new_wd
jail_sh 'cat /proc/self/status >/dev/null' -w "$WD" --pids 40
is_status 0 "a plain run with a leaf"
is "$(jget oom_killed)" false "no oom_kill: oom_killed is false"
is "$(jget limits.pids.by)" cgroup "--pids alone: by cgroup"
is "$(jget limits.memory.by)" cgroup "the default memory limit: by cgroup too"
is "$(ls -d "$FT"/sbxrun-* 2>/dev/null | wc -l)" 0 "no leaf left"

# --print-backend and --probe make nothing.
sbx --backend "$SBX_BACKEND" --print-backend -w "$WD" -- true
is "$(ls -d "$FT"/sbxrun-* 2>/dev/null | wc -l)" 0 "--print-backend makes no leaf"
is "$(probe_cgroup)" true "--probe: cgroup_delegated is true where a run gets a leaf"
is "$(ls -d "$FT"/sbxrun-* 2>/dev/null | wc -l)" 0 "--probe makes no leaf"

# --- a delegated group: sbxrun moves itself out first -----------------------------------
FT=$T/cg2
fake_tree "$FT" ""
SELF=/user.slice/user-1000.slice/run-1.scope
mkdir -p "$FT$SELF"
printf 'memory pids\n' >"$FT$SELF/cgroup.controllers"
: >"$FT$SELF/cgroup.subtree_control"
echo 1 >"$FT$SELF/cgroup.procs"
export SBXRUN_TEST_CGROUP_ROOT="$FT" SBXRUN_TEST_CGROUP_SELF="$SELF"
new_wd
BG_STDIN=$T/wait sbx_bg -w "$WD" -t 60s --memory 128M --pids 30
ok "delegated: the jail started" wait_for "[ -e '$WD/started' ]" 30
ok "delegated: a leaf in our group" wait_for "[ -n \"\$(leaf_of '$FT$SELF')\" ]" 10
leaf=$(leaf_of "$FT$SELF")
is "$(cat "$leaf/memory.max" 2>/dev/null)" 134217728 "delegated: memory.max"
is "$(cat "$leaf/pids.max" 2>/dev/null)" 30 "delegated: pids.max"
ok "delegated: sbxrun and its keeper moved into sbxrun.sup" \
	sh -c "tr '\n' ' ' <'$FT$SELF/sbxrun.sup/cgroup.procs' | grep -Eqx '$SBX_PID [0-9]+ '"
is "$(cat "$FT$SELF/cgroup.subtree_control")" "+memory +pids" \
	"delegated: memory and pids enabled for the group's children"
is "$(ls -d "$FT"/sbxrun-* 2>/dev/null | wc -l)" 0 "delegated: nothing made at the root"
: >"$WD/go"
sbx_bg_wait 30
is "$(jget limits.memory.by "$T/bg.diag")" cgroup "delegated: memory by cgroup"
is "$(jget limits.pids.by "$T/bg.diag")" cgroup "delegated: pids by cgroup"
ok "delegated: the leaf was removed" test ! -e "$leaf"
unset SBXRUN_TEST_CGROUP_SELF

# --- a SIGKILL of sbxrun: the keeper removes the leaf -----------------------------------
FT=$T/cg3
fake_tree "$FT" "memory pids"
export SBXRUN_TEST_CGROUP_ROOT="$FT"
new_wd
BG_STDIN=$T/wait sbx_bg -w "$WD" -t 60s --pids 20
ok "kill: the jail started" wait_for "[ -e '$WD/started' ]" 30
ok "kill: a leaf exists" wait_for "[ -n \"\$(leaf_of '$FT')\" ]" 10
leaf=$(leaf_of "$FT")
kill -KILL "$SBX_PID"
sbx_bg_wait 10
ok "kill: the leaf is removed after sbxrun's SIGKILL" wait_for "[ ! -e '$leaf' ]" 20
ok "kill: the script never finished" test ! -e "$WD/finished"

# --- no leaf: rlimits as before, and why ------------------------------------------------
FT=$T/cg4
mkdir -p "$FT"
printf 'cpu io hugetlb\n' >"$FT/cgroup.controllers"
printf '\n' >"$FT/cgroup.subtree_control"
: >"$FT/cgroup.procs"
export SBXRUN_TEST_CGROUP_ROOT="$FT"
jail -w "$WD" --memory 256M --pids 50 -- true
is "$(jget limits.memory.by)" rlimit "no controllers: memory by rlimit"
is "$(jget limits.pids.by)" "$pids_by" "no controllers: pids by $pids_by"
like "$(jget warnings)" "$FT has no memory and pids controller" "no controllers: the warning names the group"
is "$(ls -A "$FT" | wc -l)" 3 "no controllers: nothing made"
is "$(probe_cgroup)" false "no controllers: --probe says cgroup_delegated false"
# Only pids handed down: pids by the leaf, memory by its rlimit.
printf 'cpu memory pids\n' >"$FT/cgroup.controllers"
printf 'pids\n' >"$FT/cgroup.subtree_control"
jail -w "$WD" --memory 256M --pids 50 -- true
is "$(jget limits.pids.by)" cgroup "pids only: pids by cgroup"
is "$(jget limits.memory.by)" rlimit "pids only: memory by rlimit"
like "$(jget warnings)" "no memory controller: that limit stays an rlimit" "pids only: said"
is "$(ls -A "$FT" | wc -l)" 3 "pids only: the leaf is gone"
unset SBXRUN_TEST_CGROUP_ROOT

done_testing
