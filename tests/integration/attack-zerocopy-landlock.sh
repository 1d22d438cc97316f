# attack-zerocopy.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-zerocopy.sh"
