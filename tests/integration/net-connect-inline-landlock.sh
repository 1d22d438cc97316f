# net-connect-inline.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/net-connect-inline.sh"
