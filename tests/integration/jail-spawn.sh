# How the payload is started (doc/design/startup.md): under landlock, init
# starts it in init's own memory (clone with CLONE_VM | CLONE_VFORK) and
# it searches the command itself. Whatever the payload's setup or exec
# does, init must come back intact: the exec's failure is reported with
# its status, nothing is left running, a root caller's workdir is handed
# back; a signal to sbxrun during the start must end the run the same
# way; the command is searched in the sandbox's PATH, never the caller's.
# Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

# handed_back DESC: a root caller's workdir is root's again (a lend to
# uid 65534 was undone), checked from the host.
handed_back() {
	if [ "$(id -u)" != 0 ]; then
		pass "$1 (not root: nothing lent)"
		return 0
	fi
	is "$(find "$WD" ! -user 0 | head -n 3)" "" "$1"
}

# --- a failing exec: init resumes and reports it ----------------------------------
new_wd
m=$(uniq_tag noexec)
jail -w "$WD" -- "./$m"
is_status 127 "a missing command: 127"
like "$(cat "$T/err")" "$m" "a missing command: the message names it"
handed_back "a missing command: the workdir is handed back"
no_survivors "a missing command: nothing is left" "$m"

printf 'x\n' >"$WD/plain"
chmod 644 "$WD/plain"
jail -w "$WD" -- ./plain
is_status 126 "a file without the execute bit: 126"
handed_back "a file without the execute bit: the workdir is handed back"

# A script without #! goes to /bin/sh, with its arguments (as execvpe(3)).
printf 'echo "$1-$2" >"%s/ran"\n' "$WD" >"$WD/noshebang"
chmod 755 "$WD/noshebang"
jail -w "$WD" -- ./noshebang a b
is_status 0 "a script without #!: status 0"
is "$(cat "$WD/ran" 2>/dev/null)" "a-b" "a script without #!: it ran with its arguments (host side)"
handed_back "a script without #!: the workdir is handed back"

# Many failing starts in a row, then a good one: init's state does not
# drift (a payload writing init's memory would show as a crash or a hang).
new_wd
i=0
bad=0
while [ $i -lt 20 ]; do
	jail -w "$WD" -- "./missing-$i"
	[ "$SBX_STATUS" = 127 ] || bad=$((bad + 1))
	i=$((i + 1))
done
is "$bad" 0 "20 failing execs in a row: each reported as 127"
jail_sh "echo ok >\"$WD/after\"" -w "$WD"
is_status 0 "a run after them: status 0"
is "$(cat "$WD/after" 2>/dev/null)" ok "a run after them: it ran (host side)"

# --- the search uses the sandbox's PATH, not the caller's -------------------------
new_wd
mkdir "$WD/fakebin"
printf '#!/bin/sh\necho fake >"%s/fake-ran"\n' "$WD" >"$WD/fakebin/true"
chmod 755 "$WD/fakebin" "$WD/fakebin/true"
PATH="$WD/fakebin:$PATH" jail -w "$WD" -- true
is_status 0 "true found in the sandbox's PATH: status 0"
absent "the caller's PATH is not searched (host side)" "$WD/fake-ran"

