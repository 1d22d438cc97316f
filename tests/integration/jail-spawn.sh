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
case $mine in
*[-,]*)
	new_wd
	m=$(uniq_tag cpumask)
	printf "exec sh -c 'sleep 30; :' %s\n" "$m" >"$T/bgscript"
	BG_STDIN=$T/bgscript sbx_bg -w "$WD"
	wait_for 'pgrep -f "$m" >/dev/null' 10
	pid=$(pgrep -f "$m" | head -n 1)
	init=$(sed -n 's/^PPid:[[:space:]]*//p' "/proc/$pid/status" 2>/dev/null)
	is "$(cpus_of "/proc/$pid/status")" "$mine" "the command has the caller's CPU mask (host side)"
	is "$(cpus_of "/proc/$init/status")" "$mine" "init has the caller's CPU mask (host side)"
	bad=0
	for t in /proc/"$SBX_PID"/task/*; do
		c=$(cpus_of "$t/status")
		[ "$c" = "$mine" ] || { bad=$((bad + 1)); diag "$t ($(cat "$t/comm" 2>/dev/null)): $c"; }
	done
	is "$bad" 0 "every thread of sbxrun has the caller's CPU mask (host side)"
	kill -TERM "$SBX_PID" 2>/dev/null
	sbx_bg_wait 10
	no_survivors "the CPU mask run: nothing is left" "$m"
	;;
*) skip "a single CPU ($mine): nothing to hold or give back" 4 ;;
esac

# --- signals to sbxrun while the payload starts -----------------------------------
# Sent at once after the start, so that most land during the set-up; each
# run must end (bounded wait), leave nothing and hand the workdir back.
for sig in TERM INT HUP KILL; do
	new_wd
	m=$(uniq_tag spawnsig$sig)
	hung=0
	n=0
	while [ $n -lt 8 ]; do
		printf 'exec sleep 30 %s\n' "$m" >"$T/bgscript"
		BG_STDIN=$T/bgscript sbx_bg -w "$WD"
		kill -"$sig" "$SBX_PID" 2>/dev/null
		w=0
		while kill -0 "$SBX_PID" 2>/dev/null &&
		    [ "$(sed -n 's/^State:[[:space:]]*\(.\).*/\1/p' "/proc/$SBX_PID/status" 2>/dev/null)" != Z ] &&
		    [ $w -lt 100 ]; do
			sleep 0.1
			w=$((w + 1))
		done
		[ $w -lt 100 ] || hung=$((hung + 1))
		kill -KILL "$SBX_PID" 2>/dev/null
		wait "$SBX_PID" 2>/dev/null
		n=$((n + 1))
	done
	is "$hung" 0 "SIG$sig during the start (8 runs): every sbxrun ended within 10 s"
	# After a SIGKILL the keeper hands the workdir back alone, shortly.
	if [ "$(id -u)" = 0 ]; then
		wait_for '[ -z "$(find "$WD" ! -user 0 | head -n 1)" ]' 5
	fi
	no_survivors "SIG$sig during the start: nothing is left" "$m"
	handed_back "SIG$sig during the start: the workdir is handed back"
done

done_testing
