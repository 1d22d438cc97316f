# jail-acl.sh against the landlock backend (the same tests).
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-acl.sh"