# --- the caller's CPU mask -------------------------------------------------------
# sbxrun keeps the start's hand-overs on one CPU (doc/design/startup.md,
# section 9); the command, init and sbxrun's own threads must all have the
# caller's mask back once the command runs. Read from the host.
cpus_of() {
	sed -n 's/^Cpus_allowed_list:[[:space:]]*//p' "$1" 2>/dev/null
}
mine=$(cpus_of /proc/self/status)
# masks_back PID INIT: the command PID, its init INIT and every thread of
# sbxrun show the caller's mask. Init gives it back just before it starts
# the payload, which inherits it; sbxrun's threads once the spawn returns:
# after the command runs, not before (a busy machine can make that a while).
masks_back() {
	[ "$(cpus_of "/proc/$1/status")" = "$mine" ] &&
	    [ "$(cpus_of "/proc/$2/status")" = "$mine" ] || return 1
	for _mt in /proc/"$SBX_PID"/task/*; do
		[ "$(cpus_of "$_mt/status")" = "$mine" ] || return 1
	done
}
case $mine in
*[-,]*)
	new_wd
	m=$(uniq_tag cpumask)
	printf "exec sh -c 'sleep 30; :' %s\n" "$m" >"$T/bgscript"
	BG_STDIN=$T/bgscript sbx_bg -w "$WD"
	wait_for 'pgrep -f "$m" >/dev/null' 20
	pid=$(pgrep -f "$m" | head -n 1)
	init=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
	# Polled up to 20 s, then each is checked (a mask that never comes
	# back still fails).
	wait_for 'masks_back "$pid" "$init"' 20
	is "$(cpus_of "/proc/$pid/status")" "$mine" "the command has the caller's CPU mask (host side)"
	is "$(cpus_of "/proc/$init/status")" "$mine" "init has the caller's CPU mask (host side)"
	bad=0
	for t in /proc/"$SBX_PID"/task/*; do
		c=$(cpus_of "$t/status")
		[ "$c" = "$mine" ] || { bad=$((bad + 1)); diag "$t ($(cat "$t/comm" 2>/dev/null)): $c"; }
	done
	is "$bad" 0 "every thread of sbxrun has the caller's CPU mask (host side)"
	kill -TERM "$SBX_PID" 2>/dev/null
	sbx_bg_wait 20
	no_survivors "the CPU mask run: nothing is left" "$m"
	;;
*) skip "a single CPU ($mine): nothing to hold or give back" 4 ;;
esac

# --- the jail's network and IPC namespaces --------------------------------------
# Under namespaces, init has a helper make the network namespace beside
# its start, on another CPU, or makes it itself when there is none, and
# makes the IPC namespace itself once its root is built
# (doc/design/startup.md, sections 17 and 19). Read from the host,
# with the caller's mask and on one CPU: the command and init are in one
# network and one IPC namespace, neither the host's, each owned by the
# jail's user namespace; init has no child but the command (the helper is
# gone). Under both backends, the host's SysV message queue, open to
# everyone, takes nothing the command sends it by id, and no queue the
# command makes is the host's to see: under namespaces the command makes
# one in its own IPC namespace, under landlock (the host's namespace) the
# filter refuses both calls.
cat >"$T/nsof.py" <<'PYEOF'
import fcntl, os, sys
NS_GET_USERNS = 0xB701
pid, kind = sys.argv[1:3]
fd = os.open("/proc/%s/ns/%s" % (pid, kind), os.O_RDONLY)
owner = fcntl.ioctl(fd, NS_GET_USERNS)
print("%d %d %d" % (os.fstat(fd).st_ino, os.fstat(owner).st_ino,
                    os.stat("/proc/%s/ns/user" % pid).st_ino))
PYEOF
# In the jail: a message into queue id argv[1], a queue of its own with
# key argv[2]; says what each call returned.
cat >"$T/sysv.py" <<'PYEOF'
import ctypes, sys
libc = ctypes.CDLL(None, use_errno=True)
msg = ctypes.create_string_buffer(b"\x01\0\0\0\0\0\0\0x")
sent = libc.msgsnd(int(sys.argv[1]), msg, 1, 0o4000)  # IPC_NOWAIT
made = libc.msgget(int(sys.argv[2]), 0o1000 | 0o600)  # IPC_CREAT
print("sent %d made %d" % (sent, made))
PYEOF
host_net=$(stat -L -c %i /proc/self/ns/net)
host_ipc=$(stat -L -c %i /proc/self/ns/ipc)
passes=mask
[ "$SBX_BACKEND" = namespaces ] && passes="mask one"
for cpus in $passes; do
	new_wd
	cp "$T/sysv.py" "$WD/sysv.py"
	m=$(uniq_tag netns)
	qid=$(ipcmk -Q -p 0666 | sed -n 's/^Message queue id: *//p')
	key=$(( $(od -An -N3 -tu4 /dev/urandom | tr -d ' ') + 4096 ))
	printf "python3 sysv.py %s %s\nexec sh -c 'sleep 30; :' %s\n" \
	    "$qid" "$key" "$m" >"$T/bgscript"
	if [ "$cpus" = one ]; then
		BG_ONE_CPU=1 BG_STDIN=$T/bgscript sbx_bg -w "$WD"
	else
		BG_STDIN=$T/bgscript sbx_bg -w "$WD"
	fi
	wait_for 'pgrep -f "$m" >/dev/null' 20
	pid=$(pgrep -f "$m" | head -n 1)
	init=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
	if [ "$SBX_BACKEND" = namespaces ]; then
		for kind in net ipc; do
			cmd_ns=$("$PY" "$T/nsof.py" "$pid" "$kind" 2>&1)
			init_ns=$("$PY" "$T/nsof.py" "$init" "$kind" 2>&1)
			eval "host=\$host_$kind"
			diag "$cpus: host $kind $host; command: $cmd_ns; init: $init_ns"
			# Split on purpose: the three inodes.
			# shellcheck disable=SC2086
			set -- $cmd_ns
			own=no
			[ -n "${1:-}" ] && [ "$1" != "$host" ] && own=yes
			is "$own" yes "$cpus: the command's $kind namespace is not the host's (host side)"
			is "${2:-}" "${3:-x}" "$cpus: its $kind namespace is owned by the jail's user namespace (host side)"
			is "$init_ns" "$cmd_ns" "$cpus: init is in the same $kind namespace (host side)"
		done
		is "$(cat "/proc/$init/task/$init/children" 2>/dev/null | tr -d ' ')" "$pid" \
		    "$cpus: init has no child but the command (host side)"
	fi
	# The command's line may still be in sbxrun's relay.
	wait_for 'grep -q "^sent " "$T/bg.out"' 20
	tried=no
	case $SBX_BACKEND:$(cat "$T/bg.out") in
	namespaces:"sent -1 made "[0-9]* | landlock:"sent -1 made -1") tried=yes ;;
	esac
	is "$tried" yes "$cpus: the command tried the host's queue and to make one"
	[ "$tried" = yes ] || diag "command said: $(cat "$T/bg.out" "$T/bg.err")"
	is "$(ipcs -q -i "$qid" 2>&1 | sed -n 's/.*qnum=\([0-9]*\).*/\1/p')" 0 \
	    "$cpus: the host's open queue took nothing from the jail (host side)"
	keyhex=$(printf '0x%08x' "$key")
	is "$(ipcs -q | grep -c "^$keyhex ")" 0 \
	    "$cpus: no queue of the jail's is in the host's IPC namespace (host side)"
	ipcrm -q "$qid" 2>/dev/null
	# Only when the check above failed: the jail's queue on the host.
	ipcrm -Q "$keyhex" 2>/dev/null
	kill -TERM "$SBX_PID" 2>/dev/null
	sbx_bg_wait 20
	no_survivors "$cpus: nothing is left" "$m"
