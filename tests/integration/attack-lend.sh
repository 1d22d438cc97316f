# A root caller's workdir without a per-run walk (sbxrun(1), FILES): what
# the sandbox leaves belongs to root afterwards, with no set-id bit and no
# security.capability; .git and a file of another uid stay as they were;
# the host's mount table gains nothing, during the run or after it; and a
# tree of 2000 root-owned files the run does not touch keeps its ctimes
# (a chown, which a lend and a hand-back make on every entry, changes an
# inode's ctime: a host-side proof that no walk touched them). Every
# verdict is read on the host. The same attempts in the workdir sbxrun
# makes itself, kept with --keep (landlock lends that one, empty, rather
# than cover it): what is left belongs to root with no set-id bit, no
# security.capability and no trusted.*. Run for $SBX_BACKEND (default
# namespaces).
. "$(dirname "$0")/jail-lib.sh"

N_TESTS=22
if ! root_only "only a root caller's sandbox runs as another uid" "$N_TESTS"; then
	done_testing
	exit
fi
if ! command -v python3 >/dev/null 2>&1; then
	skip "python3 is needed to make set-id attempts and read attributes" "$N_TESTS"
	done_testing
	exit
fi

new_wd
mkdir -p "$WD/tree" "$WD/.git/hooks" "$WD/closed"
git -C "$WD" init -q 2>/dev/null || echo '[core]' >"$WD/.git/config"
(cd "$WD/tree" && i=0 && while [ $i -lt 40 ]; do
	mkdir d$i && j=0 && while [ $j -lt 49 ]; do : >d$i/f$j; j=$((j+1)); done
	i=$((i+1))
done)
echo theirs >"$WD/theirs" && chown 1000:1000 "$WD/theirs" && chmod 644 "$WD/theirs"
chmod 700 "$WD/closed" && echo c >"$WD/closed/c"
echo old >"$WD/existing"

gitsum() { find "$WD/.git" -printf '%p %m %u %g %s %T@\n' | sort | cksum; }
ctimes() { find "$WD/tree" -printf '%C@ %p\n' | sort | cksum; }
# The host's mount points where a cover could leak: in the workdir, or in
# a directory sbxrun makes (a temp workdir, a private TMPDIR). Others come
# and go with tests run in parallel (ip netns add mounts in /run/netns).
mounts() {
	cut -d' ' -f5 /proc/self/mountinfo | grep -e "^$WD" -e '/sbxrun\.' -e '/sbxrun-tmp\.' | sort
}
# Every security.capability or trusted.* attribute below $1, with its path.
privattrs() {
	python3 -c '
import os, sys
for top, dirs, files in os.walk(sys.argv[1]):
    for n in dirs + files:
        p = os.path.join(top, n)
        for x in os.listxattr(p, follow_symlinks=False):
            if x.startswith("trusted.") or x == "security.capability":
                print(p, x)
' "$1"
}
# What each run tries: files, set-id modes by chmod, open, mkdir and
# mknod, a file capability and a trusted.* attribute.
ATTEMPTS='
echo new >f1; mkdir -p d1/d2; echo deep >d1/d2/f2
cp /bin/true tool; t chmodsuid chmod 4755 tool; t chmodsgid chmod g+s tool
t opensuid python3 -c "import os; os.close(os.open(\"suid\", os.O_CREAT|os.O_WRONLY, 0o4755))"
t mkdirsgid python3 -c "import os; os.mkdir(\"sgid\", 0o2775)"
t mknodsuid python3 -c "import os, stat; os.mknod(\"node\", stat.S_IFREG|0o4755)"
t caps python3 -c "import os, struct; os.setxattr(\"tool\", \"security.capability\", struct.pack(\"<IIIII\", 0x02000001, 1 << 21, 1 << 21, 0, 0))"
t trusted python3 -c "import os; os.setxattr(\"f1\", \"trusted.sbx\", b\"1\")"
'
git_before=$(gitsum)
ctime_before=$(ctimes)
mounts_before=$(mounts)

