/* The network supervisor: the other end of the sandbox's seccomp user
 * notifications. For each trapped connect, bind, listen or send to an
 * address it takes the caller's socket (pidfd_getfd), copies the address
 * out of the caller's memory, checks the notification is still live,
 * decides with sbx_net_classify() and then has the call performed on the
 * shared socket, answering with its result. It never answers CONTINUE to
 * a call it judges: a racing thread could rewrite the address after the
 * check, or point the descriptor at another socket. (With a trace, calls
 * trapped only to be observed are let go on: linux-trace.h.)
 *
 * Threads (netsup.c says who holds which rights): one dispatcher reads,
 * decides and answers, and never performs a call nor blocks on one; a
 * bounded pool of workers, each holding only the sandbox's credentials,
 * performs every allowed call. They all inherit the Landlock network
 * domain of the thread that starts the supervisor (see network.h): the
 * sandbox's domain is nested in that one, which is what lets the
 * dispatcher take its sockets and read its memory (Landlock allows ptrace
 * only into nested domains), and every call the workers make for the
 * sandbox passes the same TCP port rules, a second kernel-held check. */
#ifndef SBX_NETSUP_H
#define SBX_NETSUP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "diag.h"
#include "err.h"
#include "metasup.h"
#include "netclass.h"
#include "supcfg.h"

struct sbx_netsup;

/* One decision, for the trace. Pointers are valid during the call only. */
struct sbx_net_event {
	const char *op; /* "connect", "bind", "listen", "send" */
	bool allowed;
	bool denial; /* refused by policy (counted in denials), not an error
	                the kernel would have given too */
	const char *reason; /* when refused */
	const char *addr; /* text form (a unix path as is), or NULL */
	uint16_t port;
	int pid; /* the caller, in sbxrun's pid namespace */
	int result; /* the call's result when performed (0 or -errno) */
	int type; /* the socket's type */
	const struct iovec *iov; /* a performed send: one message's payload */
	size_t iovlen;
};

typedef void (*sbx_net_log_fn)(void *ctx, const struct sbx_net_event *ev);

/* The SBX_NETSUP_* flags sbx_netsup_new() takes are the core's decisions,
 * defined with them in supcfg.h. */

/* Makes a supervisor for rules (copied by reference: they must outlive it). */
struct sbx_netsup *sbx_netsup_new(const struct sbx_netrules *rules, unsigned flags);

/* Starts serving notify_fd (taken over: closed by stop). With
 * SBX_NETSUP_UNIX_OWNED, diag_fd is a NETLINK_SOCK_DIAG socket opened
 * inside the jail's network namespace (taken over too): a unix socket
 * bound there was made by the sandbox, any other is the host's. */
int sbx_netsup_start(struct sbx_netsup *ns, int notify_fd, int diag_fd, sbx_net_log_fn log,
    void *ctx, struct sbx_err *err);

/* SBX_NETSUP_UDP_RELAY: the jail's tun device (taken over: closed by
 * free). Called before start. */
void sbx_netsup_set_tun(struct sbx_netsup *ns, int tun_fd);

/* With the allowlist proxy: its announcement descriptor (proxy.h; a copy
 * is kept). Each connect of the sandbox's to the proxy is announced there
 * first. Called before start. */
void sbx_netsup_set_proxy(struct sbx_netsup *ns, int admit_fd);

/* Stops: no more answers (pending calls fail); every socket a worker
 * holds for the sandbox is shut down, and the threads are joined within a
 * bound (STOP_GRACE_MS); one still stuck then is left to the process exit
 * (the supervisor's memory is then never freed). Safe on a supervisor
 * never started. */
void sbx_netsup_stop(struct sbx_netsup *ns);

/* The directories where metadata may change, for SBX_NETSUP_META (kept
 * by reference), and the sandbox's ids outside: the workers take them, and
 * the dispatcher resolves paths with them (-1: the caller's own, which the
 * sandbox of a caller other than root runs as). Called before start. */
void sbx_netsup_set_meta(
    struct sbx_netsup *ns, const struct sbx_strv *writable, int as_uid, int as_gid);

/* The plan's hidden, protected and frozen paths (read now, by identity:
 * see sbx_metasup_set_guard), refused to metadata and unix socket calls
 * made for the sandbox as they are to its own. NULL: none. */
void sbx_netsup_set_guard(struct sbx_netsup *ns, const struct sbx_meta_guard *guard);

/* Each call refused by policy (the ones sbx_netsup_denials() counts) is
 * also handed to fn, from the supervisor's threads, possibly several at
 * once: fn must serialise itself. fd (or -1) is the one descriptor fn
 * writes to: a thread that runs under a filter of its own (the UDP
 * relay) is let write there. Called before start. */
void sbx_netsup_set_refusal_hook(struct sbx_netsup *ns, sbx_refusal_fn fn, void *ctx, int fd);
struct sbx_trace;

/* With a trace (linux-trace.h), before start: the calls trapped only to be
 * observed are handed to it and let go on; the log given to start sees
 * every decision. */
void sbx_netsup_set_trace(struct sbx_netsup *ns, struct sbx_trace *t);

uint64_t sbx_netsup_denials(const struct sbx_netsup *ns);

/* Whether a thread of the supervisor could not take the sandbox's
 * credentials (every call it was to make then failed with EPERM). */
bool sbx_netsup_drop_failed(const struct sbx_netsup *ns);

void sbx_netsup_free(struct sbx_netsup *ns);

#endif
