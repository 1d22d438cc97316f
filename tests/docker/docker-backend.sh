#!/bin/sh
# The docker backend against a real engine (TAP). Needs DOCKER_HOST naming
# a running engine that has the image local/sbx-base (tests/docker/engine
# start and image make both); run by its own phase of .ci/run, as root and
# as a member of the group docker, never by make check. The engine is
# the test's own: every container labelled "sbxrun" on it is ours.
#
# Verdicts come from the host: files in the workdir, a listener on the
# host that must log nothing, the engine's own list of containers.
. "${SRCDIR:-$(cd "$(dirname "$0")/../.." && pwd)}/tests/integration/lib.sh"

IMAGE=local/sbx-base
: "${DOCKER_HOST:?DOCKER_HOST must name the test engine (tests/docker/engine start)}"
export DOCKER_HOST

if ! docker info --format '{{.ServerVersion}}' >/dev/null 2>&1; then
	echo "Bail out! no docker engine answers at $DOCKER_HOST"
	exit 1
fi
if ! docker image inspect "$IMAGE" >/dev/null 2>&1; then
	echo "Bail out! the image $IMAGE is missing (tests/docker/engine image)"
	exit 1
fi

# wait_page HOST PORT: the index page served at HOST:PORT, asked up to 100
# times 0.2 s apart (a hang guard); a HOST of @FILE is read from FILE once
# the container has written it there.
wait_page() {
	_i=0
	_got=
	while [ $_i -lt 100 ] && [ -z "$_got" ]; do
		_h=$1
		case $1 in @*) _h=$(cat "${1#@}" 2>/dev/null) ;; esac
		[ -n "$_h" ] && _got=$("$PY" -c '
import sys, urllib.request
try:
    print(urllib.request.urlopen("http://%s:%s/index.html" % (sys.argv[1], sys.argv[2]), timeout=2).read().decode().strip())
except Exception:
    pass' "$_h" "$2")
		[ -n "$_got" ] || sleep 0.2
		_i=$((_i + 1))
	done
	printf '%s\n' "$_got"
}

dk() {
	sbx --backend docker --docker-image "$IMAGE" "$@"
}

dk_script() {
	printf '%s\n' "$1" >"$T/stdin"
	shift
	dk "$@" <"$T/stdin"
}

ours() {
	docker ps -aq --filter label=sbxrun
}

now_ms() {
	"$PY" -c 'import time; print(int(time.monotonic() * 1000))'
}

me=$(id -u)
W=$T/w
mkdir "$W"

# --- the script runs and its status comes back ------------------------------
dk_script 'echo out; echo err >&2; exit 7' -w "$W"
is "$SBX_STATUS" 7 "the script's status comes back"
is "$(cat "$T/out")" out "its standard output reaches the caller"
is "$(jget backend)" docker "backend docker"
is "$(jget exit_code)" 7 "exit_code 7"
ok "the diagnostics line is complete" check_diag "$T/diag"
is "$(ours)" "" "no container is left after a run"

# --- /work is the workdir, files belong to the caller ------------------------
dk_script 'pwd >/work/where; echo "$HOME" >>/work/where; echo data >made' -w "$W"
is "$(cat "$W/made" 2>/dev/null)" data "a file written in /work appears in the workdir"
is "$(stat -c %u "$W/made" 2>/dev/null)" "$me" "... owned by the caller ($me)"
is "$(stat -c %u "$W")" "$me" "the workdir is the caller's again"
is "$(tr '\n' ' ' <"$W/where")" "/work /work " "working directory and HOME are /work"

# --- an image's VOLUME goes with the container ---------------------------------
# The engine makes an anonymous volume for each VOLUME line of the image;
# removed without --volumes, every run left one, with what the sandbox
# wrote there, on the daemon's disk (docker volume ls).
VIMG=local/sbx-vol-$$
cid=$(docker create --user 0 --entrypoint /bin/sh "$IMAGE" -c 'mkdir -p /data && chmod 1777 /data' 2>/dev/null)
docker start -a "$cid" >/dev/null 2>&1
docker commit --change 'VOLUME /data' --change 'ENTRYPOINT []' "$cid" "$VIMG" >/dev/null 2>&1
docker rm "$cid" >/dev/null 2>&1
if docker image inspect "$VIMG" >/dev/null 2>&1; then
	vols() {
		docker volume ls -q | sort
	}
	vols >"$T/vols.before"
	sbx --backend docker --docker-image "$VIMG" -w "$W" <<'SH'
echo left >/data/marker && echo wrote >/work/vol-wrote
SH
	is "$SBX_STATUS:$(cat "$W/vol-wrote" 2>/dev/null)" 0:wrote \
	    "an image with a VOLUME: the script wrote in it (it is writable inside)"
	vols >"$T/vols.after"
	is "$(comm -13 "$T/vols.before" "$T/vols.after" | tr '\n' ' ')" "" \
	    "... and no volume is left after the run (docker volume ls)"
	sbx --backend docker --docker-image "$VIMG" -w "$W" --docker-keep "vkeep-$$" </dev/null
	is "$SBX_STATUS" 0 "a kept container of that image: made"
	sbx --docker-rm "vkeep-$$" </dev/null
	vols >"$T/vols.after"
	is "$SBX_STATUS:$(comm -13 "$T/vols.before" "$T/vols.after" | tr '\n' ' ')" "0:" \
	    "... --docker-rm removes it with its volume"
	rm -f "$W/vol-wrote"
	docker rmi "$VIMG" >/dev/null 2>&1
else
	fail "an image with a VOLUME could be made (docker commit)"
fi

# --- no set-id file is left in the workdir --------------------------------------
# The engine's seccomp profile lets the container chmod its files set-id,
# and a caller other than root owns them; a root caller's are handed back
# without the bits. Either way none is left: judged by the host's stat.
V=$T/v-setid
mkdir "$V"
dk_script 'cp /bin/busybox /work/tool; chmod 6755 /work/tool; mkdir -p /work/d/e
cp /bin/busybox /work/d/e/tool2; chmod 4755 /work/d/e/tool2; chmod 2777 /work/d
ls -ln /work >/work/ls' -w "$V"
like "$(grep ' tool$' "$V/ls" 2>/dev/null)" rwsr-sr-x "set-id: the container set the bits on /work/tool"
is "$(stat -c %A "$V/tool" 2>/dev/null)" -rwxr-xr-x "... and after the run the file has none"
is "$(stat -c %A "$V/d/e/tool2" 2>/dev/null)" -rwxr-xr-x "... nor one deeper down"
if [ "$me" != 0 ]; then
	is "$(stat -c %A "$V/d" 2>/dev/null)" drwxrwxr-x \
		"... nor the directory (and others' write is gone)"
	like "$(jget warnings)" "set-user-ID or set-group-ID" "... and a warning names them"
