# jail-secrets-late.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-secrets-late.sh"
