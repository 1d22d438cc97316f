#!/bin/sh
# Runs part of the integration suite inside real container engines, with
# no added privilege (doc/design/containers.md, README "In containers and
# CI runners"). As root on a Debian 12 machine:
#
#	sh tests/containers/run-in-engines.sh SBXRUN [SCRIPT...]
#
# Installs docker.io and podman when missing (apt-get), starts a dockerd
# of its own (data, exec root, pid file and socket under a temporary
# directory; stopped by its pid at the end, also on failure), builds an
# image from a minimal root (busybox-static, sbxrun, python3, git and the
# libraries ldd names) with "docker import" and "podman import" (no
# registry), and runs the scripts in each cell below under the backend
# "auto" picks there. Prints TAP: one line per cell and script, plus the
# hardened-root and "podman kube play" checks.
set -u
SBXRUN=${1:?usage: run-in-engines.sh SBXRUN [SCRIPT...]}
shift
HERE=$(cd "$(dirname "$0")" && pwd)
TOP=$(cd "$HERE/../.." && pwd)
SCRIPTS=${*:-run.sh jail-fs.sh jail-secrets.sh jail-git.sh net-off.sh net-listen.sh net-proxy.sh}
IMAGE=sbxrun-ci:local
n=0
nfail=0

tap() { # tap OK|FAIL DESC
	n=$((n + 1))
	if [ "$1" = OK ]; then echo "ok $n - $2"; else echo "not ok $n - $2"; nfail=$((nfail + 1)); fi
}

[ "$(id -u)" = 0 ] || { echo "1..0 # SKIP needs root to start dockerd"; exit 0; }
need=""
command -v dockerd >/dev/null 2>&1 || need="$need docker.io"
command -v podman >/dev/null 2>&1 || need="$need podman"
command -v busybox >/dev/null 2>&1 || need="$need busybox-static"
# podman kube play builds its pod's pause image around catatonit.
command -v catatonit >/dev/null 2>&1 || need="$need catatonit"
if [ -n "$need" ]; then
	DEBIAN_FRONTEND=noninteractive apt-get install -y -q $need >/dev/null 2>&1 ||
		{ echo "Bail out! cannot install$need"; exit 1; }
fi

W=$(mktemp -d /tmp/sbxrun-engines.XXXXXX) || exit 1
chmod 755 "$W"
DOCK="docker -H unix://$W/docker.sock"
# podman sets a container's nofile and nproc to the host's maximum, which
# runc cannot set where sbxrun's CI itself runs without CAP_SYS_RESOURCE
# (exit 126 before anything runs): ask for limits below any hard limit.
printf '[containers]\ndefault_ulimits = ["nofile=4096:4096", "nproc=4096:4096"]\n' \
    >"$W/containers.conf"
