# Modes left for another local user (doc/design/threat-model.md, "Nothing
# is planted for later"). The sandbox makes the workdir and a directory of
# the caller's writable by everyone; after the run any local user could
# then put a .git (core.fsmonitor) in the caller's workdir, or swap the
# caller's files, and the caller's next git or build runs it with the
# caller's rights (a root caller's included). Verdicts on the host: no
# directory the run changed is left writable by others (only that bit
# goes: the group's is the caller's business), the warning names them; a world-writable directory the run did not touch, and one outside
# the workdir that a symlink in it points to, keep their mode. A file's
# mode is restored where sbxrun walks the files anyway (a root caller's
# landlock handback); elsewhere it is left (a stat of every file on every
# run), and sbxrun(1) says so.
# Run for $SBX_BACKEND.
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=8

mkdir "$WD/d" "$WD/shared" "$JT/outside"
echo 'echo build' >"$WD/build.sh"
chmod 755 "$WD" "$WD/d"
chmod 777 "$WD/shared" "$JT/outside"
chmod 644 "$WD/build.sh"
ln -s "$JT/outside" "$WD/out"
# Inode times come from the coarse clock: the controls' changes must fall
# in an earlier tick than the run's start (a change in the same tick counts
# as made in the run, sbxrun(1)).
sleep 0.1

jail_sh "chmod 777 . d; chmod 666 build.sh; chmod 777 out/ 2>/dev/null; exit 0" -w "$WD"
is_status 0 "the script ran"
is "$(stat -c %a "$WD")" 775 "the workdir is not left writable by others"
is "$(stat -c %a "$WD/d")" 775 "a directory of the caller's is not left writable by others"
like "$(jget warnings)" "writable by other users" "the warning says so"
like "$(jget warnings)" "the workdir itself" "and names the directories"
is "$(stat -c %a "$JT/outside")" 777 "a directory outside, behind a symlink, keeps its mode"
if [ "$SBX_BACKEND" = landlock ] && [ "$(id -u)" = 0 ]; then
	# The lend changes every entry: all count as changed in the run.
	is "$(stat -c %a "$WD/shared")" 775 "a world-writable directory lent and handed back loses it"
	is "$(stat -c %a "$WD/build.sh")" 664 "a file handed back is not left writable by others"
else
	is "$(stat -c %a "$WD/shared")" 777 "a world-writable directory the run did not touch keeps its mode"
	is "$(stat -c %a "$WD/build.sh")" 666 "a file keeps the mode the sandbox gave it (no walk of the files here)"
fi

# Past the search's bound on entries (a million; SBXRUN_TEST_SCAN_MAX
# lowers it for this test) the search used to stop: a directory the run
# made writable by others after a million hard links (cheap to make) kept
# that mode, with only a warning about repositories. Now it goes on
# through directories, files unlooked at, and says so.
mkdir "$WD/many"
chmod 755 "$WD/many"
sleep 0.1
jail_sh 'cd many && i=0; while [ $i -lt 400 ]; do : >f$i; i=$((i + 1)); done
mkdir zz-open && chmod 777 zz-open; exit 0' -w "$WD"
SBXRUN_TEST_SCAN_MAX=ten jail_sh 'exit 0' -w "$WD"
is_status 125 "SBXRUN_TEST_SCAN_MAX that is not a number: refused (125)"
SBXRUN_TEST_SCAN_MAX=10
export SBXRUN_TEST_SCAN_MAX
jail_sh 'cd many && chmod 777 zz-open; : >f0; exit 0' -w "$WD"
unset SBXRUN_TEST_SCAN_MAX
is_status 0 "past the bound: the script ran"
is "$(stat -c %a "$WD/many/zz-open")" 775 "past the bound: a directory left writable by others loses it"
like "$(jget warnings)" "past them only directories were looked at" "past the bound: a warning says so"

done_testing