else
	# Root's entries are handed back: the set-group-ID bit the run gave
	# the directory goes with the hand-back (linux-owner.c), others' write
	# with the git search, which says so.
	is "$(stat -c %A "$V/d" 2>/dev/null)" drwxrwxr-x \
		"... nor the directory (and others' write is gone)"
	like "$(jget warnings)" "writable by other users" "... and a warning names the directory"
fi

# A set-id file in a directory the run made unsearchable for its owner
# (mode 0001): the search after the run opens it for the caller for the
# search alone, takes the bits, and gives the directory its mode back.
if [ "$me" != 0 ]; then
	V=$T/v-setid-hid
	mkdir "$V"
	dk_script 'mkdir /work/d && cp /bin/busybox /work/d/x && chmod 6755 /work/d/x && chmod 0001 /work/d' -w "$V"
	is "$(stat -c %a "$V/d" 2>/dev/null)" 1 "set-id in a directory of mode 0001: it has its mode back"
	chmod u+rx "$V/d"
	is "$(stat -c %A "$V/d/x" 2>/dev/null)" -rwxr-xr-x "... and the file in it has no set-id bit"
	chmod -R u+rwx "$V"
else
	skip "a caller other than root: root's hand-back clears the bits at any depth" 2
fi

# --- no ACL entry for other users is left on the caller's files --------------
# The container is in the host's user namespace and the engine's seccomp
# profile lets it set POSIX ACLs: a named entry may name any local user,
# who could then write the caller's files after the run. A static helper
# (the image has no setfacl) writes the raw xattr, as the kernel takes it.
cat >"$T/setacl.c" <<'C'
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
static unsigned char buf[44];
static int off = 4;
static void ent(unsigned tag, unsigned perm, uint32_t id) {
	unsigned char *p = buf + off;
	off += 8;
	p[0] = tag; p[1] = tag >> 8; p[2] = perm; p[3] = 0;
	p[4] = id; p[5] = id >> 8; p[6] = id >> 16; p[7] = id >> 24;
}
int main(int argc, char **argv) {
	buf[0] = 2;
	ent(1, 7, ~0u); ent(2, 7, (uint32_t)strtoul(argv[3], 0, 10));
	ent(4, 5, ~0u); ent(0x10, 7, ~0u); ent(0x20, 5, ~0u);
	return setxattr(argv[1], strcmp(argv[2], "default") ? "system.posix_acl_access"
	    : "system.posix_acl_default", buf, off, 0) != 0;
}
C
# acl_of PATH: the ACL xattrs PATH has, "access default", "access", or "".
acl_of() {
	"$PY" -c '
import os, sys
print(" ".join(k for k in ("access", "default") if "system.posix_acl_" + k in os.listxattr(sys.argv[1])))' "$1"
}
V=$T/v-acl
mkdir "$V"
chmod 755 "$V"
printf '#!/bin/sh\necho building\n' >"$V/build.sh"
chmod 755 "$V/build.sh"
echo kept >"$V/keep.txt"
if ! cc -static -o "$V/setacl" "$T/setacl.c" 2>/dev/null; then
	skip "no C compiler that links statically for the ACL helper" 6
elif ! "$V/setacl" "$V/keep.txt" access 12345 2>/dev/null; then
	skip "the filesystem of $T has no POSIX ACLs" 6
else
	dk_script 'cd /work && ./setacl build.sh access 12345 && ./setacl . access 12345 &&
./setacl . default 12345 && echo set >acl-set; rm -f setacl' -w "$V"
	is "$(cat "$V/acl-set" 2>/dev/null)" set "ACLs: the container set entries naming uid 12345"
	is "$(acl_of "$V")" "" "... the workdir has no ACL after the run"
	is "$(acl_of "$V/build.sh")" "" "... nor build.sh"
	is "$(stat -c %A "$V/build.sh")" -rwxr-xr-x "... whose mode is what it was"
	like "$(jget warnings)" "ACL" "... and a warning names them"
	is "$(acl_of "$V/keep.txt")" access "... a file the run left alone keeps the caller's own ACL"
fi

# A kept container outlives its runs: a process the first run left there
# put an entry naming another user on root's build.sh the moment the next
# run's lend made the file uid 65534's, before the lend's end; the
# hand-back took off only ACLs changed after that end, and the named user
# then wrote root's file. For a kept container every entry loses them.
cat >"$T/aclwait.c" <<'C'
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
int main(int argc, char **argv) {
	struct stat st;
	int i;
	if (argc < 3 || fork() != 0)
		return 0;
	setsid();
	for (i = 0; i < 1200000 && !(stat(argv[1], &st) == 0 && st.st_uid == 0); i++)
		usleep(50);
	for (i = 0; i < 1200000 && !(stat(argv[1], &st) == 0 && st.st_uid == 65534); i++)
		usleep(50);
	execl(argv[2], argv[2], argv[1], "access", "12345", (char *)0);
	return 1;
}
C
V=$T/v-keepacl
mkdir "$V"
printf '#!/bin/sh\necho building\n' >"$V/build.sh"
if [ "$me" != 0 ]; then
	skip "a caller other than root: no lend, the git search takes the ACLs off" 2
elif ! cc -static -o "$V/aclwait" "$T/aclwait.c" 2>/dev/null ||
    ! cc -static -o "$V/setacl" "$T/setacl.c" 2>/dev/null; then
	skip "no C compiler that links statically for the ACL helpers" 2
else
	dk_script '/work/aclwait /work/build.sh /work/setacl' -w "$V" --docker-keep sbxt-keepacl
	dk_script 'echo hello' -w "$V" --docker-keep sbxt-keepacl
	"$SBXRUN" --docker-rm sbxt-keepacl >/dev/null 2>&1
	is "$(stat -c %u "$V/build.sh")" 0 "kept container: build.sh is root's after the second run"
	is "$(acl_of "$V/build.sh")" "" "... with no ACL a leftover process set during the lend"
fi

