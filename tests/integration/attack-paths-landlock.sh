# attack-paths.sh against the landlock backend (the same tests; the rules only
# a namespace gives are skipped there with a reason).
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-paths.sh"
