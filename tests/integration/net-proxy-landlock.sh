# net-proxy.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/net-proxy.sh"
