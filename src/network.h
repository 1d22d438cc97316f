/* The network side of one run: the rules, the allowlist proxy and the
 * seccomp network supervisor, set up around the spawn in this order:
 *
 *   sbx_network_prepare()  before the spawn, single-threaded, on the main
 *                          thread: the rules, the proxy's listening socket
 *                          (so its port can be given back and put in the
 *                          proxy variables) and the confined helper
 *                          process that serves it (proxy.h).
 *   sbx_network_launch()   with the supervisor's configuration, which the
 *                          core decided (supcfg.h): spawns the jail through
 *                          the caller's function and starts the supervisor
 *                          on the jail's listener. When the configuration
 *                          asks for it, both happen on a launcher thread
 *                          of their own that first takes a Landlock domain
 *                          (the TCP port rules, or only the abstract socket
 *                          scope): the sandbox's domain nests inside it and
 *                          the supervisor's threads inherit it (ptrace into
 *                          the sandbox needs that, and their calls get the
 *                          same second wall). sbxrun's main thread never
 *                          holds a domain.
 *   sbx_network_proxy()    from the main thread: starts taking the proxy
 *                          helper's events (the helper, forked before the
 *                          launcher's domain existed, has its own walls).
 *   sbx_network_stop()     after the run: both stop, the helper is reaped
 *                          within a bounded wait; denials are counted.
 *
 * A policy with the network fully off needs none of it but the supervisor
 * of its unix socket and metadata calls: the jail is cut off by its own
 * (empty) network namespace or by refusing every socket call outright. */
#ifndef SBX_NETWORK_H
#define SBX_NETWORK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "err.h"
#include "netrules.h"
#include "policy.h"
#include "supcfg.h"
#include "util.h"

struct sbx_child;
struct sbx_proxy;
struct sbx_netsup;
struct sbx_trace;

struct sbx_network {
	bool supervised; /* the jail traps its network calls */
	struct sbx_netrules rules;
	struct sbx_proxy *proxy;
	struct sbx_netsup *sup;
	struct sbx_strv env; /* NAME=VALUE for the sandbox (proxy variables) */
	bool scoped; /* the launcher's domain holds the abstract socket scope */
	int landlock_abi;
	/* Every refusal of the supervisor and the proxy, from their threads:
	 * the first ones for the report, and each to on_refusal (-v). */
	pthread_mutex_t refusal_lock;
	bool refusal_lock_made;
	struct sbx_denied_list denied;
	sbx_refusal_fn on_refusal;
	void *on_refusal_ctx;
	int on_refusal_fd; /* where on_refusal writes (when set) */
	struct sbx_trace *trace; /* --trace (set before launch), or NULL */
};

int sbx_network_prepare(
    struct sbx_network *n, const struct sbx_policy *p, int landlock_abi, struct sbx_err *err);

/* fn (may be NULL) gets each refusal as it happens, one call at a time
 * whichever thread refused (so its lines never interleave). fd is the one
 * descriptor fn writes to: the supervisor's threads that run under a
 * filter of their own may then write there (and nowhere else). Called
 * after sbx_network_prepare(), before anything starts. */
void sbx_network_on_refusal(struct sbx_network *n, sbx_refusal_fn fn, void *ctx, int fd);

/* Spawns the jail into c (the backend's spawn); called once by
 * sbx_network_launch(), on the thread that must spawn it. */
typedef int (*sbx_spawn_fn)(void *ctx, struct sbx_child *c, struct sbx_err *err);

/* Launches the jail as cfg says (supcfg.h): on this thread or on a
 * launcher thread of its own, inside the Landlock domain cfg names, then
 * starts the supervisor there on the listener the jail handed over in c
 * (c->notify_fd, c->diag_fd and c->tun_fd are taken over), judging as
 * cfg->flags say, with cfg's writable trees, guarded paths and ids (cfg
 * must outlive the run) and the facts only the jail knows (c->frozen,
 * c->names_ruleset, c->tun_fd).
 * A jail that hands over no listener when none is expected runs without a
 * supervisor. On a failure after the spawn the jail is killed; c is
 * left to the caller to close (sbx_child_close), as after any spawn. */
int sbx_network_launch(struct sbx_network *n, const struct sbx_supcfg *cfg, sbx_spawn_fn spawn,
    void *ctx, struct sbx_child *c, struct sbx_err *err);

int sbx_network_proxy(struct sbx_network *n, struct sbx_err *err);

/* Stops everything; adds the denials, the first of them and the proxy
 * port to r. */
void sbx_network_stop(struct sbx_network *n, struct sbx_report *r);

void sbx_network_free(struct sbx_network *n);

#endif
