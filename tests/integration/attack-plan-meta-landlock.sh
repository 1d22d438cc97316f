# attack-plan-meta.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-plan-meta.sh"