script=$SBX_T_PRELUDE$ATTEMPTS'
ln -s f1 sl; ln f1 hl
t gitconfig sh -c "echo evil >>.git/config"
t githook sh -c "echo evil >.git/hooks/post-checkout"
t theirs sh -c "echo mine >theirs"
t abschmod chmod 600 "$PWD/f1"
t closedchmod chmod 640 closed/c
t tmp sh -c "echo t >\"$TMPDIR/t\" && chmod 600 \"$TMPDIR/t\""
echo x >existing
: >ready
i=0; while [ ! -e go ] && [ $i -lt 3000 ]; do sleep 0.01; i=$((i+1)); done
exit 0'
printf '%s\n' "$script" >"$T/script"
BG_STDIN=$T/script sbx_bg -w "$WD"
if wait_for '[ -e "$WD/ready" ]' 30; then
	mounts_during=$(mounts)
else
	mounts_during="(the sandbox never got ready)"
fi
: >"$WD/go"
sbx_bg_wait 60
cp "$T/bg.out" "$T/out"
cp "$T/bg.diag" "$T/diag"

like "$(cat "$T/diag")" '"exit_code":0' "the run ended well"
is "$(rc_of tmp):$(rc_of abschmod):$(rc_of closedchmod)" 0:0:0 \
    "TMPDIR, a chmod by absolute path and one in a 0700 directory work (control)"
is "$(stat -c %a "$WD/f1"):$(stat -c %a "$WD/closed/c")" 600:640 "those modes are on the host"
is "$(cat "$WD/d1/d2/f2" "$WD/existing")" "deep
x" "what the sandbox wrote is on the host (control)"
is "$(find "$WD" ! -uid 0 ! -path "$WD/theirs" -printf '%p %u\n')" "" \
    "everything the sandbox left belongs to root on the host"
is "$(stat -c %u:%g "$WD/theirs") $(cat "$WD/theirs")" "1000:1000 theirs" \
    "a file of uid 1000 keeps its owner and is not writable by the sandbox"
is "$(find "$WD" -perm /6000 ! -type d)" "" "no set-id file is left"
is "$(find "$WD" -type d -perm /4000)" "" "no set-uid directory is left"
is "$(privattrs "$WD")" "" "no security.capability or trusted.* attribute is left"
is "$(stat -c %h "$WD/f1"):$(readlink "$WD/sl")" 2:f1 "the hard link and the symlink were made (control)"
is "$(gitsum)" "$git_before" ".git is unchanged on the host"
failed_inside "writing .git/config failed inside (second opinion)" gitconfig
is "$mounts_during" "$mounts_before" "the host's mount table shows no new mount during the run"
is "$(mounts)" "$mounts_before" "the host's mount table shows no new mount after the run"
is "$(ctimes)" "$ctime_before" "2000 root-owned files the run did not touch keep their ctimes (no walk chowned them)"
if [ "$SBX_BACKEND" = landlock ]; then
	like "$(cat "$T/diag")" '"mountns":true' "the diagnostics say the payload had a mount namespace"
else
	like "$(cat "$T/diag")" '"mountns":true' "the jail has a mount namespace"
fi

# --- the throwaway workdir, kept ---------------------------------------------
script=$SBX_T_PRELUDE$ATTEMPTS'
mkfifo fifo; ln -s f1 sl; ln f1 hl
exit 0'
jail_sh "$script" --keep
kept=$(jget workdir)
like "$(cat "$T/diag")" '"exit_code":0' "kept: the run in sbxrun's own workdir ended well"
if [ -n "$kept" ] && [ -d "$kept" ] && [ "$kept" != "$WD" ]; then
	is "$(cat "$kept/d1/d2/f2"):$(stat -c %h "$kept/f1")" "deep:2" \
	    "kept: what the sandbox made is there (control)"
	is "$(find "$kept" ! -uid 0 -printf '%p %u\n'; find "$kept" ! -gid 0 -printf '%p %g\n')" "" \
	    "kept: everything the sandbox left belongs to root:root on the host"
	is "$(find "$kept" -perm /6000 ! -type d)" "" "kept: no set-id file is left"
	is "$(find "$kept" -type d -perm /4000)" "" "kept: no set-uid directory is left"
	is "$(privattrs "$kept")" "" "kept: no security.capability or trusted.* attribute is left"
	diag "kept: layers $(jget layers.mountns) (mountns), warnings $(jget warnings)"
	rm -rf "$kept"
else
	fail "kept: the diagnostics name the kept workdir"
	skip "no kept workdir ($kept)" 4
fi
done_testing
