# A temp workdir that is not kept, and the landlock backend's private
# TMPDIR, are removed whole after the run (sbxrun(1), FILES): nothing the
# sandbox made there may outlive it. The removal went 256 levels deep and
# gave up below, so a chain of directories deeper than that stayed in
# $TMPDIR (for a root caller owned by uid 65534, with the files the
# sandbox left world-writable), said only on stderr. Now a tree deeper
# than the removal's own depth is taken apart a slice at a time, and what
# cannot be removed is named in warnings as well.
# Verdict on the host: the directories named by the diagnostics line and
# by the payload are gone after the run, and no warning says otherwise.
# Under namespaces a read-only mount keeps the workdir on the host's disk
# (a thrown-away workdir is otherwise made inside the jail).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=7
SRC=$T/src
mkdir "$SRC"
chmod 755 "$SRC"
# 400 levels: more than the old removal's 256, and than three of the
# new one's slices.
deep='d=$1; i=0; while [ $i -lt 400 ]; do mkdir d && cd d || break; i=$((i + 1)); done
echo left >f; chmod 666 f; echo "depth $d $i"'
mount=
[ "$SBX_BACKEND" = namespaces ] && mount="-m $SRC:lib:ro"
# shellcheck disable=SC2086 # $mount is two words or none
jail_sh "sh -c '$deep' - workdir; echo \"tmp \$TMPDIR\"; cd \"\$TMPDIR\" && sh -c '$deep' - tmp" $mount
is_status 0 "the payload ran"
like "$(cat "$T/out")" "depth workdir 400" "it made 400 levels in its workdir"
wd=$(jget workdir)
like "$wd" "$T/tmp/sbxrun." "the workdir was made in the host's TMPDIR"
nok "the workdir $wd is gone after the run" [ -e "$wd" ]
tmp=$(sed -n 's/^tmp //p' "$T/out")
if [ "$SBX_BACKEND" = landlock ]; then
	like "$(cat "$T/out")" "depth tmp 400" "... and 400 in its private TMPDIR"
	nok "the private TMPDIR $tmp is gone after the run" [ -e "$tmp" ]
else
	skip "namespaces: TMPDIR is the jail's own /tmp, gone with it" 2
fi
unlike "$(jget warnings)" "cannot remove" "no warning of a removal that failed"
done_testing
