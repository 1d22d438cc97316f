/* The backend interface and its registry. A backend turns a resolved
 * policy into a running jail; adding one is one file and one table entry. */
#ifndef SBX_BACKEND_H
#define SBX_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "diag.h"
#include "err.h"
#include "exec.h"
#include "policy.h"
#include "util.h"

struct sbx_meta_guard;

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
	bool cgroup_delegated;
	bool docker;
	bool seatbelt;
};

/* The running jail as the supervisor sees it. */
struct sbx_child {
	pid_t pid; /* the jail's init process */
	int pidfd; /* pidfd of pid */
	int status_fd; /* init writes the payload's wait status here */
	int err_fd; /* setup or exec failures, EOF on exec */
	int life_fd; /* held open by sbxrun; init sees EOF if it dies */
	int notify_fd; /* the seccomp listener for the network calls, or -1 */
	int diag_fd; /* sock_diag inside the jail's netns (SBX_NETSUP_UNIX_OWNED) */
	unsigned netsup_flags; /* SBX_NETSUP_* the supervisor needs for this jail */
	int tun_fd; /* the jail's tun device (SBX_NETSUP_UDP_RELAY), or -1 */
	/* SBX_NETSUP_META: where metadata may change, and as which ids
	 * (-1: sbxrun's own). */
	const struct sbx_strv *meta_writable;
	int meta_uid, meta_gid;
	/* The plan's paths on-behalf calls leave alone, or NULL. */
	const struct sbx_meta_guard *meta_guard;
	bool pidns; /* killing pid ends the whole tree */
	int stopped_by; /* the signal that made sbxrun end the tree, or 0 */
	void *priv; /* backend state, freed by cleanup */
	void (*cleanup)(struct sbx_child *c);
};

/* A spawn that fails because the mechanism is unavailable on this machine
 * (not because the policy is bad) sets this errnum, so that "auto" can fall
 * through to the next backend. */
#define SBX_EUNAVAIL ENOSYS

struct sbx_backend {
	const char *name;
	enum sbx_backend_id id;
	/* The backend has no private /tmp of its own: sbxrun makes an empty
	 * directory in $TMPDIR for the run (exec.tmpdir, exported as TMPDIR)
	 * and removes it afterwards. */
	bool needs_tmpdir;
	/* Measures whether the backend can run here; -1 with err when not. */
	int (*probe)(struct sbx_caps *caps, struct sbx_err *err);
	/* The rules of p this backend enforces on a machine with caps. */
	uint32_t (*enforces)(const struct sbx_policy *p, const struct sbx_caps *caps);
	/* Prints what spawn would build, for --print-backend. */
	int (*describe)(const struct sbx_policy *p, const struct sbx_exec *x,
	    const struct sbx_caps *caps, struct sbx_buf *out, struct sbx_err *err);
	/* Builds the jail and starts x in it; fills c and the layers in r. */
	int (*spawn)(const struct sbx_policy *p, const struct sbx_exec *x,
	    const struct sbx_caps *caps, struct sbx_child *c, struct sbx_report *r,
	    struct sbx_err *err);
};

/* The registry: one file per OS (registry-linux.c, registry-darwin.c). */
const struct sbx_backend *sbx_backend_get(enum sbx_backend_id id);
const char *sbx_os_name(void);

/* The backends "auto" tries, in order, on this OS. */
const enum sbx_backend_id *sbx_backend_auto_order(size_t *n);

extern const struct sbx_backend sbx_backend_namespaces;
extern const struct sbx_backend sbx_backend_landlock;
extern const struct sbx_backend sbx_backend_seatbelt;
extern const struct sbx_backend sbx_backend_docker;
extern const struct sbx_backend sbx_backend_none;

/* --docker-rm NAME: removes the kept container NAME (--docker-keep) after
 * checking that sbxrun made it. Fails when there is none, or when the
 * container of that name is not one of sbxrun's kept containers. */
int sbx_docker_keep_remove(const char *name, struct sbx_err *err);

#endif
