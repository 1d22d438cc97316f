# jail-spawn.sh against the landlock backend, whose init starts the
# payload in its own memory.
SBX_BACKEND=landlock
. "$(dirname "$0")/jail-spawn.sh"
