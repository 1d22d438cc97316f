# attack-secrets.sh against the landlock backend (the same attacks).
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-secrets.sh"
