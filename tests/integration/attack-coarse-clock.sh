# Inode times in whole seconds (sbx_fs_clock(), doc/design/handback.md):
# ext4 with 128-byte inodes keeps no nanoseconds, so every change made in
# the run's first second read as older than a start time with
# nanoseconds. sbxrun then left the workdir writable by others after a
# run that made it so, did not name a repository made below the top
# level, and under landlock did not put back a protected .envrc that a
# non-root caller's sandbox rewrote: the caller's direnv would run it.
# Verdicts on the host, on a loop-mounted ext4 image of 128-byte inodes;
# each run starts just after a second begins and makes its changes
# within it. Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=9
if ! root_only "mounting a filesystem of whole-second times needs root" "$N_TESTS"; then
	done_testing
	exit
fi

MNT=$JT/mnt
mkdir "$MNT"
truncate -s 32M "$JT/img"
if ! mkfs.ext4 -q -F -I 128 "$JT/img" >"$T/mkfs.err" 2>&1 ||
    ! mount -o loop "$JT/img" "$MNT" 2>>"$T/mkfs.err"; then
	echo "Bail out! cannot make an ext4 image of 128-byte inodes: $(cat "$T/mkfs.err")"
	exit 1
fi
_coarse_cleanup() {
	umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null
	_jail_cleanup
}
trap _coarse_cleanup EXIT
chmod 755 "$MNT"

# Waits until the clock has just entered a new second.
second_start() {
	_s=$(date +%s)
	while [ "$(date +%s)" = "$_s" ]; do sleep 0.01; done
}

plant='chmod 777 . && mkdir -p sub/.git && echo evil >.envrc; exit 0'

# Root caller.
mkdir "$MNT/r"
chmod 755 "$MNT/r"
echo orig >"$MNT/r/.envrc"
second_start
jail_sh "$plant" -w "$MNT/r"
is_status 0 "root: the run made its changes in its first second"
is "$(stat -c %a "$MNT/r")" 775 "root: the workdir is not left writable by others"
like "$(jget warnings)" "writable by other users" "root: the warning says so"
like "$(jget warnings)" "git repository below the workdir's top level" \
    "root: the repository made below the top level is named"
is "$(cat "$MNT/r/.envrc")" orig "root: the protected .envrc is as it was"

# A non-root caller (uid 65534): under landlock the sandbox may write the
# protected paths, and sbxrun puts its copy back after the run.
mkdir "$MNT/n"
echo orig >"$MNT/n/.envrc"
chown -R 65534:65534 "$MNT/n"
chmod 755 "$MNT/n"
second_start
# (A sanitized build's report settings go along.)
echo "$plant" | setpriv --reuid=65534 --regid=65534 --clear-groups \
    env -i PATH=/usr/bin:/bin HOME=/nonexistent ${ASAN_OPTIONS:+"ASAN_OPTIONS=$ASAN_OPTIONS"} \
    ${UBSAN_OPTIONS:+"UBSAN_OPTIONS=$UBSAN_OPTIONS"} \
    "$SBXRUN" --backend "$SBX_BACKEND" -w "$MNT/n" >"$T/out" 2>"$T/err"
is "$?" 0 "uid 65534: the run made its changes in its first second"
is "$(cat "$MNT/n/.envrc")" orig "uid 65534: the protected .envrc is as it was"
is "$(stat -c %a "$MNT/n")" 775 "uid 65534: the workdir is not left writable by others"
like "$(tail -n 1 "$T/err")" "git repository below the workdir's top level" \
    "uid 65534: the repository made below the top level is named"

done_testing