# The ACL step after a caller's run (not root's) changes the files the run
# changed: another local user whom an ACL lets write a file of the
# caller's outside the workdir linked it into a directory the sandbox had
# opened to everyone, and its ACL was taken off (and its mode rewritten)
# where it lay outside. A file with several links is named, not changed.
V=$T/v-linkacl
mkdir -p "$V/w"
if [ "$me" != 0 ]; then
	skip "needs root to play the caller and another user" 3
elif ! id -nG sbxtest 2>/dev/null | tr ' ' '\n' | grep -qx docker; then
	skip "sbxtest is not in the group docker here" 3
elif ! cc -static -o "$V/setacl" "$T/setacl.c" 2>/dev/null; then
	skip "no C compiler that links statically for the ACL helper" 3
else
	echo shared >"$V/shared.txt"
	"$V/setacl" "$V/shared.txt" access 65534
	chown -R sbxtest: "$V"
	mode=$(stat -c %a "$V/shared.txt")
	chmod 755 "$V" "$T"
	printf '%s\n' 'mkdir /work/drop; chmod 777 /work/drop; i=0
while [ ! -e /work/drop/x ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i+1)); done' >"$T/link-script"
	/usr/sbin/runuser -u sbxtest -- env DOCKER_HOST="${DOCKER_HOST:-}" "$SBXRUN" --backend docker \
	    --docker-image "$IMAGE" -w "$V/w" --diag none <"$T/link-script" >"$T/link.out" 2>&1 &
	lpid=$!
	wait_for "[ -d '$V/w/drop' ]" 60
	sleep 0.5
	setpriv --reuid=65534 --regid=65534 --clear-groups ln "$V/shared.txt" "$V/w/drop/x"
	wait "$lpid"
	is "$(stat -c %h "$V/shared.txt")" 2 "linked in: another user linked the caller's file into the workdir" ||
		diag "$(cat "$T/link.out")"
	is "$(acl_of "$V/shared.txt")" access "... the file keeps its ACL"
	is "$(stat -c %a "$V/shared.txt")" "$mode" "... and its mode" || diag "$(cat "$T/link.out")"
fi

# --- the environment is built, not inherited ---------------------------------
SBX_CANARY_ENV=leaked-canary-$$ SBX_PASSED=passed-$$ \
	dk_script 'env >/work/env.txt' -w "$W" --pass-env SBX_PASSED -e SET_BY_FLAG=yes
unlike "$(cat "$W/env.txt")" "leaked-canary-$$" "the caller's environment does not leak"
like "$(cat "$W/env.txt")" "SBX_PASSED=passed-$$" "--pass-env passes its variable"
like "$(cat "$W/env.txt")" "SET_BY_FLAG=yes" "--env sets one"

