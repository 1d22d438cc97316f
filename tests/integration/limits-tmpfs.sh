# The namespaces jail's private /tmp and /dev/shm are tmpfs mounts: their
# pages belong to no process, so a memory limit kept by rlimit (no cgroup
# v2 leaf) did not count them, and each could take half the machine's
# memory. A memory limit asked for now sizes each (sbxrun.profile(5),
# memory). Verdict on the host: the machine's shared memory (Shmem in
# /proc/meminfo) while the sandbox holds all it could write, against what
# it was before.
SBX_BACKEND=namespaces
. "$(dirname "$0")/jail-lib.sh"

shmem_kb() {
	awk '/^Shmem:/ { print $2 }' /proc/meminfo
}

# hold_run DIR: writes 300 MiB to DIR in the jail under --memory 64M,
# then waits; the host reads Shmem once the writing ended.
hold_run() {
	rm -f "$WD/ready"
	printf '%s\n' "head -c 300M /dev/zero >$1/fill 2>/dev/null; touch ready; sleep 60" >"$T/script"
	before=$(shmem_kb)
	BG_STDIN="$T/script" sbx_bg -w "$WD" --memory 64M
	wait_for "[ -e '$WD/ready' ]" 60 || diag "the sandbox did not end its writing"
	grown=$(($(shmem_kb) - before))
	kill -TERM "$SBX_PID"
	sbx_bg_wait 30
}

for d in /tmp /dev/shm; do
	hold_run "$d"
	ok "$d under --memory 64M: the sandbox's file took at most ~64 MiB of the host's memory (grew ${grown} KiB)" \
	    test "$grown" -lt 150000
done

done_testing
