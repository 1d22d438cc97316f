# net-own-loopback.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/net-own-loopback.sh"