# Values set with --env or [env] are not on any command line while the
# run lasts (/proc/PID/cmdline is readable by every local user): the
# client takes them from its own environment. Judged from the host's
# /proc during the run.
printf '[env]\nPROFILE_TOKEN = profile-canary-%s\n' $$ >"$T/env.ini"
printf '%s\n' 'env >/work/env2.txt; touch /work/env-started; i=0
while [ ! -e /work/env-go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done' >"$T/env-script"
"$SBXRUN" --backend docker --docker-image "$IMAGE" -w "$W" --diag none -p "$T/env.ini" \
    -e FLAG_TOKEN="flag-canary-$$" <"$T/env-script" >/dev/null 2>&1 &
env_pid=$!
wait_for '[ -e "$W/env-started" ]' 60
# The clients' command lines (sbxrun's own holds the -e the caller typed).
for f in /proc/[0-9]*/cmdline; do
	tr '\0' ' ' <"$f" 2>/dev/null
	echo
done 2>/dev/null | grep '^docker run ' >"$T/clients"
touch "$W/env-go"
wait "$env_pid"
like "$(cat "$T/clients")" "--env=FLAG_TOKEN" "control: the docker client's command line was read (/proc)"
is "$(grep -o -e "profile-canar[y]-$$" -e "flag-canar[y]-$$" "$T/clients" | sort -u | tr '\n' ' ')" "" \
    "--env and [env] values: not on the docker client's command line during the run"
like "$(cat "$W/env2.txt" 2>/dev/null)" "PROFILE_TOKEN=profile-canary-$$" "... the container has the [env] value"
like "$(cat "$W/env2.txt" 2>/dev/null)" "FLAG_TOKEN=flag-canary-$$" "... and the --env value"
rm -f "$W/env2.txt" "$W/env-started" "$W/env-go"

# --- the binds lower the filesystem view ---------------------------------------
# Each verdict from the host: what is in the workdir after the run.

# A protected symlink keeps its target read-only: [protect] names deploy,
# deploy -> config, a directory in the workdir.
V=$T/v-link
mkdir -p "$V/config"
echo original >"$V/config/app.yml"
ln -s config "$V/deploy"
printf '[protect]\npath = deploy\n' >"$T/protect-link.ini"
dk_script 'echo evil >/work/deploy/app.yml; echo evil >/work/config/app.yml
rm -f /work/config/app.yml; echo evil >/work/config/app.yml; echo ran >/work/ran' \
	-w "$V" -p "$T/protect-link.ini"
is "$(cat "$V/ran" 2>/dev/null)" ran "protect deploy -> config: the writing script ran"
is "$(cat "$V/config/app.yml" 2>/dev/null)" original \
	"... and the link's target config/app.yml is unchanged on the host"

# A protected path below a directory: renaming the directory would put
# a new one of the name on the host (the read-only bind follows the
# entry, not its name). Each directory on the way is pinned.
V=$T/v-prot-mv
mkdir -p "$V/ci"
echo original >"$V/ci/deploy.sh"
printf '[protect]\npath = ci/deploy.sh\n' >"$T/protect-mv.ini"
dk_script 'cd /work; mv ci ci.orig; mkdir -p ci; echo evil >ci/deploy.sh; echo ran >ran' \
	-w "$V" -p "$T/protect-mv.ini"
is "$(cat "$V/ran" 2>/dev/null)" ran "protect ci/deploy.sh: the renaming script ran"
is "$(cat "$V/ci/deploy.sh" 2>/dev/null)" original \
	"... and the host's ci/deploy.sh is the original (its directory could not be renamed)"
# The pins are where the workdir shows each directory, never more: a
# read-only mount of the workdir (-m W:mirror:ro) showed the same
# directories, and pinned there read-write they made the protected file
# writable through the mirror; a protected path below a secret directory
# had its directories bound over the secret's cover, and the secret was
# read and rewritten in the container.
V=$T/v-prot-ro
mkdir -p "$V/ci/scripts" "$V/private/sub"
echo original >"$V/ci/scripts/deploy.sh"
echo TOP-SECRET >"$V/private/sub/key.pem"
echo 'echo x' >"$V/private/sub/x.sh"
dk_script 'echo evil >/work/mirror/ci/scripts/deploy.sh; cat /work/private/sub/key.pem
echo evil >/work/private/sub/key.pem; echo ran >/work/ran' \
	-w "$V" -m "$V:mirror:ro" --protect ci/scripts/deploy.sh --deny-read "$V/private" \
	--protect private/sub/x.sh
is "$(cat "$V/ran" 2>/dev/null)" ran "pins: the writing script ran"
is "$(cat "$V/ci/scripts/deploy.sh")" original \
	"... the protected file is unchanged through a read-only mount's view (host side)"
is "$(cat "$V/private/sub/key.pem")" TOP-SECRET "... the secret below a protected path is unchanged (host side)"
unlike "$(cat "$T/out")" TOP-SECRET "... and was not read"

# The built-in list with the workdir the caller's home: .config/git/config.
H=$T/v-home
mkdir -p "$H/.config/git"
printf '[user]\n\tname = me\n' >"$H/.config/git/config"
cp "$H/.config/git/config" "$T/gitconfig.orig"
printf '%s\n' 'cd /work; mv .config .config.orig; mkdir -p .config/git
printf "[core]\n\tfsmonitor = evil\n" >.config/git/config; echo ran >ran' >"$T/stdin"
HOME=$H "$SBXRUN" --backend docker --docker-image "$IMAGE" -w "$H" --diag fd:3 \
	<"$T/stdin" >"$T/out" 2>"$T/err" 3>"$T/diag"
is "$(cat "$H/ran" 2>/dev/null)" ran "the home as workdir: the renaming script ran"
ok "... and the host's .config/git/config is the original" cmp -s "$H/.config/git/config" "$T/gitconfig.orig"

# A git worktree's .git is a file naming the repository: it is protected
# like a .git directory.
V=$T/v-wt
mkdir "$V"
printf 'gitdir: %s/repo/.git/worktrees/v-wt\n' "$T" >"$V/.git"
cp "$V/.git" "$T/git-file.orig"
dk_script 'printf "gitdir: /evil\n" >/work/.git; rm -f /work/.git
printf "gitdir: /evil\n" >/work/.git; echo ran >/work/ran' -w "$V"
is "$(cat "$V/ran" 2>/dev/null)" ran "a worktree's .git file: the rewriting script ran"
ok "... and the host's .git file is unchanged" cmp -s "$V/.git" "$T/git-file.orig"

# A [mounts] target missing from the workdir makes no existing .git file
# look made by the sandbox: after a run that does nothing it is still
# there, not moved aside.
V=$T/v-mt
mkdir "$V" "$T/mt-src"
echo data >"$T/mt-src/file"
cp "$T/git-file.orig" "$V/.git"
dk_script true -w "$V" -m "$T/mt-src:data"
is "$SBX_STATUS" 0 "a missing mount target and a .git file: the run succeeds"
ok "... the host's .git file is still there, unchanged" cmp -s "$V/.git" "$T/git-file.orig"
is "$(ls -a "$V" | grep -c 'sbxrun-untrusted')" 0 "... and nothing was moved aside"

# The mount targets a run made are removed after it through the workdir's
# descriptor, following no symlink: a root caller's workdir is still lent
# to uid 65534 then, and a second sandbox on it (here a uid-65534 process
# on the host, which is what another root run's sandbox is) swaps the
# directory on the way to them for a symlink to a directory elsewhere
# holding a directory and an empty file of the same names. Removed by
# their paths, both went (tried).
if [ "$me" = 0 ]; then
	chmod 711 "$T"
	V=$T/v-tgt
	mkdir -p "$V" "$T/tgt-src" "$T/victim/b"
	chmod 755 "$V" "$T/tgt-src" "$T/victim"
	: >"$T/victim/f"
	echo data >"$T/tgt-src/file"
	printf '%s\n' 'touch /work/started; i=0
while [ ! -e /work/go ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done' >"$T/tgt-script"
	"$SBXRUN" --backend docker --docker-image "$IMAGE" --diag fd:3 -w "$V" \
	    -m "$T/tgt-src:a/b" -m "$T/tgt-src/file:a/f" <"$T/tgt-script" \
	    >"$T/tgt.out" 2>"$T/tgt.err" 3>"$T/tgt.diag" &
	tgt_pid=$!
	wait_for "[ -e '$V/started' ]" 60
	setpriv --reuid 65534 --regid 65534 --clear-groups sh -c \
	    'mv "$1/a" "$1/a.moved" && ln -s "$2" "$1/a" && : >"$1/go"' sh "$V" "$T/victim"
	is "$?" 0 "a uid-65534 process swapped a/ for a symlink during the run"
	wait "$tgt_pid"
	is "$?" 0 "... the run ended well"
	ok "the removal of the mount targets followed no symlink: a directory elsewhere stays" \
	    test -d "$T/victim/b"
	ok "... and so does an empty file elsewhere" test -e "$T/victim/f"
	V=$T/v-tgt2
	mkdir "$V"
	dk_script true -w "$V" -m "$T/tgt-src:a/b" -m "$T/tgt-src/file:a/f"
	is "$SBX_STATUS:$(ls -A "$V")" "0:" "the mount targets a run made are removed after it"
else
	skip "needs a root caller: the workdir is lent to uid 65534" 5
fi

# A root caller with a secret directory in the workdir: the workdir is
# lent to nobody around it (the secret is not), and sbxrun hands back the
# script's status and its diagnostics line.
if [ "$me" = 0 ]; then
	V=$T/v-secret
	mkdir -p "$V/secret"
	echo secret-canary-$$ >"$V/secret/key"
	dk_script 'cat /work/secret/key >/work/leak 2>/dev/null; ls /work/secret >>/work/leak 2>/dev/null; exit 5' \
		-w "$V" --deny-read "$V/secret"
	is "$SBX_STATUS" 5 "root, a secret directory in the workdir: the script's status 5"
	ok "... and the diagnostics line is complete" check_diag "$T/diag"
	ok "... the script ran (it left /work/leak)" test -e "$V/leak"
	unlike "$(cat "$V/leak" 2>/dev/null)" "secret-canary|key" "... and it read nothing of the secret"
else
	skip "a root caller with a secret directory: needs root (uid $me)" 4
fi

# --- a control character in a path handed to the client ---------------------
# The client reads --mount as CSV, and its reader turns "\r\n" inside a
# quoted field into "\n": the daemon bound or covered another name than
# the one sbxrun checked. A resolved path holding a control character is
# refused (125, naming it); judged by the workdir's files afterwards.
V=$T/v-crlf
mkdir "$V"
crlf=$(printf 'key\r\nfile')
lf=$(printf 'key\nfile')
echo secret-canary-$$ >"$V/$crlf"
ln -s "$crlf" "$V/secret.key"
dk_script 'cat /work/secret.key >/work/leak 2>/dev/null; exit 0' -w "$V" --deny-read "$V/secret.key"
is "$SBX_STATUS" 125 "--deny-read of a link to a name holding CR LF: refused with 125"
like "$(jget error)" 'key\x0d\x0afile' "... the error names the path, its control characters shown"
unlike "$(cat "$V/leak" 2>/dev/null)" secret-canary "... the secret was not read"
ok "... and no cover was made on the name with LF only" test ! -e "$V/$lf"
# The workdir reached through a link to "proj\r\nx", its LF-only twin
# another directory: the container must not be given the twin.
mkdir "$T/crlf-w" "$T/crlf-w/$(printf 'proj\r\nx')" "$T/crlf-w/$(printf 'proj\nx')"
chmod 777 "$T/crlf-w/$(printf 'proj\nx')"
ln -s "$(printf 'proj\r\nx')" "$T/crlf-w/link"
dk_script 'echo ran >/work/ran' -w "$T/crlf-w/link"
is "$SBX_STATUS" 125 "a workdir whose real path holds CR LF: refused with 125"
ok "... nothing ran in the directory with LF only" test ! -e "$T/crlf-w/$(printf 'proj\nx')/ran"
ok "... nor in the workdir" test ! -e "$T/crlf-w/$(printf 'proj\r\nx')/ran"

# --- network off: nothing reachable, judged by a host listener ----------------
# The listener is on the engine's bridge address: an address of this host
# that is not loopback, and that a bridged container can reach.
gw=$(docker network inspect bridge --format '{{(index .IPAM.Config 0).Gateway}}' 2>/dev/null)
if [ -z "$gw" ]; then
	fail "the engine's bridge has a gateway address"
else
	"$PY" - "$gw" "$T/port" "$T/listener.log" <<'EOF' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], 0))
