# jail-nameless.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-nameless.sh"
