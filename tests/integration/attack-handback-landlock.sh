# attack-handback.sh against the landlock backend, where a root caller's
# workdir is lent to uid 65534 for the run and handed back afterwards.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-handback.sh"
