/* What this machine offers the backends: filled by the probes (probe.h,
 * each backend's probe), read by the backends' rule masks and by the core
 * when it builds a jail's plan (jail.h). Pure data. */
#ifndef SBX_CAPS_H
#define SBX_CAPS_H

#include <stdbool.h>
#include <sys/types.h>

/* What this machine offers; filled by the probes. */
struct sbx_caps {
	uid_t caller_uid; /* who asks: some rules hold only for non-root */
	bool full_probe; /* --probe: measure everything, even if slow */
	bool probed_userns;
	bool userns;
	char userns_why[160]; /* why not, when !userns */
	/* What the supervisor may do to a sandbox process (linux-probe.h). */
	bool probed_sup;
	bool pidfd_getfd; /* take a descriptor of it */
	char pidfd_getfd_why[160];
	bool vm_readv; /* read its memory with process_vm_readv */
	bool proc_mem; /* ... or through /proc/PID/mem */
	char mem_why[160];
	int landlock_abi; /* 0: none */
	bool seccomp;
	bool seccomp_notify;
	bool cgroup_delegated; /* --probe: a run would get a cgroup v2 leaf with memory and pids */
	bool docker;
	bool seatbelt;
};

#endif
