# attack-stall.sh against the landlock backend: no scan there, but the git
# search before and after the run looks at names below the workdir.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-stall.sh"
