# What only the landlock backend does for a root caller (see BACKENDS in
# sbxrun(1)): the payload runs as uid 65534 on a workdir lent to it and
# handed back afterwards (by init if sbxrun is killed); what is never lent.
# Run as root (make check as root; CI runs it in its root phase only).
# Verdicts come from the host side.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-lib.sh"

# A root caller's sandbox runs as uid 65534, which must reach the
# workdirs and $TMPDIR below $T.
chmod 711 "$T"
ME_U=$(id -u)
ME_G=$(id -g)

# --- a root caller ---------------------------------------------------------------------
if root_only "a root caller's payload drops to uid 65534" 13; then
	new_wd
	echo old >"$WD/pre.txt"
	chgrp 1 "$WD/pre.txt"
	mkdir "$WD/sub"
	echo theirs >"$WD/sub/theirs"
	chown 1:1 "$WD/sub/theirs"
	cp /bin/true "$WD/suid"
	chmod 4755 "$WD/suid"
	echo h >"$JT/hardlinked"
	ln "$JT/hardlinked" "$WD/hl"
	sbx_bg -w "$WD" -- sh -c 'echo new >pre.txt; echo n >sub/new; sleep 60'
	pl=$(payload_of "$SBX_PID")
	wait_for "[ -s '$WD/sub/new' ]" 5
	is "$(status_field "$pl" Uid | tr -s '\t ' ' ')" "65534 65534 65534 65534" \
	    "host view: the payload runs as uid 65534"
	is "$(status_field "$pl" Groups | tr -d ' \t')" "" "host view: with no supplementary group"
	is "$(status_field "$pl" CapBnd)" 0000000000000000 "host view: an empty bounding set"
	is "$(stat -c %u "$WD")" 65534 "during the run the workdir is lent to uid 65534"
	kill -TERM "$SBX_PID"
	sbx_bg_wait 10
	is "$(cat "$WD/pre.txt")" new "a root-owned file was rewritten"
	is "$(stat -c %u:%g "$WD/pre.txt")" "0:1" "... and is root's again, its group kept"
	is "$(stat -c %u:%g "$WD/sub/new" "$WD" | tr '\n' ' ')" "0:0 0:0 " \
	    "a new file and the workdir belong to root afterwards"
	is "$(stat -c %u:%a "$WD/suid")" "0:4755" "a set-id file was not lent (still root's, intact)"
	is "$(stat -c %u "$WD/hl"):$(cat "$JT/hardlinked")" "0:h" \
	    "a file with a second link outside was not lent"
	is "$(stat -c %u "$WD/sub/theirs")" 1 "another user's file keeps its owner"

	# Killed: init hands the workdir back.
	new_wd
	echo old >"$WD/pre.txt"
	sbx_bg -w "$WD" -- sh -c 'echo n >new; sleep 60'
	wait_for "[ -s '$WD/new' ]" 30
	kill -KILL "$SBX_PID"
	sbx_bg_wait 30
	wait_for "[ \"\$(stat -c %u '$WD/pre.txt' '$WD/new' '$WD' | sort -u)\" = 0 ]" 30
	is "$(stat -c %u "$WD/pre.txt" "$WD/new" "$WD" | sort -u)" 0 \
	    "sbxrun SIGKILLed: its init hands the workdir back to root"

	# A workdir that uid 65534 cannot reach is refused, naming the culprit.
	mkdir -m 700 "$JT/closed"
	mkdir -m 755 "$JT/closed/wd"
	jail -w "$JT/closed/wd" -- /bin/true
	is_status 125 "a workdir below a directory closed to uid 65534 is refused"
	like "$(jget error)" "$JT/closed is not searchable" "the error names that directory"
fi

done_testing
