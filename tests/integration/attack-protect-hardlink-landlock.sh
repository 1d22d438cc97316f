# attack-protect-hardlink.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-protect-hardlink.sh"
