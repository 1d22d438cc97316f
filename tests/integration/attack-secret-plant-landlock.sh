# attack-secret-plant.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-secret-plant.sh"
