# attack-seccomp32.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-seccomp32.sh"
