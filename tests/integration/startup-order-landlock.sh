# startup-order.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/startup-order.sh"
