# attack-shared-stderr.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-shared-stderr.sh"
