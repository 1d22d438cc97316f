#!/bin/sh
# Runs inside the CI image (run-in-engines.sh): the integration scripts
# named on the command line, each under the backend "auto" picks here,
# with a result line per script ("# result S: pass N" or "fail ...").
set -u
SBXRUN=/usr/local/bin/sbxrun
export SBXRUN HOME=${HOME:-/home/sbx} TMPDIR=/tmp PATH=/usr/local/bin:/usr/bin:/bin
cd /work 2>/dev/null || cd /tmp
"$SBXRUN" --probe >/tmp/probe.json 2>&1
be=$(sed -n 's/.*"auto":"\([a-z]*\)".*/\1/p' /tmp/probe.json)
echo "# auto picks: ${be:-none}"
echo "# probe: $(cat /tmp/probe.json)"
# Start-up: 20 runs of "true" under auto, the median wall_ms.
i=0
while [ $i -lt 20 ]; do
	echo true | "$SBXRUN" --diag fd:3 3>&1 >/dev/null 2>&1 | sed -n 's/.*"wall_ms":\([0-9]*\).*/\1/p'
	i=$((i + 1))
done | sort -n | sed -n '10p' | sed 's/^/# start-up: median wall_ms /'
# refused S: the rule script S needs, when the cell names it in REFUSED:
# there the documented outcome is a 125 naming the rule, nothing run.
refused() {
	case $1 in
	net-listen.sh) rule=listen flag="--listen 8080" ;;
	net-proxy.sh) rule=proxy flag="--allow-host example.sbx.test" ;;
	*) return 1 ;;
	esac
	case " ${REFUSED:-} " in *" $rule "*) ;; *) return 1 ;; esac
	# shellcheck disable=SC2086
	echo 'echo ran' | "$SBXRUN" --diag fd:3 $flag 3>/tmp/d >/tmp/o 2>&1
	st=$?
	err=$(sed -n 's/.*"error":"\([^"]*\)".*/\1/p' /tmp/d)
	if [ $st = 125 ] && ! grep -q '^ran' /tmp/o &&
	    case $err in *"cannot enforce: $rule"* | *"cannot enforce: "*" $rule"*) true ;; *) false ;; esac; then
		echo "ok 1 - $rule refused with 125 naming it: $err"
	else
		echo "not ok 1 - $rule: status $st, error '$err' (wanted 125 naming $rule)"
		sed 's/^/# /' /tmp/o /tmp/d
	fi
	echo "1..1"
}
for s in "$@"; do
	echo "# begin $s"
	refused "$s" >/tmp/tap 2>&1 ||
		SBX_BACKEND=${be:-landlock} sh "/opt/sbx/tests/integration/$s" >/tmp/tap 2>&1
	cat /tmp/tap
	echo "# end $s"
	p=$(grep -c '^ok' /tmp/tap)
	f=$(grep -c '^not ok' /tmp/tap)
	# A test that only one backend can hold (a private /tmp at /tmp needs
	# a mount namespace) is counted apart, not as a skip of this place.
	na=$(grep -ci '^ok.*# skip namespaces-only' /tmp/tap)
	k=$(($(grep -ci '^ok.*# skip' /tmp/tap) - na))
	planned=$(grep -c '^1\.\.' /tmp/tap)
	if [ "$f" = 0 ] && [ "$k" = 0 ] && [ "$planned" = 1 ] && [ "$p" -gt 0 ]; then
		[ "$na" -gt 0 ] && p="$p ($na for namespaces only)"
		echo "# result $s: pass $p"
	else
		echo "# result $s: fail $f failed, $k skipped, $p ok"
	fi
done
