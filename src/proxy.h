/* The built-in allowlist proxy (--allow-host, [proxy] allow): an HTTP
 * proxy for CONNECT tunnels and plain http:// requests, and a SOCKS5
 * proxy (CONNECT, names resolved by the proxy) on the same port, served
 * on a free
 * port of 127.0.0.1 for the length of one run by a helper process of its
 * own, confined before it reads a byte from the sandbox (see proxy.c and
 * doc/design/proxy.md).
 *
 * Lifecycle, in the order sbxrun must call it:
 *
 *   sbx_proxy_open()   before the jail is spawned, while the caller is
 *                      still single-threaded: binds and listens, so the
 *                      port is known and can be given back to the sandbox
 *                      and put in its proxy variables, then forks the
 *                      helper with the listener and returns once the
 *                      helper is confined and serving (or says why not).
 *   sbx_proxy_start()  after the spawn: starts the thread that takes the
 *                      helper's events.
 *   sbx_proxy_stop()   when the run is over: the helper cuts every open
 *                      connection and exits, or is killed; it is reaped
 *                      and no log callback runs after this returns.
 *   sbx_proxy_free()   releases the proxy (stopping it first if needed).
 *
 * What passes: a request whose host matches the allowlist (see
 * sbx_host_allowed()), resolved by the proxy itself with getaddrinfo(),
 * connected only to an address that sbx_addr_refused() accepts (neither
 * local, link-local nor one of this machine's interface addresses, which
 * are read again for every request). The address that is checked is the
 * exact sockaddr that is connected to, so a second lookup can never swap
 * in another one. Answers: 400 malformed request, 403 name not allowed or
 * resolving only to refused addresses, 408 request header not complete
 * in time, 431 request header too large, 502 name not resolved or no
 * connection, 503 too many connections. */
#ifndef SBX_PROXY_H
#define SBX_PROXY_H

#include <stdbool.h>
#include <stdint.h>

#include "diag.h"
#include "err.h"
#include "hostmatch.h"
#include "util.h"

struct sbx_proxy;

enum sbx_proxy_event_kind {
	SBX_PROXY_DECISION, /* once per request: allowed or refused */
	SBX_PROXY_CLOSED, /* once per allowed request, when it ends */
};

/* One decision or the end of an allowed connection. Every pointer is
 * valid only during the callback. */
struct sbx_proxy_event {
	enum sbx_proxy_event_kind kind;
	uint64_t id; /* connection number, from 1; pairs DECISION and CLOSED */
	bool allowed;
	int status; /* HTTP status the proxy answered (200 for a tunnel,
	                         * 0 when a plain request was forwarded) */
	const char *reason; /* why refused ("host not allowed", ...); NULL when allowed */
	const char *method; /* "CONNECT", "GET", ...; NULL if unparsable */
	const char *host; /* normalized host; NULL if unparsable */
	uint16_t port; /* 0 if unparsable */
	const char *addr; /* address connected to, or the refused one; NULL if none */
	uint64_t bytes_up; /* CLOSED: bytes from the client to the server */
	uint64_t bytes_down; /* CLOSED: bytes from the server to the client */
};

/* Called from the proxy's reader thread, one call at a time, concurrently
 * with the rest of sbxrun: ctx must be safe to use from another thread.
 * Must not call back into the proxy. Every event has been checked on its
 * way from the helper (strings bounded and terminated, values in range). */
typedef void (*sbx_proxy_log_fn)(void *ctx, const struct sbx_proxy_event *ev);

/* What the proxy lets through, as the policy holds it (entries as
 * sbx_parse_host_pattern() makes them; see sbx_host_decide()). */
struct sbx_proxy_rules {
	const struct sbx_strv *allow; /* [proxy] allow: "host" or "host:port" */
	const struct sbx_strv *deny; /* [proxy] deny; NULL for none */
	const struct sbx_strv *methods; /* plain-HTTP methods; NULL or empty: all */
	/* Every client is served, announced or not (struct sbx_proxy_admit):
	 * for tests/proxy-driver, which drives the proxy with no sandbox and
	 * no supervisor. sbxrun never sets it. */
	bool serve_unannounced;
};

/* Binds 127.0.0.1 on a free port, listens and starts the confined helper
 * with the listener and rules; the helper can connect only to the ports
 * the allow entries name (and 53, for the resolver). The caller keeps no copy of the listener; its own end of the
 * channel to the helper is close-on-exec. The helper dies with the thread
 * that calls this (PR_SET_PDEATHSIG): call it from the main thread. On
 * success *pp is the caller's, to release with sbx_proxy_free(). */
int sbx_proxy_open(struct sbx_proxy **pp, const struct sbx_proxy_rules *rules, struct sbx_err *err);

/* The loopback port the proxy listens on. */
int sbx_proxy_port(const struct sbx_proxy *p);

/* Any local user can reach 127.0.0.1, so the helper serves only the
 * connections announced to it: before the supervisor connects a socket
 * of the sandbox's to the proxy, it sends one of these on this
 * descriptor (a datagram socket; sbxrun keeps it, the helper reads the
 * other end) with that socket's source address and port, and drops it
 * again if the connect failed. A connection from any other source is
 * closed unanswered, uncounted (doc/design/proxy.md, "Who may connect"). */
struct sbx_proxy_admit {
	uint32_t addr; /* IPv4, network order */
	uint16_t port; /* network order */
	uint16_t add; /* 1: admit, 0: drop */
};

int sbx_proxy_admit_fd(const struct sbx_proxy *p);

/* Starts taking the helper's events on one thread, which runs with all
 * signals blocked, so sbxrun's signalfd still gets SIGTERM/SIGINT/SIGHUP/
 * SIGCHLD. log (may be NULL) receives each event. Call once. */
int sbx_proxy_start(struct sbx_proxy *p, sbx_proxy_log_fn log, void *ctx, struct sbx_err *err);

/* Each request refused by policy (what sbx_proxy_denials() counts) is
 * also handed to fn, from the reader thread, concurrently with the rest
 * of sbxrun: fn must serialise itself. Called before sbx_proxy_start(). */
void sbx_proxy_set_refusal_hook(struct sbx_proxy *p, sbx_refusal_fn fn, void *ctx);

/* Stops serving: the helper closes the listener and cuts every
 * connection (the clients see their connection closed) and exits; after
 * about three seconds it is killed instead. Either way it is reaped
 * before this returns, and no log callback runs after that. Safe to call
 * more than once, and on a proxy never started. */
void sbx_proxy_stop(struct sbx_proxy *p);

/* Requests refused by policy so far (403s: host, port or method not
 * allowed, host denied, only refused addresses; for SOCKS5 every request
 * answered "not allowed by ruleset" or "command not supported"), as
 * counted by sbxrun from the helper's events.
 * Malformed requests, timeouts and unreachable hosts are not denials. */
uint64_t sbx_proxy_denials(const struct sbx_proxy *p);

/* Stops the proxy if needed and releases it. NULL is fine. */
void sbx_proxy_free(struct sbx_proxy *p);

/* Lists this machine's interface addresses (getifaddrs: every address and
 * broadcast address of every interface) into own, for sbx_addr_refused().
 * A snapshot: call it per decision, not once per run. */
int sbx_own_addrs(struct sbx_addrlist *own, struct sbx_err *err);

#endif