s.listen(16)
open(sys.argv[2], "w").write(str(s.getsockname()[1]))
log = open(sys.argv[3], "a")
while True:
    c, a = s.accept()
    log.write("connection from %s\n" % a[0])
    log.flush()
    c.close()
EOF
	BG_PIDS="$BG_PIDS $!"
	wait_for '[ -s "$T/port" ]' 10
	port=$(cat "$T/port")
	probe="nc -w 3 $gw $port </dev/null; wget -q -T 3 -O /dev/null http://$gw:$port/; true"
	dk_script "$probe" -w "$W"
	is "$SBX_STATUS" 0 "network off: the probing script ran"
	is "$(cat "$T/listener.log" 2>/dev/null)" "" "network off: the host listener at $gw logged nothing"
	# The control: the same probe with the network on reaches it, so
	# the silence above is the backend's doing.
	dk_script "$probe" -w "$W" --network on --allow-degraded
	like "$(cat "$T/listener.log" 2>/dev/null)" "connection from" \
		"control: with the network on the listener hears the container"
	like "$(jget unenforced)" '"network"' "network on: unenforced names network"
	like "$(jget unenforced)" '"loopback"' "... and loopback (host services stay reachable)"
	dk_script true -w "$W" --network on
	is "$SBX_STATUS" 125 "network on without --allow-degraded: refused with 125"
fi

# --- memory: the container's cgroup, and the engine's OOM verdict -------------
dk_script 'x=$(head -c 200000000 /dev/zero | tr "\0" a); echo ${#x} >/work/alloc' \
	-w "$W" --memory 64M
is "$(jget oom_killed)" true "--memory 64M: a 200 MB allocation is OOM-killed"
ok "... and never completes (no /work/alloc)" test ! -e "$W/alloc"
is "$(jget limits.memory.by)" cgroup "limits.memory.by is cgroup"
dk_script 'x=$(head -c 20000000 /dev/zero | tr "\0" a); echo ${#x} >/work/alloc' \
	-w "$W" --memory 64M
is "$(cat "$W/alloc" 2>/dev/null)" 20000000 "control: 20 MB fits in 64M"
is "$(jget oom_killed)" false "... and oom_killed is false"
rm -f "$W/alloc"

# --- pids: a fork bomb is contained --------------------------------------------
# Each child leaves a marker before it sleeps: the host counts them. The
# loops are bounded by count (the second waits for the markers while it
# can still fork), the run by the timeout (124 would mean the bomb held
# sbxrun up).
bomb='i=0; while [ $i -lt 200 ]; do (touch /work/p/$i; sleep 30) & i=$((i+1)); done
j=0; while [ "$(ls /work/p | wc -l)" -lt 200 ] && [ $j -lt 100 ]; do sleep 0.1; j=$((j+1)); done'

mkdir "$W/p"
dk_script "$bomb" -w "$W" --pids 64 -t 60s
n=$(ls "$W/p" | wc -l)
if [ "$n" -le 64 ]; then
	pass "--pids 64: at most 64 processes ran ($n)"
else
	fail "--pids 64: $n processes ran"
fi
nok "... and sbxrun returned before its timeout (status $SBX_STATUS)" test "$SBX_STATUS" = 124
is "$(jget limits.pids.by)" cgroup "limits.pids.by is cgroup"
is "$(ours)" "" "... and nothing of it is left"
rm -rf "$W/p"
mkdir "$W/p"
dk_script "$bomb" -w "$W" --pids 1000 -t 60s
is "$(ls "$W/p" | wc -l | tr -d ' ')" 200 "control: with --pids 1000 all 200 ran"
rm -rf "$W/p"

# --- the timeout and signals kill the container ---------------------------------
dk_script 'sleep 300' -w "$W" -t 2s
is "$SBX_STATUS" 124 "the timeout: status 124"
is "$(jget timed_out)" true "... timed_out true"
is "$(ours)" "" "... and no container is left (docker ps -a)"

printf 'sleep 300\n' >"$T/stdin"
"$SBXRUN" --backend docker --docker-image "$IMAGE" -w "$W" --diag none <"$T/stdin" \
	>/dev/null 2>&1 &
