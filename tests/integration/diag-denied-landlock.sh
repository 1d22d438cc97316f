# diag-denied.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/diag-denied.sh"