done
if [ "$SBX_BACKEND" = namespaces ]; then
	# --network on: the UDP relay's tun device is persistent, so that
	# sbxrun's last close does not unregister it on its way out (21-27
	# ms: doc/design/udp-relay.md); it goes with the jail's network
	# namespace. Root holds that namespace from the host past the run
	# and lists its devices from inside it.
	if [ "$(id -u)" = 0 ]; then
		cat >"$T/holdns.py" <<'PYEOF'
import ctypes, os, socket, sys, time
pid, held, go = sys.argv[1:4]
fd = os.open("/proc/%s/ns/net" % pid, os.O_RDONLY)
open(held, "w").close()
for _ in range(400):
    if os.path.exists(go):
        break
    time.sleep(0.05)
if ctypes.CDLL(None, use_errno=True).setns(fd, 0x40000000) != 0:
    sys.exit("setns: errno %d" % ctypes.get_errno())
print(" ".join(sorted(n for _, n in socket.if_nameindex())))
PYEOF
		new_wd
		m=$(uniq_tag tun)
		printf "exec sh -c 'sleep 30; :' %s\n" "$m" >"$T/bgscript"
		BG_STDIN=$T/bgscript sbx_bg -w "$WD" --network on
		wait_for 'pgrep -f "$m" >/dev/null' 20
		pid=$(pgrep -f "$m" | head -n 1)
		rm -f "$T/held" "$T/go"
		"$PY" "$T/holdns.py" "$pid" "$T/held" "$T/go" >"$T/devs" 2>&1 &
		hold=$!
		wait_for '[ -e "$T/held" ]' 20
		kill -TERM "$SBX_PID" 2>/dev/null
		sbx_bg_wait 20
		touch "$T/go"
		wait "$hold"
		is "$(cat "$T/devs")" "lo sbx0" \
		    "--network on: the tun device outlives sbxrun's close, with its namespace (host side)"
		no_survivors "--network on: nothing is left" "$m"
	fi
