# attack-renice.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-renice.sh"
