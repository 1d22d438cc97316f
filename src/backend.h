/* The backend interface and its registry. A backend executes the jail
 * plan the core built (jail.h) as a running jail; adding one is one file,
 * one table entry and its lowering in the plan. */
#ifndef SBX_BACKEND_H
#define SBX_BACKEND_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "caps.h"
#include "diag.h"
#include "err.h"
#include "exec.h"
#include "jail.h"
#include "policy.h"
#include "util.h"

/* The running jail as the supervisor sees it. */
struct sbx_child {
	pid_t pid; /* the jail's init process */
	int pidfd; /* pidfd of pid */
	int status_fd; /* init writes the payload's wait status here */
	int err_fd; /* setup or exec failures, EOF on exec */
	int life_fd; /* held open by sbxrun; init sees EOF if it dies */
	/* What the supervisor is handed by the jail. How it judges is not
	 * the backend's to say: the core decides that before the spawn
	 * (supcfg.h). These are what only the built jail has. */
	int notify_fd; /* the seccomp listener for the trapped calls, or -1 */
	/* A descriptor opened inside the jail's network namespace, which only
	 * the jail's init can open: sock_diag (SBX_NETSUP_UNIX_OWNED) or the
	 * resolver relay's socket (SBX_NETSUP_DNS_RELAY); -1: none. */
	int diag_fd;
	/* The UDP relay's tun device (SBX_NETSUP_UDP_RELAY), made by the
	 * jail's init in its network namespace; -1: none. A fact of the run,
	 * not a decision: the core asks for the relay, but only init learns
	 * whether the kernel gives it a tun device (a container may have no
	 * /dev/net/tun). Without one the jail keeps sendmsg trapped and the
	 * supervisor hands in host datagram sockets as before. */
	int tun_fd;
	/* The directories the jail's Landlock rules keep from taking a new
	 * entry, which the supervisor's on-behalf calls leave alone too, or
	 * NULL. A fact of the plan the backend ran: it is rebuilt with other
	 * rules when the protected paths' copies cannot be made. */
	const struct sbx_strv *frozen;
	/* The sandbox's Landlock filesystem ruleset, which the workers that
	 * keep the workdir's protected names enter (namesup.h), owned by the
	 * backend; -1: the jail left the names to its own rules. */
	int names_ruleset;
	bool pidns; /* killing pid ends the whole tree */
	/* Set by sbxrun before sbx_supervise(): the tree may be taken as
	 * gone on init's end message, before init's own exit (under
	 * namespaces, their teardown) is over; init is then reaped by
	 * sbx_reap_late(). Not with a cgroup leaf, which init must have
	 * left before it is removed. */
	bool end_early;
	/* Init, once the tree ended on its message: still to reap
	 * (sbx_reap_late()); 0: reaped. */
	pid_t reap_late;
	/* sbxrun's keeper (keeper.h), its child but not the sandbox's: the
	 * tree's end never signals or reaps it (a clone child, which only
	 * __WCLONE or __WALL waits for); 0: none. */
	pid_t keeper;
	int stopped_by; /* the signal that made sbxrun end the tree, or 0 */
	void *priv; /* backend state, freed by cleanup */
	/* Called once by sbx_child_close() (launch.h), when the tree is gone
	 * or the jail was killed: frees priv and adds what the backend
	 * learnt after the run to r (NULL: nothing to add to). A backend
	 * keeps no pointer to the report past its spawn. */
	void (*cleanup)(struct sbx_child *c, struct sbx_report *r);
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
	/* Prints what spawn would build from the plan j, for
	 * --print-backend. */
	int (*describe)(const struct sbx_jail *j, struct sbx_buf *out, struct sbx_err *err);
	/* Executes the plan j: builds the jail it describes and starts
	 * j->exec in it; fills c and the layers in r. The backend reads its
	 * lowering from j and builds none of its own (jail.h). */
	int (*spawn)(const struct sbx_jail *j, struct sbx_child *c, struct sbx_report *r,
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
