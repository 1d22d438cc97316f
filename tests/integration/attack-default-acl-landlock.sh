# attack-default-acl.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-default-acl.sh"
