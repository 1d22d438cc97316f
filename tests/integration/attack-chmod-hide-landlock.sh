# attack-chmod-hide.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-chmod-hide.sh"