CONTAINERS_CONF=$W/containers.conf
export CONTAINERS_CONF
# The engines and their containers (--network host) live in a network
# namespace of ours holding the remote test network (tests/net-fixture),
# so that the net-*.sh scripts have a remote host to be kept from.
NS=sbxci-$$
IN="nsenter --net=/run/netns/$NS"
cleanup() {
	if [ -s "$W/docker.pid" ]; then
		pid=$(cat "$W/docker.pid")
		kill "$pid" 2>/dev/null
		i=0
		while kill -0 "$pid" 2>/dev/null && [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done
		kill -9 "$pid" 2>/dev/null
	fi
	podman rmi -f "$IMAGE" >/dev/null 2>&1
	podman pod rm -f sbxrun-ci >/dev/null 2>&1
	umount -R "$W/data" 2>/dev/null
	umount "$W/exec/netns/default" 2>/dev/null
	[ -s "$W/fx/env" ] && $IN sh "$TOP/tests/net-fixture" down "$W/fx" >/dev/null 2>&1
	ip netns del "$NS" 2>/dev/null
	[ -n "${KEEP:-}" ] || rm -rf "$W"
}
trap cleanup EXIT
trap 'exit 1' INT TERM HUP

# --- the image: a minimal root ----------------------------------------------------
R=$W/root
mkdir -p "$R/bin" "$R/usr/bin" "$R/usr/local/bin" "$R/etc" "$R/tmp" "$R/var/tmp" "$R/work" \
    "$R/home/sbx" "$R/opt/sbx" "$R/proc" "$R/dev" "$R/sys"
chmod 1777 "$R/tmp" "$R/var/tmp"
cp "$(command -v busybox)" "$R/bin/busybox"
for app in $("$R/bin/busybox" --list); do
	[ -e "$R/bin/$app" ] || ln -s busybox "$R/bin/$app"
done
copy_libs() { # copy_libs FILE...: the libraries ldd names for each
	for f in "$@"; do
		ldd "$f" 2>/dev/null | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p; s/^[[:space:]]*\(\/[^ ]*\) (.*/\1/p' |
		while read -r lib; do
			[ -e "$R$lib" ] && continue
			mkdir -p "$R$(dirname "$lib")"
			cp -L "$lib" "$R$lib"
		done
	done
}
copy_with_libs() { # copy_with_libs FILE...: files and their libraries
	for f in "$@"; do
		mkdir -p "$R$(dirname "$f")"
		cp -L "$f" "$R$f"
	done
	copy_libs "$@"
}
cp "$SBXRUN" "$R/usr/local/bin/sbxrun"
py=$(readlink -f /usr/bin/python3)
copy_libs "$SBXRUN"
copy_with_libs "$py" /usr/bin/git /usr/bin/curl
# glibc opens libgcc_s at the first pthread_exit (no ldd names it): a
# threaded server inside aborts without it.
gcc_s=$(ldconfig -p | sed -n 's/.*libgcc_s\.so\.1 (libc6,x86-64) => //p' | head -n 1)
[ -n "$gcc_s" ] || gcc_s=$(ldconfig -p | sed -n 's/.*libgcc_s\.so\.1 .* => //p' | head -n 1)
[ -n "$gcc_s" ] && copy_with_libs "$gcc_s"
pyv=$(basename "$py")
tar -C / --exclude='__pycache__' --exclude="usr/lib/$pyv/test" \
    --exclude="usr/lib/$pyv/idlelib" --exclude="usr/lib/$pyv/tkinter" \
    --exclude="usr/lib/$pyv/ensurepip" --exclude="usr/lib/$pyv/lib2to3" \
    -cf - "usr/lib/$pyv" | tar -C "$R" -xf -
for so in "$R/usr/lib/$pyv/lib-dynload/"*.so; do copy_with_libs "/usr/lib/$pyv/lib-dynload/$(basename "$so")"; done
tar -C / -cf - usr/lib/git-core usr/share/git-core 2>/dev/null | tar -C "$R" -xf -
ln -sf "$py" "$R/usr/bin/python3"
cat >"$R/etc/passwd" <<'P'
root:x:0:0:root:/root:/bin/sh
sbx:x:1000:1000:sbx:/home/sbx:/bin/sh
nobody:x:65534:65534:nobody:/nonexistent:/bin/sh
P
printf 'root:x:0:\nsbx:x:1000:\nnogroup:x:65534:\n' >"$R/etc/group"
# busybox has no getent; the scripts ask it for the caller's home.
cat >"$R/usr/bin/getent" <<'G'
#!/bin/sh
[ "$1" = passwd ] || [ "$1" = group ] || exit 2
awk -F: -v k="$2" '$1 == k || $3 == k { print; found = 1 } END { exit !found }' "/etc/$1"
G
chmod 755 "$R/usr/bin/getent"
# /etc/sudoers, readable by all: only the secret list keeps it out.
echo 'root ALL=(ALL:ALL) ALL' >"$R/etc/sudoers"
chmod 444 "$R/etc/sudoers"
mkdir -p "$R/root"
chown 1000:1000 "$R/home/sbx" "$R/work"
chmod 755 "$R" "$R/work" "$R/root"
mkdir -p "$R/opt/sbx/tests"
cp -r "$TOP/tests/integration" "$R/opt/sbx/tests/"
[ -d "$TOP/tests/net-fixture" ] && cp -r "$TOP/tests/net-fixture" "$R/opt/sbx/tests/"
cp "$HERE/in-container.sh" "$HERE/pod.yaml" "$R/opt/sbx/"
chmod -R a+rX "$R/opt/sbx" "$R/usr"
tar -C "$R" -cf "$W/root.tar" .

# --- the network namespace, the remote test network, dockerd ----------------------------
ip netns add "$NS" || { echo "Bail out! cannot make the network namespace $NS"; exit 1; }
$IN ip link set lo up
$IN sh "$TOP/tests/net-fixture" up "$W/fx" >"$W/fx.log" 2>&1 ||
	{ echo "Bail out! tests/net-fixture up failed"; sed 's/^/# /' "$W/fx.log"; exit 1; }
chmod -R a+rX "$W/fx"
$IN dockerd --data-root "$W/data" --exec-root "$W/exec" --pidfile "$W/docker.pid" \
    -H "unix://$W/docker.sock" --bridge none --iptables=false --ip-masq=false \
    >"$W/dockerd.log" 2>&1 &
i=0
until $DOCK info >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -gt 300 ] && { echo "Bail out! dockerd did not start"; tail -5 "$W/dockerd.log"; exit 1; }
	sleep 0.1
done
# An imported root has no configuration: give it the PATH real images set
# (podman kube play, unlike run, adds none).
$DOCK import -c 'ENV PATH=/usr/local/bin:/usr/bin:/bin' "$W/root.tar" "$IMAGE" >/dev/null ||
	{ echo "Bail out! docker import"; exit 1; }
podman import -q -c 'ENV=PATH=/usr/local/bin:/usr/bin:/bin' "$W/root.tar" "$IMAGE" >/dev/null ||
	{ echo "Bail out! podman import"; exit 1; }

# CELLS (a b c d e f k; default all) picks cells, for runs by hand.
want() { case " ${CELLS:-a b c d e f k} " in *" $1 "*) return 0 ;; esac; return 1; }