fi

# --- signals to sbxrun while the payload starts -----------------------------------
# Each run must end (bounded wait), leave nothing running and hand a root
# caller's workdir back. The payload sleeps 30 s (its marker in a shell's
# $0), so a signal that is lost shows as a run that goes on.
#
# sbx_bg's $SBX_PID is a shell, then the python wrapper that puts SIGINT
# and SIGHUP back to their defaults, and only then sbxrun: a signal sent
# before that exec kills the wrapper (sbxrun never runs) or, SIGINT, is
# ignored. So each run waits until the process is sbxrun ("comm": "exe"
# cannot be read once sbxrun made itself not dumpable), polled without a
# pause, then sends the signal at a spread moment of the start: at once,
# then after a growing idle loop. Where it lands depends on the machine's
# load; what is checked does not: sbxrun dies of it (128+N) before its
# signalfd, and after it ends the tree with SIGTERM (143).
#
# A root caller lands it inside the set-up on purpose too: tests/holdcall
# runs sbxrun and holds one call of its set-up until told to go on
# (landlock: the keeper's lend of the workdir to uid 65534, which sbxrun
# waits for; namespaces: init's mkdirat of the workdir's mount point in the
# new root). The signal is sent while the call is held, then it goes on:
# sbxrun must end the tree (143, "stopped by SIGx"), or, killed, leave
# init and the keeper to do it. Only a root caller's runs are held: the
# lend is a root caller's alone, and a test machine may not let another
# caller trace (Yama's ptrace_scope, a container's seccomp profile).
SBX_COMM=$(basename "$SBXRUN" | cut -c1-15)
HOLDCALL=${HOLDCALL:-$(dirname "$SBXRUN")/tests/holdcall}
# (A sanitized build's leak check cannot run under ptrace.)
NOLEAK="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

# runs_sbxrun PID: PID has exec'd sbxrun (a builtin read: no fork).
runs_sbxrun() {
	_rc=
	read -r _rc 2>/dev/null <"/proc/$1/comm"
	[ "$_rc" = "$SBX_COMM" ]
}

# exec_wait PID: until PID runs sbxrun: polled without a pause first (the
# exec comes within milliseconds), then every 0.1 s up to 20 s.
exec_wait() {
	_ew=0
	while [ $_ew -lt 50000 ]; do
		runs_sbxrun "$1" && return 0
		_ew=$((_ew + 1))
	done
	wait_for "runs_sbxrun $1" 20
}

# ended_within PID SECS: PID is gone or a zombie within SECS.
ended_within() {
	_ed=0
	while kill -0 "$1" 2>/dev/null &&
	    [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$1/status" 2>/dev/null)" != Z ]; do
		_ed=$((_ed + 1))
		[ $_ed -ge $(($2 * 10)) ] && return 1
		sleep 0.1
	done
}

# kill_held HC SIG [init]: once tests/holdcall HC has held its call
# ($T/held), sends SIG to its one child, sbxrun (with init: to sbxrun's
# init and the payload it started, not to the keeper), lets the call go
# on ($T/go) and waits up to 20 s for HC: $sent is yes when SIG was sent,
# $st HC's status (hung: killed after the 20 s). With init, the payload is
# waited for first: init forks it beside sbxrun's held call, and one forked
# between the listing and init's death would start alone (it dies of its
# PDEATHSIG, a run ended by SIGKILL: not the start the caller asked for).
kill_held() {
	sent=no
	if wait_for "[ -s '$T/held' ]" 60; then
		_sbx=$(pgrep -P "$1" | head -n 1)
		if [ "${3:-}" != init ]; then
			[ -n "$_sbx" ] && runs_sbxrun "$_sbx" && kill -"$2" "$_sbx" && sent=yes
		else
			for _c in $(pgrep -P "$_sbx"); do
				[ "$(cat "/proc/$_c/comm" 2>/dev/null)" = sbxrun ] || continue
				wait_for "[ -n \"\$(pgrep -P $_c)\" ]" 20
				for _p in $(pgrep -P "$_c"); do kill -"$2" "$_p"; done
				kill -"$2" "$_c" && sent=yes
			done
		fi
	fi
	: >"$T/go"
	if ended_within "$1" 20; then
		wait "$1"
		st=$?
	else
		kill -KILL "$1" 2>/dev/null
		wait "$1" 2>/dev/null
		st=hung
	fi
}

