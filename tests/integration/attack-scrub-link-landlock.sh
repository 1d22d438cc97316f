# attack-scrub-link.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-scrub-link.sh"
