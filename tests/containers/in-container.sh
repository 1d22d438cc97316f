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
for s in "$@"; do
	echo "# begin $s"
	SBX_BACKEND=${be:-landlock} sh "/opt/sbx/tests/integration/$s" >/tmp/tap 2>&1
	cat /tmp/tap
	echo "# end $s"
	p=$(grep -c '^ok' /tmp/tap)
	f=$(grep -c '^not ok' /tmp/tap)
	k=$(grep -ci '^ok.*# skip' /tmp/tap)
	planned=$(grep -c '^1\.\.' /tmp/tap)
	if [ "$f" = 0 ] && [ "$k" = 0 ] && [ "$planned" = 1 ] && [ "$p" -gt 0 ]; then
		echo "# result $s: pass $p"
	else
		echo "# result $s: fail $f failed, $k skipped, $p ok"
	fi
done
