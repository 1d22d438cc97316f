# net-udp-relay.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/net-udp-relay.sh"
