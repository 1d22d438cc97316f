# net-socks.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/net-socks.sh"
