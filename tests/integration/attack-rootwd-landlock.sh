# attack-rootwd.sh against the landlock backend, where a root caller's
# workdir is lent to uid 65534 by chown, which leaves root's set-id,
# capability and multiply-linked files, other mounts, sockets, fifos and
# devices alone.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-rootwd.sh"
