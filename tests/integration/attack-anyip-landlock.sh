# attack-anyip.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-anyip.sh"
