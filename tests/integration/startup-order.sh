# What the start-up's reordering must keep (doc/design/startup.md, fourth
# round): under landlock the secret lists are resolved while the keeper
# makes the temp dirs and then counts the uid's tasks for the pids rlimit
# (section 22); under namespaces a root caller's default run makes no
# idmapping. Each case is run with a fresh temp workdir (no -w, the
# reordered path) and with -w.
# Verdicts from the host: the payload's RLIMIT_NPROC read from
# /proc/PID/limits, a canary's text that must not reach sbxrun's output,
# the on-disk owner of a file the sandbox made, and $TMPDIR's entries.
. "$(dirname "$0")/jail-lib.sh"

nproc_limit() {
	awk '/^Max processes/ { print $3 }' "/proc/$1/limits"
}

# sleeping_payload: init's child once it has exec'd sleep (its rlimits are
# set just before the exec: read earlier, they are sbxrun's); sets pl.
sleeping_payload() {
	pl=
	_init=$(init_of "$SBX_PID")
	[ -n "$_init" ] || return 1
	pl=$(pgrep -P "$_init" | head -n 1)
	[ -n "$pl" ] && [ "$(cat "/proc/$pl/comm" 2>/dev/null)" = sleep ]
}

# --- the pids count: what the uid runs, plus the sandbox's share ---------------------
# 20 processes of the uid the payload runs as (65534 for a root caller
# under landlock) sleep on the host while a --pids 50 run starts (for 300
# s, killed after both runs: a slow machine must not see them end first).
tag=300.$$
payload_uid_sleepers 20 "$tag"
# Counted by threads, zombies included (the kernel counts both until a
# zombie is reaped): one process with 30 threads besides its own, and one
# that never reaps its 10 exited children (section 23: a stat of each
# process's task directory, its link count two plus its threads).
if [ "$SBX_BACKEND" = landlock ] && [ "$(id -u)" = 0 ]; then
	as_payload="setpriv --reuid=65534 --regid=65534 --clear-groups"
else
	as_payload=
fi
$as_payload "$PY" -c 'import threading, time
for _ in range(30):
    threading.Thread(target=time.sleep, args=(300,), daemon=True).start()
time.sleep(300)' &
threaded=$!
$as_payload "$PY" -c 'import os, time
for _ in range(10):
    if os.fork() == 0:
        os._exit(0)
time.sleep(300)' &
reaps_none=$!
BG_PIDS="$BG_PIDS $threaded $reaps_none"
wait_for "[ \"\$(awk '/^Threads:/ { print \$2 }' /proc/$threaded/status)\" = 31 ]" 10
wait_for "[ \"\$(ps -o stat= --ppid $reaps_none | grep -c Z)\" = 10 ]" 10
for how in temp workdir; do
	if [ $how = temp ]; then set --; else new_wd; set -- -w "$WD"; fi
	printf 'exec sleep %s\n' "$tag" >"$T/pl"
	BG_STDIN=$T/pl sbx_bg -t 30s --pids 50 "$@"
	wait_for sleeping_payload 20
	ok "$how: the payload runs sleep ($pl)" sleeping_payload
	lim=$(nproc_limit "$pl")
	kill -TERM "$SBX_PID"
	sbx_bg_wait 20
	if [ "$SBX_BACKEND" = namespaces ]; then
		is "$lim" 50 "$how: --pids 50 is a flat 50 in the jail's own user namespace"
	else
		# Counted before the spawn: the 20 sleeps, the 31 threads and
		# the 11 processes of the zombies' parent are in it.
		ok "$how: --pids 50 beside 62 tasks of the uid: the limit is at least 112 ($lim)" \
			test "${lim:-0}" -ge 112
		ok "$how: ... and not unbounded ($lim)" test "${lim:-0}" -lt 100000
		is "$(jget limits.pids.by "$T/bg.diag")" rlimit-uid "$how: limits.pids.by"
	fi
