# net-connect-silent.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/net-connect-silent.sh"
