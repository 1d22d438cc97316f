# A read-write mount's source is a directory of the caller's, where the
# caller's git and tools run next, as much as the workdir is (sbxrun(1),
# the git search). The sandbox writes through "-m SRC:lib:rw": a .git
# with core.fsmonitor at the source's top, a bare layout (HEAD, objects/,
# refs/, config) there, a repository deeper, and directories left writable
# by everyone. Verdicts on the host: the caller's own git status in SRC
# runs no command of the sandbox's (a marker it would write stays absent),
# what was made at the top is moved aside and named, the deeper repository
# is named, no directory the run changed is left writable by others; a
# .git that was there before stays read-only inside (its config and hooks
# unchanged, not moved away), and a world-writable directory the run did
# not touch keeps its mode. Namespaces only: the landlock backend places
# no mounts (a policy with one is refused).
. "$(dirname "$0")/jail-lib.sh"
SBX_BACKEND=namespaces

N_TESTS=21
if ! command -v git >/dev/null 2>&1; then
	skip "git is needed to run the caller's git status" "$N_TESTS"
	done_testing
	exit 0
fi

# The caller's git in DIR, with no config of its own: is the marker there?
caller_git() {
	rm -f "$JT/fsmonitor.ran"
	(cd "$1" && HOME=$JT GIT_CONFIG_NOSYSTEM=1 git status >/dev/null 2>&1)
	[ ! -e "$JT/fsmonitor.ran" ]
}

SRC=$JT/src
mkdir -p "$SRC/untouched"
chmod 755 "$SRC"
chmod 777 "$SRC/untouched"
# Inode times come from the coarse clock: the control's change must fall
# in an earlier tick than the run's start.
sleep 0.1
plant="git init -q lib 2>/dev/null || mkdir -p lib/.git
printf '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = \"touch $JT/fsmonitor.ran; false\"\\n' >lib/.git/config
mkdir -p lib/sub/deep/.git lib/open
chmod 777 lib lib/open
exit 0"
jail_sh "$plant" -w "$WD" -m "$SRC:lib:rw"
is_status 0 "the sandbox wrote through the read-write mount"
ok "the caller's git status in the source runs none of it" caller_git "$SRC"
ok "the .git made at the source's top is not there any more" test ! -e "$SRC/.git"
ok "it was moved aside" test -d "$SRC/.git.sbxrun-untrusted.1"
like "$(jget warnings)" "top level of the read-write mount $SRC" "the warning names the mount"
like "$(jget warnings)" "sub/deep/.git" "the repository made deeper is named"
is "$(stat -c %a "$SRC")" 775 "the source's top is not left writable by others"
is "$(stat -c %a "$SRC/open")" 775 "a directory made there is not left writable by others"
is "$(stat -c %a "$SRC/untouched")" 777 "a world-writable directory the run did not touch keeps its mode"

# A bare layout at the top (git takes the directory itself for a repository).
SRC2=$JT/src2
mkdir -p "$SRC2"
jail_sh "mkdir -p lib/objects lib/refs && echo 'ref: refs/heads/main' >lib/HEAD &&
printf '[core]\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = \"touch $JT/fsmonitor.ran; false\"\\n' >lib/config" \
    -w "$WD" -m "$SRC2:lib:rw"
is_status 0 "the sandbox made a bare layout at the mount's top"
ok "the caller's git status there runs none of it" caller_git "$SRC2"
ok "its HEAD was moved aside" test ! -e "$SRC2/HEAD"

# A repository of the caller's at the source's top stays where it is, and
# read-only inside, as the workdir's .git: its config and hooks cannot be
# given a command, and it cannot be moved away or replaced.
SRC3=$JT/src3
mkdir -p "$SRC3"
git init -q "$SRC3"
cp "$SRC3/.git/config" "$JT/config.orig"
cat >"$T/plant3" <<EOF
printf '\\tfsmonitor = "touch $JT/fsmonitor.ran; false"\\n' >>lib/.git/config
printf '#!/bin/sh\\ntouch $JT/fsmonitor.ran\\n' >lib/.git/hooks/pre-commit
mv lib/.git lib/.git.old && mkdir -p lib/.git
echo data >lib/out
exit 0
EOF
jail -w "$WD" -m "$SRC3:lib:rw" <"$T/plant3"
is_status 0 "the sandbox wrote next to the caller's repository"
ok "the caller's git status there runs none of it" caller_git "$SRC3"
ok "the repository's config is as it was" cmp -s "$SRC3/.git/config" "$JT/config.orig"
ok "no hook was added" test ! -e "$SRC3/.git/hooks/pre-commit"
ok "the repository was not moved away" test -d "$SRC3/.git/objects"
ok "nothing was put in its place" test ! -e "$SRC3/.git.old"
ok "the sandbox's other writes there landed (control)" test -s "$SRC3/out"
unlike "$(jget warnings)" "moved aside" "nothing is moved aside"
like "$(cat "$T/err")" "Read-only file system" "the sandbox was told why"

done_testing
