/* The network side of one run: the rules, the allowlist proxy and the
 * seccomp network supervisor, set up around the spawn in this order:
 *
 *   sbx_network_prepare()  before the spawn, single-threaded, on the main
 *                          thread: the rules, the proxy's listening socket
 *                          (so its port can be given back and put in the
 *                          proxy variables) and the confined helper
 *                          process that serves it (proxy.h).
 *   sbx_network_enter()    on a launcher thread of its own: puts that thread
 *                          in a Landlock domain with the TCP port rules;
 *                          the jail is spawned from it, so the sandbox's
 *                          domain nests inside this one.
 *   sbx_network_supervise() on the same launcher thread, with the jail's
 *                          listener: the supervisor's threads inherit the
 *                          domain (ptrace into the sandbox needs that, and
 *                          its calls get the same second wall).
 *   sbx_network_proxy()    from the main thread: starts taking the proxy
 *                          helper's events (the helper, forked before the
 *                          launcher's domain existed, has its own walls).
 *   sbx_network_stop()     after the run: both stop, the helper is reaped
 *                          within a bounded wait; denials are counted.
 *
 * A policy with the network fully off needs none of it: the jail is cut
 * off by its own (empty) network namespace or by refusing every socket
 * call outright. */
#ifndef SBX_NETWORK_H
#define SBX_NETWORK_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "err.h"
#include "netrules.h"
#include "policy.h"
#include "util.h"

struct sbx_meta_guard;

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
	bool reader_confined; /* sbx_network_enter_reader() took a domain */
	const struct sbx_strv *meta_writable;
	int meta_uid, meta_gid;
	const struct sbx_meta_guard *meta_guard;
	int landlock_abi;
	/* Every refusal of the supervisor and the proxy, from their threads:
	 * the first ones for the report, and each to on_refusal (-v). */
	pthread_mutex_t refusal_lock;
	bool refusal_lock_made;
	struct sbx_denied_list denied;
	sbx_refusal_fn on_refusal;
	void *on_refusal_ctx;
	struct sbx_trace *trace; /* --trace (set before supervise), or NULL */
	int tun_fd; /* the jail's tun device for the UDP relay, if has_tun */
	bool has_tun;
};

/* Whether p asks for no network at all: no outbound, no ports, no proxy. */
bool sbx_policy_net_off(const struct sbx_policy *p);

int sbx_network_prepare(
    struct sbx_network *n, const struct sbx_policy *p, int landlock_abi, struct sbx_err *err);

/* fn (may be NULL) gets each refusal as it happens, one call at a time
 * whichever thread refused (so its lines never interleave). Called after
 * sbx_network_prepare(), before anything starts. */
void sbx_network_on_refusal(struct sbx_network *n, sbx_refusal_fn fn, void *ctx);

int sbx_network_enter(struct sbx_network *n, struct sbx_err *err);

/* For the namespaces backend and a root caller, on the launcher thread
 * before the jail is spawned: a Landlock domain holding only the abstract
 * socket scope (no port rule: the sandbox has a network namespace of its
 * own). The jail's domain nests in it, and the supervisor's dispatcher,
 * which keeps CAP_SYS_PTRACE to read the sandbox (netsup.c), inherits it:
 * Landlock then lets that capability reach the sandbox's processes only.
 * Without Landlock ABI 6 nothing is done (sbx_network.reader_confined
 * stays false). */
int sbx_network_enter_reader(struct sbx_network *n, struct sbx_err *err);

/* flags: SBX_NETSUP_* for the supervisor. Takes notify_fd and diag_fd
 * (-1 when none). A jail whose network is fully off may still hand over
 * a listener, to have its unix socket connects judged. */
int sbx_network_supervise(
    struct sbx_network *n, int notify_fd, int diag_fd, unsigned flags, struct sbx_err *err);

/* The jail's tun device for SBX_NETSUP_UDP_RELAY (-1: none), taken over;
 * called before sbx_network_supervise(). */
void sbx_network_tun(struct sbx_network *n, int tun_fd);

/* For SBX_NETSUP_META, called before sbx_network_supervise(). */
void sbx_network_meta(struct sbx_network *n, const struct sbx_strv *writable, int uid, int gid);

int sbx_network_proxy(struct sbx_network *n, struct sbx_err *err);

/* Stops everything; adds the denials, the first of them and the proxy
 * port to r. */
void sbx_network_stop(struct sbx_network *n, struct sbx_report *r);

void sbx_network_free(struct sbx_network *n);

#endif
