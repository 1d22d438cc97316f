# limits-cgroup.sh against the landlock backend.
SBX_BACKEND=landlock
. "$(dirname "$0")/limits-cgroup.sh"
