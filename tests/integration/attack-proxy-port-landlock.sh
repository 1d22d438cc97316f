# attack-proxy-port.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-proxy-port.sh"
