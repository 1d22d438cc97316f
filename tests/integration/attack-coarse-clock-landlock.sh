# attack-coarse-clock.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-coarse-clock.sh"
