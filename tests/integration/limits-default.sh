# The default policy protects the host (sbxrun.profile(5), memory and
# pids): with no limit asked for, a fork bomb is held to the default pids
# count and the host can still fork while it runs; sbxrun returns and
# nothing survives; an address-space grab past the default memory fails;
# and a parallel build (make -j4 of C files) runs under the same defaults.
# Run for $SBX_BACKEND; every verdict is taken from the host: processes
# counted with pgrep, forks made by the host, files in the workdir.
#
# The bomb is bounded: at most 1500 sleeps (the default is 1024, the
# host's pid_max far higher), each living 29.5 s at most, and the run is
# ended by SIGTERM from here once the host has counted.
. "$(dirname "$0")/jail-lib.sh"

# nproc_limit PID: the soft RLIMIT_NPROC of PID.
nproc_limit() {
	awk '/^Max processes/ { print $3 }' "/proc/$1/limits"
}

if [ "$SBX_BACKEND" = namespaces ]; then
	pids_by=rlimit
else
	pids_by=rlimit-uid
fi

# --- the defaults, in the diagnostics ---------------------------------------------------
jail -w "$WD" -- true
is_status 0 "a run with no limit asked for"
is "$(jget limits.pids)" "{\"by\":\"$pids_by\",\"count\":1024}" \
	"limits.pids: the default 1024, by $pids_by"
is "$(jget limits.memory.by)" rlimit "limits.memory: a default, by rlimit"
phys=$(($(getconf _PHYS_PAGES) * $(getconf PAGESIZE)))
half=$((phys / 2 / 1048576 * 1048576))
[ "$half" -lt 268435456 ] && half=268435456
is "$(jget limits.memory.bytes)" "$half" "limits.memory: half the machine's memory"
unlike "$(jget unenforced)" pids "a default limit is never unenforced"
# The cgroup2 hierarchy is looked up in the mount table that sbxrun reads
# once per run, for the probe and the secret list alike. Limits asked for
# and held by rlimits are a warning that says why.
jail -w "$WD" --memory 512M --pids 512 -- true
if [ "$(jget limits.pids.by)" = cgroup ]; then
	pass "the host's cgroup2 mount is found in the mount table (a leaf holds pids)"
elif grep -q ' - cgroup2 ' /proc/self/mountinfo; then
	unlike "$(jget warnings)" "no cgroup v2 hierarchy is mounted" \
	    "the host's cgroup2 mount is found in the mount table"
else
	like "$(jget warnings)" "no cgroup v2 hierarchy is mounted" \
	    "the host mounts no cgroup2: the diagnostics say so"
fi

# --- a caller whose own hard limits are lower ---------------------------------------------
# A service's LimitNPROC= or a CI runner's ulimit: a default is never a
# reason to refuse (sbxrun(1), LIMITS). The caller's lower limit stays,
# the default's "by" is null; a limit asked for above it is still a 125.
# A sanitized build (the second make check of .ci/run) reserves terabytes
# of address space for its shadow memory and cannot start under a lower
# RLIMIT_AS at all: there the caller's address space is left as it is,
# and the memory default is held as usual.
# (Asked of the binary, not by starting it: a start that fails writes a
# sanitizer report, which CI counts.)
AS_LIM=--as=3000000000:3000000000
grep -q __asan_init "$SBXRUN" 2>/dev/null && AS_LIM=
printf '#!/bin/sh\nexec prlimit --nproc=500:500 %s -- "%s" "$@"\n' "$AS_LIM" \
	"$SBXRUN" >"$T/lowlim"
chmod 755 "$T/lowlim"
new_wd
real_sbxrun=$SBXRUN
SBXRUN=$T/lowlim
jail_sh 'cat /proc/self/limits >limits.txt' -w "$WD"
is_status 0 "hard limits below the defaults: the run goes on"
is "$(awk '/^Max processes/ { print $3 " " $4 }' "$WD/limits.txt" 2>&1)" "500 500" \
	"... the caller's RLIMIT_NPROC stays"
if [ -n "$AS_LIM" ]; then
	as_want="3000000000 3000000000" memory_by=null
else
	as_want="$half $half" memory_by=rlimit
fi
is "$(awk '/^Max address space/ { print $4 " " $5 }' "$WD/limits.txt" 2>&1)" "$as_want" \
	"... the caller's lower RLIMIT_AS stays (else the default: $as_want)"
is "$(jget limits.pids.by):$(jget limits.memory.by)" "null:$memory_by" \
	"... and the defaults so held are said not held"
new_wd
jail_sh ': >ran' -w "$WD" --pids 600
is_status 125 "--pids above the caller's hard limit: 125"
absent "... and nothing ran" "$WD/ran"
# The message, written once the tree was gone, ends the output: the line
# follows it with no blank line, on a pipe shared by stdout and stderr.
is "$(echo true | "$T/lowlim" --backend "$SBX_BACKEND" -w "$WD" --pids 600 2>&1 | grep -c '^$')" 0 \
    "... and on a pipe the diagnostics line follows the message without a blank line"
SBXRUN=$real_sbxrun

