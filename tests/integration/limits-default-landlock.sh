# limits-default.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/limits-default.sh"