done
# Who counts (doc/design/startup.md, section 22): the keeper, after the
# temp dirs and beside sbxrun's own resolution. Under strace -f the walk's
# opening of /proc is made in one process, the keeper, never in sbxrun.
if [ "$SBX_BACKEND" = landlock ]; then
	if command -v strace >/dev/null 2>&1; then
		echo true >"$T/pl-true"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace -f -o "$T/count.st" -qq -e trace=openat \
		    "$SBXRUN" --backend landlock --pids 50 --diag none <"$T/pl-true" >/dev/null 2>&1
		main=$(awk 'NR == 1 { print $1 }' "$T/count.st")
		walkers=$(grep -F '"/proc", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY' "$T/count.st" |
		    awk '{ print $1 }' | sort -u | tr '\n' ' ')
		is "$(echo $walkers | wc -w)" 1 "the uid's tasks are counted by one process ($walkers)"
		ok "... the keeper, not sbxrun ($main)" test -n "$main" -a "${walkers% }" != "$main"
	else
		skip "strace is missing (./bootstrap installs it)" 2
	fi
fi
# A root caller's bounding set (doc/design/startup.md, section 23): sbxrun
# empties its own while the keeper lends the workdir, and init, the
# payload and the supervisor's threads inherit it. Under strace -f every
# drop from the bounding set is made by sbxrun's main thread; the payload
# and the threads only read theirs; the payload, born of the thread that
# emptied it, not even that (section 30). The payload's set is empty all
# the same (jail-proc.sh reads it from the host; here the payload's own
# report). Only where the caller's set holds something to drop.
if [ "$SBX_BACKEND" = landlock ] && [ "$(id -u)" = 0 ] &&
    [ "$(awk '/^CapBnd:/ { print $2 }' /proc/self/status)" != 0000000000000000 ]; then
	if command -v strace >/dev/null 2>&1; then
		echo 'grep CapBnd /proc/self/status' >"$T/pl-bnd"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace -f -o "$T/bset.st" -qq -e trace=execve,prctl \
		    "$SBXRUN" --backend landlock --diag none <"$T/pl-bnd" >"$T/bnd" 2>/dev/null
		# The first line: sbxrun's own exec.
		main=$(awk 'NR == 1 { print $1 }' "$T/bset.st")
		droppers=$(grep -F 'PR_CAPBSET_DROP' "$T/bset.st" | awk '{ print $1 }' | sort -u |
		    tr '\n' ' ')
		is "$(echo $droppers | wc -w)" 1 "root: the bounding set is emptied by one task ($droppers)"
		is "${droppers% }" "$main" "... sbxrun's main thread, not the payload or a thread"
		is "$(awk '/^CapBnd:/ { print $2 }' "$T/bnd")" 0000000000000000 \
		    "... and the payload reports an empty bounding set"
		# The payload: the task that execs the command's shell.
		payload=$(grep -F 'execve("/bin/sh"' "$T/bset.st" | awk 'NR == 1 { print $1 }')
		is "${payload:+$(grep "^$payload " "$T/bset.st" | grep -c -F PR_CAPBSET_READ)}" 0 \
		    "... which reads it no more before its exec (${payload:-no payload seen})"
	else
		skip "strace is missing (./bootstrap installs it)" 4
	fi
fi
for p in $BG_PIDS; do kill "$p" 2>/dev/null; done
wait 2>/dev/null
BG_PIDS=

