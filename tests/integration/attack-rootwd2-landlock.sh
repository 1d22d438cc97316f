# attack-rootwd2.sh against the landlock backend, where a root caller's
# workdir is lent to uid 65534 by chown: the lend stays on the workdir's
# own filesystem, leaves root's set-id, multi-link and special files
# alone, and lends no rw mount; only the btrfs ioctls need the seccomp
# rule there too.
SBX_BACKEND=landlock
. "$(dirname "$0")/attack-rootwd2.sh"
