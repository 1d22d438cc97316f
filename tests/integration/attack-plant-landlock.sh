# attack-plant.sh against the landlock backend, where a root caller's
# directory the run made is lent to uid 65534 and handed back before the
# search.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-plant.sh"
