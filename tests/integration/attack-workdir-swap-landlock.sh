# attack-workdir-swap.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-workdir-swap.sh"