pid=$!
wait_for '[ -n "$(ours)" ]' 30
kill -TERM "$pid"
wait "$pid"
st=$?
is "$st" 143 "SIGTERM to sbxrun: status 143"
is "$(ours)" "" "... and no container is left"

"$SBXRUN" --backend docker --docker-image "$IMAGE" -w "$W" --diag none <"$T/stdin" \
	>/dev/null 2>&1 &
pid=$!
wait_for '[ -n "$(ours)" ]' 30
kill -KILL "$pid"
wait "$pid" 2>/dev/null
if wait_for '[ -z "$(ours)" ]' 30; then
	pass "SIGKILL to sbxrun: its init removes the container"
else
	fail "SIGKILL to sbxrun: a container is left: $(ours)"
	docker rm -f $(ours) >/dev/null 2>&1
fi

# What may not be made is moved aside by init's orphaned hook when sbxrun
# was killed: a .git the sandbox made at the top of a workdir without one.
# Init closed everything of sbxrun's, the workdir's descriptor the hook
# moves through included, so the move failed and the .git stayed, for the
# caller's next git command to run its config; nor did the checks after
# the run, sbxrun's, ever come for a bare layout (HEAD, objects, refs).
W2=$T/w-orphan
mkdir -p "$W2"
printf 'mkdir .git objects refs; echo "[core]" >.git/config; echo "ref: refs/heads/m" >HEAD\nsleep 300\n' >"$T/stdin2"
"$SBXRUN" --backend docker --docker-image "$IMAGE" -w "$W2" --diag none <"$T/stdin2" \
	>/dev/null 2>&1 &
pid=$!
wait_for "[ -e '$W2/.git/config' ]" 30
kill -KILL "$pid"
wait "$pid" 2>/dev/null
wait_for '[ -z "$(ours)" ] && [ ! -e "$W2/.git" ]' 30
ok "SIGKILL to sbxrun: the .git the sandbox made is moved aside (host side)" \
    test ! -e "$W2/.git"
ok "... to a name beside it" test -n "$(ls -A "$W2" | grep '^\.git\.sbxrun')"
ok "... and so is the HEAD of a bare layout made at the top" test -f "$W2/HEAD.sbxrun-untrusted.1"

# A root caller's workdir is lent through the keeper: SIGKILL to sbxrun
# while it reads the container's state or removes it after the run (its
# init is gone by then) still has it handed back. Lent by sbxrun itself,
# the workdir stayed uid 65534's.
if [ "$me" = 0 ]; then
	V=$T/v-kill
	mkdir -p "$V/sub"
	echo data >"$V/sub/f"
	echo 'exit 0' >"$T/kill-script"
	hit=
	n=0
	while [ -z "$hit" ] && [ $n -lt 5 ]; do
		n=$((n + 1))
		"$SBXRUN" --backend docker --docker-image "$IMAGE" -w "$V" --diag none \
		    <"$T/kill-script" >/dev/null 2>&1 &
		kpid=$!
		i=0
		while [ -z "$hit" ] && [ $i -lt 20000 ] && kill -0 "$kpid" 2>/dev/null; do
			for c in $(cat /proc/$kpid/task/$kpid/children 2>/dev/null); do
				case "$(tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null)" in
				"docker inspect"* | "docker rm"*)
					kill -KILL "$kpid"
					hit=$(tr '\0' ' ' <"/proc/$c/cmdline" 2>/dev/null | cut -d' ' -f1-2)
					break
					;;
				esac
			done
			i=$((i + 1))
		done
		wait "$kpid" 2>/dev/null
	done
	if [ -z "$hit" ]; then
		skip "sbxrun could not be killed during its docker inspect or rm (5 tries)" 2
	else
		ok "SIGKILL to a root caller's sbxrun during its $hit: the workdir is handed back" \
		    wait_for '[ "$(stat -c %u "$V")" = 0 ] && [ -z "$(find "$V" -uid 65534)" ]' 10
		is "$(stat -c %u "$V/sub/f")" 0 "... a file in it is root's again"
	fi
	docker rm -f $(ours) >/dev/null 2>&1
else
	skip "needs a root caller: the workdir is lent to uid 65534" 2
fi

# --- a listen port answers from the host ----------------------------------------
lport=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
echo hello-from-the-container >"$W/index.html"
serve="httpd -p $lport -h /work; i=0; while [ ! -e /work/stop ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i+1)); done"
dk_script "$serve" -w "$W" --listen "$lport"
is "$SBX_STATUS" 125 "--listen without --allow-degraded: refused with 125"
like "$(jget error)" network "... naming the rule it cannot keep"
like "$(jget error)" listen "... and listen (any port binds on the bridge address)"
printf '%s\n' "$serve" >"$T/stdin"
"$SBXRUN" --backend docker --docker-image "$IMAGE" -w "$W" --listen "$lport" \
	--allow-degraded --diag fd:3 <"$T/stdin" >"$T/out" 2>"$T/err" 3>"$T/diag" &
pid=$!
got=$(wait_page 127.0.0.1 "$lport")
touch "$W/stop"
wait "$pid"
is "$got" hello-from-the-container "a listen port answers from the host on 127.0.0.1"
like "$(jget unenforced)" '"loopback"' "... and unenforced names loopback"
like "$(jget unenforced)" '"listen"' "... and listen"
rm -f "$W/stop" "$W/index.html"