# The landlock listener (doc/design/startup.md, section 26): a payload
# started in init's memory shares init's descriptor table up to its exec,
# leaves its listener there for sbxrun to take from init, and goes on to
# its exec without waiting for sbxrun. Under strace -f: the payload (the
# task that loads the listener's filter) reads nothing between that load
# and its exec, and sbxrun's pidfd_getfd() succeeds. A sanitized build
# forks the payload, which waits for sbxrun's acknowledgement as before.
if [ "$SBX_BACKEND" = landlock ]; then
	if command -v strace >/dev/null 2>&1; then
		echo true >"$T/pl-lst"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace -f -o "$T/lst.st" -qq -e trace=clone,seccomp,read,execve,pidfd_getfd \
		    "$SBXRUN" --backend landlock --diag none <"$T/pl-lst" >/dev/null 2>&1
		waited=$(awk '/NEW_LISTENER/ && !p { p = $1 }
		    p && $1 == p && / read\(/ { n++ }
		    p && $1 == p && / execve\(/ { print n + 0; exit }' "$T/lst.st")
		# A call strace shows split (another task's line between its
		# start and its "resumed" end) ends on the resumed line.
		taken=$(awk '/NEW_LISTENER/ { on = 1 }
		    on && /pidfd_getfd(\(| resumed>).*= [0-9]/ { n++ }
		    END { print n + 0 }' "$T/lst.st")
		if ldd "$SBXRUN" 2>/dev/null | grep -q libasan; then
			ok "a forked payload (sanitized build) waits for sbxrun (${waited:-none})" \
			    test "${waited:-0}" -ge 1
			nok "... sharing no descriptor table with init" \
			    grep -q 'CLONE_VM|CLONE_FILES|CLONE_VFORK' "$T/lst.st"
		else
			is "$waited" 0 "the payload goes on to its exec without waiting for sbxrun"
			ok "... started sharing init's descriptor table" \
			    grep -q 'CLONE_VM|CLONE_FILES|CLONE_VFORK' "$T/lst.st"
		fi
		ok "... and sbxrun took the listener after it was made ($taken)" test "$taken" -ge 1
	else
		skip "strace is missing (./bootstrap installs it)" 3
	fi
fi

# --- the old root detached before the payload starts (namespaces) -------------------
# After init's pivot_root the host's root lies on top of the new one, and a
# ".." from below (/usr/..) leads into it until a umount2() detaches it.
# Moving that umount2 (an RCU grace period) to a helper beside init's last
# steps was tried and dropped (doc/design/startup.md, section 27); any such
# reordering must keep it before the payload. Verdicts: a canary in the
# host's /tmp (the jail's /tmp is its own), read through every way up from
# the new root, never reaches the sandbox's output; and under strace -f the
# umount2 ends before init's clone of the payload.
if [ "$SBX_BACKEND" = namespaces ]; then
	canary=$(uniq_tag oldroot)
	printf '%s\n' "$canary" >"$T/oldroot-canary"
	chmod 644 "$T/oldroot-canary"
	jail_sh "for p in /usr/.. /usr/../.. /dev/.. /proc/1/root /proc/self/root/usr/..; do
		cat \"\$p$T/oldroot-canary\"; done 2>/dev/null
		[ \"\$(ls -a /usr/..)\" = \"\$(ls -a /)\" ] && echo same-root"
	is_status 0 "the host's /tmp, read through every way up from the new root: the run ends"
	unlike "$(output)" "$canary" "... and the canary never reaches the sandbox's output"
	like "$(output)" "same-root" "... /usr/.. lists the new root (Landlock refuses the host's)"
	if command -v strace >/dev/null 2>&1; then
		echo true >"$T/pl-old"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace --pidns-translation -f -o "$T/old.st" -qq \
		    -e trace=umount2,clone,clone3,execve \
		    "$SBXRUN" --backend namespaces --diag none <"$T/pl-old" >/dev/null 2>&1
		# Line numbers: the umount2's end, and init's clone of the
		# payload (the task that execs the shell).
		order=$(awk '
		    FNR == NR {
			if (/umount2/ && / = 0$/ && !ue) ue = FNR
			if (/ execve\(/ && FNR > 1) p = $1
			next
		    }
		    / clone\(/ { call[$1] = FNR }
		    p && /clone/ && $0 ~ ("= [0-9]+ /[*] " p " in strace") && !c { c = call[$1] }
		    END { print ue + 0, c + 0 }' "$T/old.st" "$T/old.st")
		set -- $order
		ok "the old root's umount2 ended before the payload started ($order)" \
		    test "$1" -gt 0 -a "$2" -gt 0 -a "$1" -lt "$2"
	else
		skip "strace is missing (./bootstrap installs it)" 1
	fi
fi

# --- the secret lists, resolved while the keeper works --------------------------------
canary=$(uniq_tag canary)
mkdir -p "$HOME/.aws" "$HOME/.ssh"
printf '%s\n' "$canary" >"$HOME/.aws/credentials"
printf '%s\n' "$canary" >"$HOME/.ssh/id_ed25519"
notes=$(uniq_tag notes)
echo "$notes" >"$HOME/notes.txt"
# Readable by the sandbox's ids: only the secret list keeps them out of
# "--fs open".
chmod -R a+rX "$HOME"
for how in temp workdir; do
	if [ $how = temp ]; then set --; else new_wd; set -- -w "$WD"; fi
	jail_sh "cat '$HOME/.aws/credentials' '$HOME/.ssh/id_ed25519' '$HOME/notes.txt' 2>&1; echo ran" \
		--fs open "$@"
	like "$(cat "$T/out")" "$notes" "$how: the payload ran and read a file of the home"
	unlike "$(output)" "$canary" "$how: no secret of the caller's home reaches the output"
done

# --- a file the sandbox makes in -w is the caller's on disk (idmapped under ns) ---------
new_wd
jail_sh 'echo x >made; mkdir dir' -w "$WD"
is_status 0 "-w: the run"
is "$(stat -c %u "$WD/made" 2>/dev/null)" "$(id -u)" "-w: the file made is the caller's on disk"
is "$(stat -c %u "$WD/dir" 2>/dev/null)" "$(id -u)" "-w: the directory made is the caller's on disk"

# --- nothing of a default run is left in $TMPDIR -----------------------------------------
before=$(leftovers | grep -c '^sbxrun')
i=0
while [ $i -lt 5 ]; do
	jail_sh 'echo x >f; mkdir -p a/b; echo y >a/b/c; echo z >"$TMPDIR/t"'
	i=$((i + 1))
done
is "$(leftovers | grep -c '^sbxrun')" "$before" "five default runs leave no temp workdir or private TMPDIR"

# --- sbxrun killed while its temp dirs are made --------------------------------------------
# The keeper makes the temp workdir (and, under landlock, the private
# TMPDIR) and records each before sbxrun learns of it; its answer carries
# the directory's descriptor, which sbxrun keeps instead of asking again.
# strace kills sbxrun at its Nth message to the keeper (the call itself
# is not made): the first requests, the later ones, and whatever comes
# after, up to the undo after the run; each time nothing may be left in
# $TMPDIR. --keep makes both backends use an on-disk temp workdir; a kill
# before the run is over skips the keep (after it, the keep's FORGET has
# been sent and the directory is kept, as asked). Messages under
# namespaces: MKDTEMP, UNDO_RUN; under landlock: MKDTEMP, MKDTEMP, COUNT,
# (a root caller's LEND,) WATCH, UNDO_RUN.
if [ "${SBX_BACKEND:-namespaces}" = landlock ]; then msgs="1 2 3 4 5"; else msgs="1 2"; fi
# After a failure: what is left, and where each keeper waits (a keeper
# still running holds its record of the directory).
keeper_report() {
	diag "left: $(leftovers | tr '\n' ' ')"
	for _k in $(pgrep -x sbxrun-keeper); do
		diag "keeper $_k: $(ps -o stat=,etimes=,wchan:32= -p "$_k" 2>/dev/null)" \
		    "  $(tr '\n' ' ' <"/proc/$_k/stack" 2>/dev/null)" \
		    "  fds: $(ls -l "/proc/$_k/fd" 2>/dev/null | awk 'NR > 1 { print $NF }' | tr '\n' ' ')"
	done
	wait_for '[ "$(leftovers | grep -c "^sbxrun")" = "$before" ]' 60 &&
		diag "... gone within another 60 s"
}
if command -v strace >/dev/null 2>&1; then
	before=$(leftovers | grep -c '^sbxrun')
	echo true >"$T/pl-true"
	for n in $msgs; do
		strace -o /dev/null -qq -e trace=sendmsg \
		    -e inject=sendmsg:error=EPIPE:signal=SIGKILL:when=$n \
		    "$SBXRUN" --backend "${SBX_BACKEND:-namespaces}" --keep --diag none \
		    <"$T/pl-true" >/dev/null 2>&1
		wait_for '[ "$(leftovers | grep -c "^sbxrun")" = "$before" ]' 20
		is "$(leftovers | grep -c '^sbxrun')" "$before" \
		    "killed at its message $n to the keeper: no temp dir is left in \$TMPDIR" ||
			keeper_report
	done
	# The keeper killed before its first answer, with both MKDTEMPs
	# already sent (it dies at its setsid(), the first in the tree, before
	# it reads a request): a clear error, 125, and nothing made. sbxrun
	# exits under ptrace here, where LeakSanitizer cannot run.
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -o /dev/null -qq -e trace=setsid \
	    -e inject=setsid:signal=SIGKILL:when=1 \
	    "$SBXRUN" --backend "${SBX_BACKEND:-namespaces}" --keep --diag none \
	    <"$T/pl-true" >/dev/null 2>"$T/early.err"
	is "$?" 125 "the keeper killed before it is ready: status 125"
	like "$(cat "$T/early.err")" "keeper" "... and the error names the keeper"
	is "$(leftovers | grep -c '^sbxrun')" "$before" "... and nothing is left in \$TMPDIR"
else
	skip "strace is missing (./bootstrap installs it)" "$(($(echo $msgs | wc -w) + 3))"
fi

# --- the keeper's CPUs ------------------------------------------------------------------
# Asked for the temp dirs before sbxrun waits for its start, the keeper
# works on the caller's other CPUs, and gets the caller's mask back at
# sbxrun's first wait for it (keeper.h): during the run it may run on every
# CPU the caller may, like any process the caller starts. Read from the
# host while the payload sleeps. Under namespaces only an on-disk temp
# workdir (--keep) has the keeper make it.
cpus_of() {
	awk '/^Cpus_allowed_list:/ { print $2 }' "/proc/$1/status" 2>/dev/null
}
if [ "$SBX_BACKEND" = landlock ]; then set --; else set -- --keep; fi
printf 'exec sleep 301.%s\n' "$$" >"$T/pl"
BG_STDIN=$T/pl sbx_bg -t 30s "$@"
wait_for sleeping_payload 20
keeper=$(pgrep -x -P "$SBX_PID" sbxrun-keeper | head -n 1)
ok "a keeper runs beside the sleeping payload ($keeper)" test -n "$keeper"
is "$(cpus_of "$keeper")" "$(cpus_of $$)" \
    "the keeper may run on every CPU the caller may, once sbxrun has waited for it"
kill -TERM "$SBX_PID"
sbx_bg_wait 20
kept=$(jget workdir "$T/bg.diag")
case $kept in "$TMPDIR"/sbxrun.* | /tmp/sbxrun.*) rm -rf "$kept" ;; esac

# --- a temp workdir's output: handed back only when kept ----------------------------------
# A root caller's landlock workdir is lent to uid 65534 and handed back
# after the run; a temp workdir that is not kept is removed whole
# instead, so the keeper does not walk what the sandbox left in it
# (counted on the host: every fchownat of the whole run, strace -f; the
# payload makes 3,000 files and calls none). A kept one is handed back:
# what the sandbox made there is the caller's, at any depth.
mkfiles='i=0; while [ $i -lt 3000 ]; do : >f$i; i=$((i + 1)); done; mkdir -p d/e; : >d/e/g'
if [ "$(id -u)" = 0 ] && [ "${SBX_BACKEND:-namespaces}" = landlock ]; then
	if command -v strace >/dev/null 2>&1; then
		printf '%s\n' "$mkfiles; ls | wc -l" >"$T/pl-files"
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace -f -qq -o "$T/fchown" -c -e trace=fchownat \
		    "$SBXRUN" --backend landlock --diag none <"$T/pl-files" >"$T/made" 2>/dev/null
		is "$(tr -d ' ' <"$T/made")" 3001 "root, temp workdir: the counted run made its 3,000 files (and d)"
		# The fourth column is the count (an errors column may follow).
		n=$(awk '$NF == "total" { print $4 }' "$T/fchown")
		ok "root, temp workdir of 3,000 files made in the run: the keeper hands none back (${n:-no} fchownat)" \
		    [ "${n:-99999}" -le 20 ]
	else
		skip "strace is missing (./bootstrap installs it)" 2
	fi
fi
jail_sh "$mkfiles" --keep
kept=$(jget workdir)
is "$SBX_STATUS" 0 "--keep: the run"
is "$(stat -c %u "$kept/f2999" 2>&1) $(stat -c %u "$kept/d/e/g" 2>&1)" "$(id -u) $(id -u)" \
    "--keep: what the sandbox made in the kept temp workdir is the caller's"
case $kept in
"$TMPDIR"/sbxrun.*) rm -rf "$kept" ;;
esac

# --- init reaped last (section 24) -----------------------------------------------------
# Init writes its end message once it has reaped the rest of the tree;
# sbxrun then ends the run, report included, while init's own exit (under
# namespaces the teardown of the jail's namespaces) runs, and reaps init
# just before it exits. Under strace -f: sbxrun's diagnostics line is
# written before its wait for init returns (before, the wait came first).
# That init is reaped at all is the next test's.
if command -v strace >/dev/null 2>&1; then
	echo true >"$T/pl-true"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -qq -o "$T/end.st" -e trace=execve,write,wait4 \
	    "$SBXRUN" --backend "$SBX_BACKEND" --diag fd:3 <"$T/pl-true" >/dev/null 2>&1 3>"$T/end.diag"
	is "$(jget exit_code "$T/end.diag")" 0 "the traced run ended well"
	"$PY" - "$T/end.st" >"$T/end.order" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
# sbxrun's main thread made the first call traced (its execve); its only
# writes to descriptor 3 are the diagnostics line. (The text is not
# matched: sbxrun is not dumpable, and a caller other than root sees
# addresses where strings were.)
main = lines[0].split()[0] if lines else ""
diag = wait = None
for i, l in enumerate(lines):
    f = l.split(None, 1)
    if len(f) < 2 or f[0] != main:
        continue
    if diag is None and f[1].startswith("write(3, "):
        diag = i
    m = re.match(r"wait4\((\d+), .*__WALL.* = (\d+)$", f[1])
    if wait is None and m and m.group(1) == m.group(2):
        wait = i
print("diag before init's wait" if diag is not None and wait is not None and diag < wait
      else "diag at %s, init's wait at %s" % (diag, wait))
PY
	is "$(cat "$T/end.order")" "diag before init's wait" \
	    "the report is written before init's exit is waited for"
else
	skip "strace is missing (./bootstrap installs it)" 2
fi

# --- a secret that is not there is looked up once -------------------------------------------
# The secret list is a snapshot taken as the run starts (doc/design/
# secrets.md): a name with no entry at all when the resolution reads it
# is missing for the plan too (doc/design/startup.md, section 28). Under
# strace -f: the name is looked up by the resolution's realpath, and
# neither the plan (statx of its type) nor the resolution's identity and
# hard-link checks (stat) ask for it again. The same name as a dangling
# symlink exists, and the plan still asks what it is.
echo true >"$T/pl-true"
if command -v strace >/dev/null 2>&1; then
	ghost=$T/ghost-secret
	mkdir -p "$T/dangle"
	ln -sfn "$T/dangle/target" "$T/dangle/link"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -qq -o "$T/ghost.st" -e trace=statx,newfstatat,stat,lstat,readlink \
	    "$SBXRUN" --backend "${SBX_BACKEND:-namespaces}" --diag none \
	    --deny-read "$ghost" --deny-read "$T/dangle/link" \
	    <"$T/pl-true" >/dev/null 2>&1
	is "$(grep -F "\"$ghost\"" "$T/ghost.st" | grep -c -v readlink)" 0 \
	    "a missing secret: no stat or statx of it after its realpath"
	is "$(grep -F "\"$ghost\"" "$T/ghost.st" | grep -c readlink)" 1 "... whose readlink found it missing"
	ok "a dangling symlink secret: its type is still asked" \
	    grep -q -F "statx(AT_FDCWD, \"$T/dangle/link\"" "$T/ghost.st"
else
	skip "strace is missing (./bootstrap installs it)" 3
fi
# A hidden path inside a readable tree has its type looked up once, by the
# view; the rules' walk takes it from there (section 28). /etc/shadow is
# such a path in a default run (strict: /etc is readable).
if ! command -v strace >/dev/null 2>&1; then
	skip "strace is missing (./bootstrap installs it)" 1
elif [ ! -f /etc/shadow ]; then
	skip "this system has no /etc/shadow to count the lookups of" 1
else
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -f -qq -o "$T/shadow.st" -e trace=statx \
	    "$SBXRUN" --backend "${SBX_BACKEND:-namespaces}" --diag none \
	    <"$T/pl-true" >/dev/null 2>&1
	is "$(grep -F '"/etc/shadow"' "$T/shadow.st" | grep -c STATX_TYPE)" 1 \
	    "/etc/shadow, hidden in a readable tree: its type is asked once"
fi
# Init makes each file it mounts on (the devices in the new root) with
# openat2 beneath the new root and mounts on that descriptor: dev/null is
# made once, and not looked up again in the directory it was made in (an
# unprivileged caller's init also opens the host's, from the old root).
if [ "${SBX_BACKEND:-namespaces}" = namespaces ]; then
	if command -v strace >/dev/null 2>&1; then
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace -f -qq -o "$T/devnull.st" -e trace=open,openat,openat2 \
		    "$SBXRUN" --backend namespaces --diag none <"$T/pl-true" >/dev/null 2>&1
		again=$(awk '/"dev\/null"/ && /O_CREAT/ { made++; split($2, a, "("); dir = a[2] }
		    /"dev\/null"/ && /O_PATH/ { split($2, a, "("); if (a[2] == dir) n++ }
		    END { print made + 0, n + 0 }' "$T/devnull.st")
		is "$again" "1 0" \
		    "the new root's dev/null: made once, and mounted on without a second lookup"
	else
		skip "strace is missing (./bootstrap installs it)" 1
	fi
fi

# --- the keeper is reaped ---------------------------------------------------------------
# The keeper (src/keeper.c) is sbxrun's own clone child and is reaped
# before sbxrun returns. A caller to which orphans come back (a child
# subreaper, as a container's pid 1 is) and which never reaps them must
# find nothing of the runs left under it, not even a zombie: with the
# keeper an orphan, each run left one (three runs, three zombies).
new_wd
python3 - "$SBXRUN" "$SBX_BACKEND" "$WD" >"$T/left" 2>&1 <<'PY'
import ctypes, os, subprocess, sys, time
sbxrun, backend, wd = sys.argv[1], sys.argv[2] or "namespaces", sys.argv[3]
if ctypes.CDLL(None).prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
    sys.exit("prctl failed")
for args in ([], ["-w", wd], ["-w", wd]):
    subprocess.run([sbxrun, "--backend", backend, "--diag", "none"] + args,
                   input=b"true\n", stdout=subprocess.DEVNULL, check=True)
time.sleep(0.3)
for e in os.listdir("/proc"):
    if e.isdigit():
        try:
            st = open("/proc/%s/stat" % e).read()
        except OSError:
            continue
        rest = st[st.rindex(")") + 2:].split()
        if int(rest[1]) == os.getpid():
            print(st[:st.rindex(")") + 3])
PY
is "$(cat "$T/left")" "" "three runs leave nothing under a caller that never reaps (no zombie keeper)"

# --- the end of a run: sbxrun's own work beside init's and the keeper's ----------------
# (doc/design/startup.md, section 29.) sbxrun's main thread, traced alone:
# the supervisor is stopped by a one-byte write to its wake pipe and freed
# (that pipe closed) before init is reaped (wait4 with __WALL), so that
# the frees run during init's exit; and under landlock the keeper's last
# message, FINISH, goes before that stop, so that its removals run during
# it, and the undo before it (UNDO_RUN) is not waited for when the
# workdir is a temp one that goes whole: no read between the two (section
# 30). With -w the undo is waited for, before the git guard looks at the
# workdir. The order of one process's own calls: no timing in it.
if command -v strace >/dev/null 2>&1; then
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
	    strace -qq -o "$T/end" -e trace=sendmsg,write,close,wait4,recvmsg,recvfrom \
	    "$SBXRUN" --backend "${SBX_BACKEND:-namespaces}" --diag none <"$T/pl-true" >/dev/null 2>&1
	# The last one-byte write (its text is not shown where the
	# supervisor's drop made sbxrun undumpable, as for sbxtest).
	wake=$(sed -n 's/^write(\([0-9]*\), .*, 1) *= 1$/\1/p' "$T/end" | tail -n 1)
	ok "the end: the supervisor was stopped (a wake write seen)" test -n "$wake"
	line_of() {
		grep -n "$1" "$T/end" | tail -n 1 | cut -d: -f1
	}
	stop=$(line_of "^write($wake, .*, 1) *= 1$")
	freed=$(line_of "^close($wake)")
	reaped=$(line_of "__WALL")
	ok "the end: sbxrun frees the supervisor ($freed) before it reaps init ($reaped)" \
	    test -n "$freed" -a -n "$reaped" -a "${freed:-0}" -gt "${stop:-0}" -a "${freed:-0}" -lt "${reaped:-0}"
	if [ "${SBX_BACKEND:-namespaces}" = landlock ]; then
		finish=$(line_of "^sendmsg(")
		ok "the end: the keeper's FINISH ($finish) goes before the supervisor's stop ($stop)" \
		    test -n "$finish" -a "${finish:-0}" -lt "${stop:-0}"
		# The lines from the undo's sendmsg to the FINISH's: what sbxrun
		# read from the keeper between them.
		# "none" when fewer than two messages were sent.
		between() {
			grep -n '^sendmsg(' "$1" | tail -n 2 | cut -d: -f1 | tr '\n' ' ' | {
				read -r u f
				if [ -n "$f" ]; then
					sed -n "$u,${f}p" "$1" | grep -c '^recv'
				else
					echo none
				fi
			}
		}
		is "$(between "$T/end")" 0 \
		    "the end, temp workdir: the undo is not waited for before the FINISH is sent"
		new_wd
		ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" \
		    strace -qq -o "$T/end-w" -e trace=sendmsg,recvmsg,recvfrom \
		    "$SBXRUN" --backend landlock --diag none -w "$WD" <"$T/pl-true" >/dev/null 2>&1
		n=$(between "$T/end-w")
		ok "the end, -w: the undo's answer is read before the FINISH is sent ($n reads)" \
		    test "$n" != none -a "$n" != 0
	fi
else
	skip "strace is missing (./bootstrap installs it)" \
	    "$([ "${SBX_BACKEND:-namespaces}" = landlock ] && echo 5 || echo 2)"
fi

done_testing
