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

# all_gone WHAT: the run's workdir ($wd, from the diagnostics) and, under
# landlock, its private TMPDIR (the payload's "tmp DIR" line) are gone,
# and no warning says a removal failed.
all_gone() {
	wd=$(jget workdir)
	nok "$1: the workdir $wd is gone after the run" [ -e "$wd" ]
	tmp=$(sed -n 's/^tmp //p' "$T/out")
	if [ "$SBX_BACKEND" = landlock ]; then
		nok "$1: the private TMPDIR $tmp is gone after the run" [ -e "$tmp" ]
	else
		skip "namespaces: TMPDIR is the jail's own /tmp, gone with it" 1
	fi
	unlike "$(jget warnings)" "cannot remove" "$1: no warning of a removal that failed"
}

# The slices once went up under names told in advance (.sbxrun-deep.N,
# a thousand tries): a sandbox that made those names first, and put its
# deep chain where the removal met it before them, made the move fail,
# and the whole removal gave up on that one entry. Now the names are
# random, and one entry that cannot go does not stop the rest. On tmpfs
# a directory lists its newest entry first: the chain, made last, is met
# first, whatever the machine. A root caller mounts one for TMPDIR;
# another caller's TMPDIR stays on the disk, where the order is the
# file system's (the chain may come after some decoys: nothing may be
# left all the same).
SHM=$T/shm
mkdir "$SHM" && chmod 755 "$SHM" || setup_failed "a TMPDIR for the decoys"
[ "$(id -u)" = 0 ] && { mount -t tmpfs -o mode=755 sbxrun-deeptree "$SHM" || setup_failed "a tmpfs"; }
DECOY='import os, sys
for top in sys.argv[1:]:
    os.chdir(top)
    for i in range(1000):
        os.mkdir(".sbxrun-deep.%d" % i)
    os.mkdir("c")
    os.chdir("c")
    for i in range(140):
        os.mkdir("d")
        os.chdir("d")
    open("proof", "w").close()
    os.chdir(top)
    print("decoys", top, os.listdir(".")[0] == "c", flush=True)'
tmparg='"$TMPDIR"'
[ "$SBX_BACKEND" = namespaces ] && tmparg=
printf '%s\n' "echo \"tmp \$TMPDIR\"" "python3 - \"\$PWD\" $tmparg <<'PYEOF'" "$DECOY" PYEOF >"$T/script"
# shellcheck disable=SC2086 # $mount is two words or none
TMPDIR=$SHM "$SBXRUN" --diag fd:3 --backend "$SBX_BACKEND" $mount <"$T/script" >"$T/out" 2>"$T/err" 3>"$T/diag"
SBX_STATUS=$?
is_status 0 "decoys: the payload ran"
if [ "$(id -u)" = 0 ]; then
	is "$(grep -c '^decoys .* True$' "$T/out")" "$(grep -c '^decoys ' "$T/out")" \
	    "decoys: the deep chain is met first in each directory (tmpfs)"
else
	like "$(cat "$T/out")" "decoys " "decoys: they were made (the order is the disk's)"
fi
like "$(jget workdir)" "$SHM/sbxrun." "decoys: the workdir was made in TMPDIR"
all_gone decoys
[ "$(id -u)" = 0 ] && umount "$SHM"
rm -rf "$SHM"

# A directory past the removal's depth, left 0500 by the sandbox: moving
# it up to the top needs write permission on it (its ".." changes), which
# a non-root caller's keeper lacked, and the whole tree stayed.
LOCKED='p=.; i=0; while [ $i -lt 140 ]; do p=$p/d; i=$((i + 1)); done
mkdir -p "$p" && echo x >"$p/f"
i=140; while [ $i -ge 100 ]; do chmod 500 "$p"; p=${p%/d}; i=$((i - 1)); done'
# shellcheck disable=SC2086 # $mount is two words or none
jail_sh "$LOCKED; cd \"\$TMPDIR\" && { $LOCKED; }; echo \"tmp \$TMPDIR\"" $mount
is_status 0 "0500 below: the payload ran"
all_gone "0500 below"
chmod -R u+w "$wd" "${tmp:-$wd}" 2>/dev/null

done_testing
