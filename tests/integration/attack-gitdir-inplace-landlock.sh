# attack-gitdir-inplace.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-gitdir-inplace.sh"