for sig in TERM:15 INT:2 HUP:1 KILL:9; do
	signum=${sig#*:}
	sig=${sig%:*}
	# What a run may end with: killed by the signal before sbxrun's
	# signalfd, or the tree ended with SIGTERM after it.
	case $sig in
	KILL) okst=137 ;;
	TERM) okst=143 ;;
	*) okst="$((128 + signum)) or 143" ;;
	esac
	new_wd
	m=$(uniq_tag spawnsig$sig)
	printf "exec sh -c 'sleep 30; :' %s\n" "$m" >"$T/bgscript"
	hung=0
	unstarted=0
	badst=
	sts=
	n=0
	while [ $n -lt 8 ]; do
		BG_STDIN=$T/bgscript sbx_bg -w "$WD"
		if exec_wait "$SBX_PID"; then
			# A spread moment: 0, 50, 200, ... 2450 idle turns
			# (a few ms in all, about sbxrun's start).
			k=0
			while [ $k -lt $((n * n * 50)) ]; do k=$((k + 1)); done
			kill -"$sig" "$SBX_PID" 2>/dev/null
		else
			unstarted=$((unstarted + 1))
		fi
		ended_within "$SBX_PID" 20 || hung=$((hung + 1))
		kill -KILL "$SBX_PID" 2>/dev/null
		wait "$SBX_PID" 2>/dev/null
		st=$?
		sts="$sts $st"
		case $sig:$st in
		KILL:137) ;;
		KILL:*) badst="$badst $st" ;;
		*:$((128 + signum)) | *:143) ;;
		*) badst="$badst $st" ;;
		esac
		n=$((n + 1))
	done
	diag "SIG$sig after the exec: statuses$sts"
	is "$hung:$unstarted" 0:0 "SIG$sig once sbxrun runs (8 runs): each ran and ended within 20 s"
	is "${badst:-none}" none "SIG$sig once sbxrun runs: each ended with $okst"

	# One run held in the set-up (root).
	if [ "$(id -u)" != 0 ]; then
		if [ "$sig" = KILL ]; then nheld=2; else nheld=3; fi
		skip "needs a root caller: tests/holdcall traces sbxrun" "$nheld"
	elif [ ! -x "$HOLDCALL" ]; then
		fail "SIG$sig held in the set-up: tests/holdcall is missing at $HOLDCALL (make check builds it)"
	else
		rm -f "$T/held" "$T/go"
		wdreal=$(cd "$WD" && pwd -P)
		if [ "$SBX_BACKEND" = landlock ]; then
			what="the keeper's lend of the workdir"
			call=fchownat
			pat="$wdreal||65534|*"
		else
			what="init's mkdirat of the workdir's mount point"
			call=mkdirat
			pat="*|${wdreal#/}|*"
		fi
		# As sbx_bg: SIGINT and SIGHUP back to their defaults first.
		ASAN_OPTIONS=$NOLEAK "$PY" -c '
import os, signal, sys
for s in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM, signal.SIGQUIT):
    signal.signal(s, signal.SIG_DFL)