# cell ID NAME ENGINE [RUN OPTION]...: the scripts inside, TAP counted here.
cell() {
	want "$1" || return 0
	out=$W/cell-$1.out name=$2 engine=$3 refused=$4
	shift 4
	$IN $engine run --rm --network host -v "$W/fx:$W/fx:ro" -e SBX_NET_FIXTURE="$W/fx" \
	    -v "$W/fx/resolv.conf:/etc/resolv.conf:ro" \
	    -e REFUSED="$refused" "$@" "$IMAGE" sh /opt/sbx/in-container.sh $SCRIPTS >"$out" 2>&1
	rc=$?
	be=$(sed -n 's/^# auto picks: //p' "$out" | head -n 1)
	for s in $SCRIPTS; do
		res=$(sed -n "s/^# result $s: //p" "$out")
		case $res in
		pass*) tap OK "$name: $s under ${be:-?} ($res)" ;;
		*)
			tap FAIL "$name: $s under ${be:-?} (${res:-no result})"
			sed -n "/^# begin $s\$/,/^# end $s\$/p" "$out" | grep -E '^not ok|^# SKIP|skip|^# +(got|wanted|unwanted):' | sed 's/^/#   /' | head -20
			;;
		esac
	done
	sed -n 's/^# start-up: /# '"$name"' start-up: /p' "$out"
	[ $rc = 0 ] || echo "# $name: exit $rc"
}

# REFUSED names the network rules a cell must refuse with 125: without
# pidfd_getfd the network supervisor cannot act on the sandbox's sockets
# (man/sbxrun.1, CONTAINERS). Docker's default profile refuses the call;
# root in either engine has no CAP_SYS_PTRACE, which taking a descriptor
# of its uid-65534 sandbox needs.
DREF="listen proxy"
cell a "docker default seccomp, user 1000" "$DOCK" "$DREF" --user 1000:1000
cell b "docker default seccomp, root" "$DOCK" "$DREF"
cell c "podman default, user 1000" podman "" --user 1000:1000
cell d "podman default, root" podman "$DREF"
cell e "docker cap-drop ALL no-new-privileges, user 1000" "$DOCK" "$DREF" \
    --cap-drop ALL --security-opt no-new-privileges --user 1000:1000

# Root without CAP_SETUID, CAP_SETGID, CAP_CHOWN: 125 naming the reason.
want f && $IN $DOCK run --rm --network host --cap-drop ALL --security-opt no-new-privileges "$IMAGE" \
    sh -c 'echo "echo ran" | sbxrun --diag fd:3 -w /work 3>/tmp/d; echo "rc=$?"; cat /tmp/d' >"$W/hr" 2>&1
if ! want f; then
	:
elif grep -q '^rc=125' "$W/hr" && grep -q 'without CAP_SETUID' "$W/hr" && ! grep -q '^ran' "$W/hr"; then
	tap OK "docker cap-drop ALL no-new-privileges, root: 125 naming the missing capabilities"
else
	tap FAIL "docker cap-drop ALL no-new-privileges, root: 125 naming the missing capabilities"
	sed 's/^/#   /' "$W/hr" | head -10
fi

# --- podman kube play: the README's Pod manifest --------------------------------------
kube() {
	$IN podman kube play --quiet "$R/opt/sbx/pod.yaml" >/dev/null 2>"$W/kube.err"
	i=0
	while [ "$(podman inspect -f '{{.State.Status}}' sbxrun-ci-job 2>/dev/null)" != exited ] &&
	    [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	kst=$(podman inspect -f '{{.State.ExitCode}}' sbxrun-ci-job 2>/dev/null)
	podman logs sbxrun-ci-job >"$W/kube.out" 2>&1
	diagline=$(grep '^{"version"' "$W/kube.out" | tail -n 1)
	said=$(grep -c '^hello from the sandbox$' "$W/kube.out")
	case "$kst:$said:$diagline" in
	0:1:*'"backend":"landlock","isolation":"full"'*'"exit_code":0'*)
		tap OK "podman kube play: the pod's sbxrun run exits 0 under landlock, isolation full" ;;
	*)
		tap FAIL "podman kube play: exit ${kst:-?}, diagnostics: ${diagline:-none}"
		sed 's/^/#   /' "$W/kube.out" "$W/kube.err" | head -10 ;;
	esac
	podman kube down "$R/opt/sbx/pod.yaml" >/dev/null 2>&1
}
want k && kube

echo "1..$n"
[ $nfail = 0 ]
