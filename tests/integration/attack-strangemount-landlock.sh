# attack-strangemount.sh against the landlock backend, where a root
# caller's workdir is lent to uid 65534 and a temp workdir is on the host.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-strangemount.sh"
