# attack-skewed-clock.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-skewed-clock.sh"
