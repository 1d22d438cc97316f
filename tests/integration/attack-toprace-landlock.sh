# attack-toprace.sh against the landlock backend, where a root caller's
# workdir is lent to uid 65534 and handed back before the guard looks.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-toprace.sh"
