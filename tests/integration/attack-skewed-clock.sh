# Inode times from a server's clock (sbx_fs_clock(), protect.md,
# doc/design/handback.md section 2): on a network or FUSE filesystem the
# change time is the server's, and a server whose clock lags ours made
# every change of the run's first moments look older than the run. sbxrun
# then left the workdir writable by others after a run that made it so,
# did not name a repository made below the top level, and under landlock
# did not put back a protected .envrc that a non-root caller's sandbox
# rewrote. On a filesystem whose change time is the modification time,
# which the sandbox may set, it could also hide a directory it made
# writable by others. Verdicts on the host, on tests/skewfs mounts: one
# whose times lag by an hour, one whose change time is the modification
# time. Run for $SBX_BACKEND, as root (root and uid 65534 callers) or as
# the non-root caller running the suite.
. "$(dirname "$0")/jail-lib.sh"

need_skewfs
if [ ! -c /dev/fuse ]; then
	skip "the kernel has no FUSE (/dev/fuse)" 1
	done_testing
	exit
fi

LAG=$JT/lag
MTIME=$JT/mtime
mkdir "$JT/s1" "$JT/s2" "$LAG" "$MTIME"
chmod 755 "$JT/s1" "$JT/s2"
_skew_cleanup() {
	for _m in "$LAG" "$MTIME"; do
		if [ "$(id -u)" = 0 ]; then
			umount "$_m" 2>/dev/null || umount -l "$_m" 2>/dev/null
		else
			fusermount3 -u "$_m" 2>/dev/null || fusermount3 -uz "$_m" 2>/dev/null
		fi
	done
	_jail_cleanup
}
trap _skew_cleanup EXIT
if ! "$SKEWFS" -l 3600 "$JT/s1" "$LAG" 2>"$T/fuse.err" ||
    ! "$SKEWFS" -l 0 -m "$JT/s2" "$MTIME" 2>>"$T/fuse.err"; then
	echo "Bail out! cannot mount tests/skewfs: $(cat "$T/fuse.err")"
	exit 1
fi
chmod 755 "$LAG" "$MTIME"

# run UID SCRIPT WORKDIR: sbxrun as UID (the caller's own, or 65534 from
# root through setpriv, with a sanitized build's report settings).
run() {
	printf '%s\n' "$2" >"$T/script"
	if [ "$1" = "$(id -u)" ]; then
		"$SBXRUN" --backend "$SBX_BACKEND" -w "$3" <"$T/script" >"$T/out" 2>"$T/err"
	else
		setpriv --reuid="$1" --regid="$1" --clear-groups \
		    env -i PATH=/usr/bin:/bin HOME=/nonexistent \
		    ${ASAN_OPTIONS:+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
		    ${UBSAN_OPTIONS:+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
		    "$SBXRUN" --backend "$SBX_BACKEND" -w "$3" <"$T/script" >"$T/out" 2>"$T/err"
	fi
	SBX_STATUS=$?
}

# new_tree MOUNT NAME UID: a workdir of UID's on MOUNT with a protected
# .envrc; prints its path.
new_tree() {
	mkdir "$1/$2"
	echo orig >"$1/$2/.envrc"
	[ "$3" = "$(id -u)" ] || chown -R "$3:$3" "$1/$2"
	chmod 755 "$1/$2"
	echo "$1/$2"
}

plant='chmod 777 . && mkdir -p sub/.git && echo evil >.envrc; exit 0'
hide='mkdir open && chmod 777 open && touch -d @1000000000 open; exit 0'

# check WHO UID: both attacks for one caller.
check() {
	w=$(new_tree "$LAG" "$1" "$2")
	run "$2" "$plant" "$w"
	if [ "$2" = 0 ] && [ "$SBX_BACKEND" = namespaces ]; then
		# No idmapped mount on FUSE: refused, nothing done.
		is_status 125 "$1: the workdir on FUSE is refused (no idmapped mount there)"
		is "$(cat "$w/.envrc") $(stat -c %a "$w")" "orig 755" "$1: nothing was run"
		return
	fi
	is_status 0 "$1: the run made its changes on the lagging filesystem"
	is "$(cat "$w/.envrc")" orig "$1: the protected .envrc is as it was"
	is "$(stat -c %a "$w")" 775 "$1: the workdir is not left writable by others"
	like "$(tail -n 1 "$T/err")" "git repository below the workdir's top level" \
	    "$1: the repository made below the top level is named"
	is "$(find "$w" -name '.sbxrun-clock.*' | wc -l)" 0 "$1: the clock probe is gone"

	w=$(new_tree "$MTIME" "$1" "$2")
	run "$2" "$hide" "$w"
	is_status 0 "$1: the run made a directory writable by others and set its times back"
	is "$(stat -c %a "$w/open")" 775 "$1: that directory is not left writable by others"
}

if [ "$(id -u)" = 0 ]; then
	check root 0
	check "uid 65534" 65534
else
	check "uid $(id -u)" "$(id -u)"
fi

done_testing
