# net-stream-send.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/net-stream-send.sh"