# The listen list is not kept on the bridge: a port it does not name,
# bound by the container on its bridge address, answers from the host.
uport=$("$PY" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
echo unlisted-port-answer >"$W/index.html"
printf '%s\n' "httpd -p 0.0.0.0:$uport -h /work; tail -n1 /etc/hosts | cut -f1 >/work/ip.tmp; mv /work/ip.tmp /work/ip; i=0; while [ ! -e /work/stop ] && [ \$i -lt 600 ]; do sleep 0.1; i=\$((i+1)); done" >"$T/stdin"
"$SBXRUN" --backend docker --docker-image "$IMAGE" -w "$W" --listen "$lport" \
	--allow-degraded --diag fd:3 <"$T/stdin" >"$T/out" 2>"$T/err" 3>"$T/diag" &
pid=$!
got=$(wait_page "@$W/ip" "$uport")
touch "$W/stop"
wait "$pid"
is "$got" unlisted-port-answer "control: an unlisted port on the bridge address answers from the host"
like "$(jget unenforced)" '"listen"' "... so unenforced names listen"
is "$(jget isolation)" partial "... and isolation is partial"
rm -f "$W/stop" "$W/index.html" "$W/ip"

# --- --docker-keep: one kept container, each run an exec into it ------------
# Verdicts from the host: the engine's own inspect and top of the
# container, the runs' statuses and outputs as their clients hand them back.
KN=sbxkeep-$$
KW=$T/kw
mkdir "$KW"
# The container's processes as the engine lists them (docker top needs a
# pid column); fails when the engine cannot say, so no verdict is empty.
kept_top() {
	docker top "$KN" -eo pid,args
}
kept_label() {
	docker inspect --type=container --format '{{index .Config.Labels "sbxrun.keep"}}' "$KN" 2>/dev/null
}
dk_script 'echo kept-state >/tmp/state; echo first' --docker-keep "$KN" -w "$KW"
is "$SBX_STATUS" 0 "keep: the first run makes the container and runs"
is "$(cat "$T/out")" first "... its output reaches the caller"
is "$(kept_label)" "$KN" "... the container $KN exists, labelled sbxrun.keep (docker inspect)"
is "$(docker exec "$KN" cat /tmp/state 2>/dev/null)" kept-state \
	"... and what the run left in the container's own /tmp is there (docker exec from the host)"
is "$(ours)" "" "... a kept container is not a leftover of a run"
dk_script 'cat /tmp/state; exit 3' --docker-keep "$KN" -w "$KW"
is "$(cat "$T/out")" kept-state "keep: the second run finds the first run's state"
is "$SBX_STATUS" 3 "... its status comes back"
is "$(jget exit_code)" 3 "... exit_code 3"
is "$(jget backend)" docker "... backend docker"
is "$(jget timed_out)" false "... timed_out false"
is "$(jget limits.pids.by)" cgroup "... limits.pids.by is cgroup"
ok "... the diagnostics line is complete" check_diag "$T/diag"
like "$(jget warnings)" "$KN is left running with the workdir" \
	"... a warning says the container is left running with the workdir"
like "$(jget warnings)" "is not checked" "... and that what runs there after the run is not checked"

# Run B runs until the host says stop; run A, in the same container, times
# out. A's processes must be gone and B must live on.
printf '%s\n' 'sleep 1000 & touch /work/b-started; i=0; while [ ! -e /work/b-stop ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i+1)); done; echo B-alive' >"$T/b.sh"
"$SBXRUN" --backend docker --docker-image "$IMAGE" --docker-keep "$KN" -w "$KW" --diag fd:3 \
	<"$T/b.sh" >"$T/b.out" 2>"$T/b.err" 3>"$T/b.diag" &
bpid=$!
wait_for '[ -e "$KW/b-started" ]' 60
dk_script 'sleep 2000 & sleep 3000' --docker-keep "$KN" -w "$KW" -t 2s
is "$SBX_STATUS" 124 "keep: a run that times out: status 124"
is "$(jget timed_out)" true "... timed_out true"
top=$(kept_top 2>&1)
unlike "$top" "sleep [23]000" "... its processes are gone from the container (docker top)"
like "$top" "sleep 1000" "... the concurrent run's processes are not"
is "$(docker inspect --type=container --format '{{.State.Running}}' "$KN")" true \
	"... and the container runs on"
touch "$KW/b-stop"
wait "$bpid"
is "$?" 0 "... the concurrent run ends by itself: status 0"
is "$(cat "$T/b.out")" B-alive "... with its own output"
is "$(jget timed_out "$T/b.diag")" false "... not timed out"
rm -f "$KW/b-started" "$KW/b-stop"

# SIGTERM to sbxrun ends that run's group, not the container.
printf 'sleep 4000\n' >"$T/stdin"
"$SBXRUN" --backend docker --docker-image "$IMAGE" --docker-keep "$KN" -w "$KW" --diag none \
	<"$T/stdin" >/dev/null 2>&1 &
pid=$!
ok "keep: a run that will be stopped runs (docker top)" \
	wait_for 'kept_top 2>/dev/null | grep -q "sleep 4000"' 30
kill -TERM "$pid"
wait "$pid"
is "$?" 143 "keep: SIGTERM to sbxrun: status 143"
ok "... its run's processes are gone (docker top)" \
	wait_for 'kept_top >"$T/top" && ! grep -q "sleep 4000" "$T/top"' 20
is "$(kept_label)" "$KN" "... and the kept container is still there"
printf 'sleep 5000\n' >"$T/stdin"
"$SBXRUN" --backend docker --docker-image "$IMAGE" --docker-keep "$KN" -w "$KW" --diag none \
	<"$T/stdin" >/dev/null 2>&1 &
pid=$!
ok "keep: a run that will be killed runs (docker top)" \
	wait_for 'kept_top 2>/dev/null | grep -q "sleep 5000"' 30
kill -KILL "$pid"
wait "$pid" 2>/dev/null
ok "keep: SIGKILL to sbxrun: its init kills the run's processes (docker top)" \
	wait_for 'kept_top >"$T/top" && ! grep -q "sleep 5000" "$T/top"' 30
is "$(kept_label)" "$KN" "... and the kept container is still there"

# A run that replaces its process-group file with a FIFO: the kill reads
# only a regular file, so it neither blocks (a cat on the FIFO held it
# until its client was killed at 10 s) nor claims the tree was killed
# when it could not say which group to kill.
printf '%s\n' 'f=$(ls /tmp/.sbxrun-run-* | head -n 1); rm -f "$f"; mkfifo "$f"; sleep 6000' >"$T/stdin"
t0=$(now_ms)
"$SBXRUN" --backend docker --docker-image "$IMAGE" --docker-keep "$KN" -w "$KW" -t 2s \
	--diag fd:3 <"$T/stdin" >"$T/out" 2>"$T/err" 3>"$T/diag"
SBX_STATUS=$?
t1=$(now_ms)
is "$SBX_STATUS" 124 "keep: the group file replaced by a FIFO: status 124"
if [ $((t1 - t0)) -lt 9000 ]; then
	pass "... the kill did not block on the FIFO ($((t1 - t0)) ms)"
else
	fail "... the kill blocked: the run took $((t1 - t0)) ms"
fi
if kept_top 2>/dev/null | grep -q "sleep 6000"; then
	unlike "$(cat "$T/err")" "whole tree was killed" \
		"... its group survived (docker top), and stderr does not say the tree was killed"
	like "$(cat "$T/err")" "could not be confirmed" "... it says the kill could not be confirmed"
	like "$(jget warnings)" "may still run" "... and a warning says the run's processes may still run"
	docker exec "$KN" pkill -KILL -f "sleep 6000" >/dev/null 2>&1
else
	like "$(cat "$T/err")" "whole tree was killed" "... its group is gone (docker top), and stderr says so"
	skip "the kill could not be confirmed: it was" 2
fi

# A mount whose target the first run made: the target stays for the
# kept container's life (removing it detached the mount in the container,
# and every later run saw an empty directory).
mkdir "$T/kwm" "$T/kwm-src"
echo mounted-data >"$T/kwm-src/file"
dk_script 'cat /work/data/file' --docker-keep "$KN-mt" -w "$T/kwm" -m "$T/kwm-src:data"
is "$SBX_STATUS:$(cat "$T/out")" 0:mounted-data "keep: a -m mount, first run: the mount is there"
ok "... its target stays in the workdir after the run" test -d "$T/kwm/data"
dk_script 'cat /work/data/file' --docker-keep "$KN-mt" -w "$T/kwm" -m "$T/kwm-src:data"
is "$SBX_STATUS:$(cat "$T/out")" 0:mounted-data "... and the second run still sees the mount"
sbx --docker-rm "$KN-mt" </dev/null

# A container made for something else is never used.
mkdir "$T/kw2"
dk_script true --docker-keep "$KN" -w "$T/kw2"
is "$SBX_STATUS" 125 "keep: another workdir: refused with 125"
like "$(jget error)" "workdir" "... naming the workdir"
dk_script true --docker-keep "$KN" -w "$KW" --pids 77
is "$SBX_STATUS" 125 "keep: other limits: refused with 125"
dk_script true --docker-keep "$KN"
is "$SBX_STATUS" 125 "keep: no workdir: refused with 125"
docker run -d --name "$KN-foreign" --entrypoint sleep "$IMAGE" 600 >/dev/null 2>&1
dk_script 'touch /work/foreign-ran' --docker-keep "$KN-foreign" -w "$KW"
is "$SBX_STATUS" 125 "keep: a container sbxrun did not make: refused with 125"
ok "... and nothing ran in it" test ! -e "$KW/foreign-ran"
sbx --docker-rm "$KN-foreign" </dev/null
is "$SBX_STATUS" 125 "--docker-rm of a container sbxrun did not make: 125"
is "$(docker inspect --type=container --format '{{.State.Running}}' "$KN-foreign")" true \
	"... and it is left alone"
docker rm -f "$KN-foreign" >/dev/null 2>&1

# --docker-rm
sbx --docker-rm "$KN" </dev/null
is "$SBX_STATUS" 0 "--docker-rm: status 0"
ok "... the container is gone (docker inspect)" sh -c "! docker inspect --type=container '$KN' >/dev/null 2>&1"
sbx --docker-rm "$KN" </dev/null
is "$SBX_STATUS" 125 "--docker-rm of an absent container: 125"
like "$(cat "$T/err")" "no container named $KN" "... saying so"

# --- the probe: a dead or a hung daemon ---------------------------------------
"$PY" - "$T/dead.sock" "$T/hung.sock" "$T/hung.log" <<'EOF' &
import socket, sys, time
d = socket.socket(socket.AF_UNIX)
d.bind(sys.argv[1])           # bound, never listening: a daemon gone
h = socket.socket(socket.AF_UNIX)
h.bind(sys.argv[2])
h.listen(16)                  # accepts, never answers: a daemon hung
log = open(sys.argv[3], "a")
held = []
while True:
    c, _ = h.accept()
    log.write("asked\n")
    log.flush()
    held.append(c)
EOF
BG_PIDS="$BG_PIDS $!"
wait_for '[ -S "$T/hung.sock" ]' 10
for kind in dead hung; do
	t0=$(now_ms)
	DOCKER_HOST=unix://$T/$kind.sock dk_script true -w "$W"
	t1=$(now_ms)
	is "$SBX_STATUS" 125 "a $kind daemon: status 125"
	like "$(jget error)" "docker" "... with a message naming docker"
	if [ $((t1 - t0)) -lt 5000 ]; then
		pass "... within 5 s ($((t1 - t0)) ms)"
	else
		fail "... took $((t1 - t0)) ms"
	fi
done
: >"$T/hung.log"
DOCKER_HOST=unix://$T/hung.sock sbx_script 'exit 0' -w "$W"
is "$SBX_STATUS" 0 "auto runs with a hung daemon configured"
is "$(cat "$T/hung.log")" "" "... and never asks it"
DOCKER_HOST=unix://$T/dead.sock dk --print-backend -w "$W" </dev/null
is "$SBX_STATUS" 0 "--print-backend of docker needs no daemon"
like "$(cat "$T/out")" "--network=none" "... and prints the command line"

# --- what the run leaves for the caller's git and for other users -----------
# As under the other Linux backends (sbxrun(1)): a bare repository made at
# the workdir's top is moved aside, the workdir is not left writable by
# others, and a .git at the top of a read-write mount's source stays
# read-only inside (its config writable by anyone here, so that only the
# bind keeps the container's uid from changing it).
G=$T/g
R=$T/rwsrc
mkdir -p "$G" "$R/.git/hooks"
printf '[core]\n\tbare = false\n' >"$R/.git/config"
chmod 666 "$R/.git/config"
chmod 755 "$G" "$R"
cp "$R/.git/config" "$T/rwconfig.orig"
dk_script 'cd /work && mkdir -p objects refs && echo "ref: refs/heads/main" >HEAD
printf "[core]\n\tfsmonitor = evil\n" >config
chmod 777 /work
mkdir -p /work/.git
printf "\tfsmonitor = evil\n" >>/work/lib/.git/config
exit 0' -w "$G" -m "$R:lib:rw"
is "$SBX_STATUS" 0 "docker: a script writing repositories ran"
ok "... the bare layout made at the workdir's top was moved aside" test ! -e "$G/HEAD"
like "$(jget warnings)" "moved aside" "... and the warnings say so"
is "$(stat -c %a "$G")" 775 "... the workdir is not left writable by others"
ok "... a .git made at the top was moved aside" test -d "$G/.git.sbxrun-untrusted.1" -a ! -e "$G/.git"
ok "... a read-write mount's .git kept its config" cmp -s "$R/.git/config" "$T/rwconfig.orig"

is "$(ours)" "" "no container of ours is left at the end"
done_testing
