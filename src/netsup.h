/* The network supervisor: the other end of the sandbox's seccomp user
 * notifications. For each trapped connect, bind, listen or send to an
 * address it takes the caller's socket (pidfd_getfd), copies the address
 * out of the caller's memory, checks the notification is still live,
 * decides with sbx_net_decide() and then performs the call itself on the
 * shared socket, answering with its result. It never answers CONTINUE for
 * a decision it made: a racing thread could rewrite the address after the
 * check (measured in NETWORK.md). CONTINUE is used only where the kernel
 * itself judges in the sandbox's context: unix sockets under a private
 * filesystem view, and stream sends that cannot carry an address.
 *
 * Threads: one dispatcher reads notifications and answers what cannot
 * block; a call that may block (a connect or send on a blocking socket)
 * goes to a thread of its own, so one slow peer never stalls the others.
 * Its threads inherit the Landlock network domain of the thread that
 * starts it (see network.h): the sandbox's domain is nested in that one,
 * which is what lets them take its sockets and read its memory (Landlock
 * allows ptrace only into nested domains), and every call they make for
 * the sandbox passes the same TCP port rules, a second kernel-held check. */
#ifndef SBX_NETSUP_H
#define SBX_NETSUP_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "netrules.h"

struct sbx_netsup;

/* One decision, for the trace. Pointers are valid during the call only. */
struct sbx_net_event {
	const char *op; /* "connect", "bind", "listen", "send" */
	bool allowed;
	const char *reason; /* when refused */
	const char *addr; /* text form, or NULL */
	uint16_t port;
	int pid; /* the caller, in sbxrun's pid namespace */
	int result; /* the call's result when performed (0 or -errno) */
};

typedef void (*sbx_net_log_fn)(void *ctx, const struct sbx_net_event *ev);

#define SBX_NETSUP_UNIX_CONTINUE 0x1u /* unix sockets: the kernel judges (private fs view) */
#define SBX_NETSUP_UNIX_OWNED \
	0x2u /* unix sockets: only those made inside the jail's
                                           own network namespace (see sbx_netsup_start) */

/* Makes a supervisor for rules (copied by reference: they must outlive it). */
struct sbx_netsup *sbx_netsup_new(const struct sbx_netrules *rules, unsigned flags);

/* Starts serving notify_fd (taken over: closed by stop). With
 * SBX_NETSUP_UNIX_OWNED, diag_fd is a NETLINK_SOCK_DIAG socket opened
 * inside the jail's network namespace (taken over too): a unix socket
 * bound there was made by the sandbox, any other is the host's. */
int sbx_netsup_start(struct sbx_netsup *ns, int notify_fd, int diag_fd, sbx_net_log_fn log,
    void *ctx, struct sbx_err *err);

/* Stops: no more answers (pending calls fail), workers cut loose and
 * joined. Safe on a supervisor never started. */
void sbx_netsup_stop(struct sbx_netsup *ns);

uint64_t sbx_netsup_denials(const struct sbx_netsup *ns);

void sbx_netsup_free(struct sbx_netsup *ns);

#endif
