# attack-concurrent-git.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-concurrent-git.sh"
