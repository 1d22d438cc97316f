# attack-lend.sh against the landlock backend, where a root caller's
# workdir and TMPDIR are covered by idmapped mounts in the payload's own
# mount namespace instead of being lent and handed back by walking them.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-lend.sh"