os.execv(sys.argv[1], sys.argv[1:])
' "$HOLDCALL" -s "$call" -m "$pat" -H "$T/held" -g "$T/go" -- \
		    "$SBXRUN" --diag fd:3 --backend "$SBX_BACKEND" -w "$WD" \
		    <"$T/bgscript" >"$T/bg.out" 2>"$T/bg.err" 3>"$T/bg.diag" &
		hc=$!
		JAIL_PIDS="$JAIL_PIDS $hc"
		kill_held "$hc" "$sig"
		held=no
		# $pat unquoted: a pattern, as holdcall matched it.
		# shellcheck disable=SC2254
		case $(cat "$T/held" 2>/dev/null) in
		$pat) held=yes ;;
		esac
		is "$held:$sent" yes:yes "SIG$sig held in the set-up: sent while $what was held" ||
			diag "held: $(cat "$T/held" 2>/dev/null)" "$(tail -n 5 "$T/bg.err")"
		if [ "$sig" = KILL ]; then
			is "$st" 137 "SIG$sig held in the set-up: sbxrun was killed (137), the run ended"
		else
			is "$st" 143 "SIG$sig held in the set-up: sbxrun ended the tree (143) within 20 s" ||
				diag "$(tail -n 5 "$T/bg.err")"
			like "$(jget warnings "$T/bg.diag")" "stopped by SIG$sig" \
			    "SIG$sig held in the set-up: the report says so"
		fi
	fi

	# After a SIGKILL the keeper hands the workdir back alone, shortly.
	if [ "$(id -u)" = 0 ]; then
		wait_for '[ -z "$(find "$WD" ! -user 0 | head -n 1)" ]' 20
	fi
	no_survivors "SIG$sig during the start: nothing is left" "$m"
	handed_back "SIG$sig during the start: the workdir is handed back"
done

# The uid's task count comes to the payload on a pipe once init is forked
# (doc/design/startup.md, section 32): sbxrun killed before it writes the
# count must end the run like any death during the start. Init drops its
# copy of the pipe's write end before the payload starts, so the payload
# reads an end of file and fails; held by init, the payload (and init,
# waiting for its exec) would wait for ever, and the keeper with the
# workdir lent.
# Under landlock only: the namespaces backend's jail has a user namespace
# of its own, where nothing is counted.
if [ "$SBX_BACKEND" != landlock ]; then
	:
elif [ ! -x "$HOLDCALL" ]; then
	fail "the count never written: tests/holdcall is missing at $HOLDCALL (make check builds it)"
else
	new_wd
	m=$(uniq_tag countlate)
	printf "exec sh -c 'sleep 30; :' %s\n" "$m" >"$T/bgscript"
	rm -f "$T/held" "$T/go"
	# The count is sbxrun's one send of 8 bytes, MSG_NOSIGNAL (16384).
	ASAN_OPTIONS=$NOLEAK "$HOLDCALL" -s sendto -m 'socket:*||8|16384' -H "$T/held" -g "$T/go" -- \
	    "$SBXRUN" --diag none --backend landlock -w "$WD" \
	    <"$T/bgscript" >"$T/bg.out" 2>"$T/bg.err" &
	hc=$!
	JAIL_PIDS="$JAIL_PIDS $hc"
	kill_held "$hc" KILL
	is "$sent:$st" yes:137 "the count never written: sbxrun killed while it was held (137)" ||
		diag "held: $(cat "$T/held" 2>/dev/null)" "$(tail -n 5 "$T/bg.err")"
	if [ "$(id -u)" = 0 ]; then
		wait_for '[ -z "$(find "$WD" ! -user 0 | head -n 1)" ]' 20
	fi
	handed_back "the count never written: the workdir is handed back"
	no_survivors "the count never written: nothing is left" "$m"

	# Init (and the payload it started, which waits for the count) dead
	# before the count is sent: the send fails, and no SIGPIPE ends
	# sbxrun without a word; the run fails as a start whose init died,
	# with its status and diagnostics.
	new_wd
	rm -f "$T/held" "$T/go" "$T/bg.diag"
	ASAN_OPTIONS=$NOLEAK "$HOLDCALL" -s sendto -m 'socket:*||8|16384' -H "$T/held" -g "$T/go" -- \
	    "$SBXRUN" --diag fd:3 --backend landlock -w "$WD" \
	    <"$T/bgscript" >"$T/bg.out" 2>"$T/bg.err" 3>"$T/bg.diag" &
	hc=$!
	JAIL_PIDS="$JAIL_PIDS $hc"
	kill_held "$hc" KILL init
	is "$sent:$st" yes:125 "init dead before the count: the run fails (125), sbxrun not killed" ||
		diag "$(tail -n 5 "$T/bg.err")"
	like "$(jget error "$T/bg.diag")" "init died while starting" \
	    "init dead before the count: the diagnostics say so"
	if [ "$(id -u)" = 0 ]; then
		wait_for '[ -z "$(find "$WD" ! -user 0 | head -n 1)" ]' 20
	fi
	handed_back "init dead before the count: the workdir is handed back"
fi

done_testing
