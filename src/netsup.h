/* The network supervisor: the other end of the sandbox's seccomp user
 * notifications. For each trapped connect, bind, listen or send to an
 * address it takes the caller's socket (pidfd_getfd), copies the address
 * out of the caller's memory, checks the notification is still live,
 * decides with sbx_net_decide() and then has the call performed on the
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
#include "netrules.h"

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

/* Unix sockets: any the jail's private filesystem view shows. */
#define SBX_NETSUP_UNIX_VIEW 0x1u
/* Unix sockets: only those made inside the jail's own network namespace
 * pass (see sbx_netsup_start). */
#define SBX_NETSUP_UNIX_OWNED 0x2u
/* Metadata changes are trapped too (metasup.h); unix socket paths are
 * allowed in its writable trees. */
#define SBX_NETSUP_META 0x4u
/* The supervisor's threads hold Landlock's abstract unix socket scope:
 * an abstract connect made for the sandbox is judged by the kernel
 * (only sockets of the sandbox's own, nested, domain are reachable). */
#define SBX_NETSUP_ABSTRACT_SCOPED 0x8u
/* The sandbox runs in sbxrun's own user namespace, as the ids given to
 * sbx_netsup_set_meta() (the landlock backend): the dispatcher drops to
 * those ids and no capability too, before it reads anything of the
 * sandbox's, and keeps its ptrace-like access (same ids; the sandbox holds
 * no capability either). Without it (namespaces: the sandbox's user
 * namespace is owned by the caller, and a root caller's dispatcher must
 * keep CAP_SYS_PTRACE over it) a root caller's dispatcher takes the
 * sandbox's ids with that one capability (linux-creds.h). */
#define SBX_NETSUP_READ_DROPPED 0x10u
/* The sandbox has a network namespace of its own (namespaces backend, in
 * every network mode): its sockets live there, with only its private lo.
 * What stays there (its own loopback, any port) is made on its own
 * socket; what the rules let reach the host (a remote address, a loopback
 * port given back, a listen port) is made on a new socket in the host's
 * namespace, which the supervisor creates, connects or binds, and hands
 * in with SECCOMP_IOCTL_NOTIF_ADDFD in place of the caller's. */
#define SBX_NETSUP_OWN_NETNS 0x20u
/* The sandbox shares the host's network (landlock backend): it may bind
 * an ephemeral loopback port and connect to listeners it holds itself,
 * checked at each connect with sock_diag by socket cookie. */
#define SBX_NETSUP_OWN_LISTENERS 0x40u
/* With SBX_NETSUP_OWN_NETNS: the resolvers are on the jail's lo and
 * diag_fd is a UDP socket bound there on port 53 (any address); the
 * supervisor relays what the sandbox sends it to the resolvers and back.
 * A datagram socket of the host is then never handed in. */
#define SBX_NETSUP_DNS_RELAY 0x80u
/* With SBX_NETSUP_OWN_NETNS (--network on): the jail routes every
 * destination but its own through a tun device (sbx_netsup_set_tun), and
 * the supervisor relays the UDP found there (udprelay.h). A datagram
 * socket of the jail then keeps its own socket, and a datagram socket of
 * the host is never handed in. */
#define SBX_NETSUP_UDP_RELAY 0x100u

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
 * once: fn must serialise itself. Called before start. */
void sbx_netsup_set_refusal_hook(struct sbx_netsup *ns, sbx_refusal_fn fn, void *ctx);
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
