# diag-bounded.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/diag-bounded.sh"