# --- a fork bomb -------------------------------------------------------------------------
# The inner shell forks until fork fails (dash then exits); the outer one
# says so and replaces itself with a sleep: no fork needed.
new_wd
tag=29.$$
printf '%s\n' "sh -c 'i=0; while [ \$i -lt 1500 ]; do sleep $tag & i=\$((i+1)); done' 2>/dev/null
: >full
exec sleep $tag" >"$T/bomb"
BG_STDIN=$T/bomb sbx_bg -w "$WD" -t 60s
ok "the bomb filled its share" wait_for "[ -e '$WD/full' ]" 40
n=$(pgrep -fc "sleep $tag")
diag "bomb processes seen from the host: $n"
if [ "$pids_by" = rlimit ]; then
	ok "the bomb holds at most 1024 processes (seen from the host: $n)" test "$n" -le 1024
else
	# rlimit-uid: a fork of the bomb succeeds only while the uid's tasks
	# are fewer than the limit sbxrun set (1024 plus what the uid ran at
	# the start), so the bomb never holds more than that limit, whatever
	# other runs of the same uid start or end meanwhile.
	one=$(pgrep -f "sleep $tag" | head -n 1)
	lim=$(nproc_limit "$one")
	ok "the bomb holds at most its limit ($n processes, limit $lim)" test "$n" -le "$lim"
	ok "the limit is the sandbox's 1024 plus what the uid already ran ($lim)" test "$lim" -ge 1024
fi
ok "... and it did fork (more than 500)" test "$n" -gt 500
# The host forks 100 processes while the bomb holds its share.
forked=$(sh -c 'i=0; while [ $i -lt 100 ]; do /bin/true || exit 1; i=$((i+1)); done; echo $i' 2>/dev/null)
is "$forked" 100 "the host can still fork while the bomb runs"
kill -TERM "$SBX_PID"
sbx_bg_wait 20
ok "sbxrun returns after SIGTERM (status $SBX_STATUS)" test "$SBX_STATUS" -ne 137
no_survivors "no process of the bomb outlives sbxrun" "sleep $tag"

# --- --pids N is this sandbox's share, whatever else the uid runs --------------------
# 60 processes of the uid the payload runs as (65534 for root under
# landlock) sleep on the host; a --pids 100 sandbox still forks about 100.
new_wd
tag=28.$$
payload_uid_sleepers 60 "$tag"
printf '%s\n' "sh -c 'i=0; while [ \$i -lt 150 ]; do sleep $tag & i=\$((i+1)); done' 2>/dev/null
: >full
exec sleep $tag" >"$T/bomb"
BG_STDIN=$T/bomb sbx_bg -w "$WD" -t 60s --pids 100
ok "the bounded bomb filled its share" wait_for "[ -e '$WD/full' ]" 40
n=$(($(pgrep -fc "sleep $tag") - 60))
one=$(pgrep -f "sleep $tag" | tail -n 1)
lim=$(nproc_limit "$one")
kill -TERM "$SBX_PID"
sbx_bg_wait 20
is "$(jget limits.pids.by "$T/bg.diag")" "$pids_by" "--pids 100: by $pids_by"
if [ "$pids_by" = rlimit ]; then
	ok "--pids 100 beside 60 other processes of the uid: the sandbox had 90 to 100 ($n)" \
		test "$n" -ge 90 -a "$n" -le 100
else
	# The 60 count at the start, so the limit gives the sandbox its 100
	# beside them (a flat RLIMIT_NPROC of 100 left it about 40); how many
	# it then got depends on what else the uid runs meanwhile.
	ok "--pids 100 beside 60 other processes of the uid: the limit is at least 160 ($lim)" \
		test "$lim" -ge 160
	ok "... and the sandbox held at most its limit ($n)" test "$n" -le "$lim"
fi
survivors "sleep $tag" >/dev/null

# --- an address-space grab --------------------------------------------------------------
new_wd
jail_sh "python3 -c 'import mmap; m = mmap.mmap(-1, $half + (1 << 30)); open(\"mapped\", \"w\")'
echo done >ran" -w "$WD"
ok "the grab ran" test -e "$WD/ran"
absent "a mapping past the default memory fails" "$WD/mapped"

# --- a parallel build runs under the defaults -------------------------------------------
new_wd
i=0
while [ $i -lt 12 ]; do
	printf 'int f%d(int x) { return x * %d; }\n' $i $i >"$WD/f$i.c"
	i=$((i + 1))
done
printf 'int main(void) { return 0; }\n' >"$WD/main.c"
printf 'SRC := $(wildcard *.c)\nprog: $(SRC:.c=.o)\n\tcc -o $@ $^\n%%.o: %%.c\n\tcc -O2 -c -o $@ $<\n' \
	>"$WD/Makefile"
# Eight Python workers at once, as a test runner's -n 8 would start them
# (processes, not a multiprocessing pool: landlock has no POSIX semaphores).
jail_sh "make -j4 >build.log 2>&1 &&
seq 1 16 | xargs -P 8 -I{} python3 -c 'import sys, threading; threading.Thread(target=print).start(); open(\"w{}\", \"w\").write(\"{}\")'" -w "$WD"
is_status 0 "make -j4 and eight Python workers at a time run under the defaults"
ok "the build made its program" test -x "$WD/prog"
is "$(cat "$WD"/w* 2>/dev/null | wc -c)" 23 "the sixteen Python workers did their work"

done_testing
