# attack-meta-inline.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-meta-inline.sh"
