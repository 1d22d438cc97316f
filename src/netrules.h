/* The network decisions of sbxrun(1), NETWORK, as pure functions: given the
 * policy's ports and one operation the sandbox attempts (connect, send to
 * an address, bind, listen), allow or refuse (sbx_net_decide). netclass.h
 * classifies the trapped calls of the Linux supervisor on top of these;
 * the system layer (netsup.c) gathers the facts the decisions need: the
 * socket's domain, type and protocol, the address copied out of the
 * sandbox, whether that address is local to this machine;
 * doc/design/network.md says where the line runs. */
#ifndef SBX_NETRULES_H
#define SBX_NETRULES_H

#include <stdbool.h>
#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "hostmatch.h"
#include "policy.h"

#ifndef MSG_FASTOPEN
#define MSG_FASTOPEN 0x20000000
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

struct sbx_netrules {
	bool network; /* outbound to every non-local address */
	struct sbx_ports listen; /* ports a server inside may bind */
	struct sbx_ports connect; /* remote TCP ports */
	struct sbx_ports loopback; /* host loopback TCP ports given back */
	uint16_t proxy_port; /* the built-in proxy, 0: none */
	bool outbound; /* network on, or a connect list */
	struct sbx_addrlist resolvers; /* /etc/resolv.conf, used only when outbound */
};

/* Builds the rules of p; proxy_port is 0 without a proxy. The caller frees
 * them with sbx_netrules_free(). */
void sbx_netrules_init(struct sbx_netrules *r, const struct sbx_policy *p, uint16_t proxy_port);
void sbx_netrules_free(struct sbx_netrules *r);

/* Reads the "nameserver" lines of a resolv.conf text into r->resolvers. */
void sbx_netrules_add_resolvers(struct sbx_netrules *r, const char *resolv_conf);

enum sbx_netop {
	SBX_NETOP_CONNECT, /* connect(2), or a send that connects (TCP Fast Open) */
	SBX_NETOP_SEND, /* a datagram sent to an address */
	SBX_NETOP_BIND,
	SBX_NETOP_LISTEN,
};

struct sbx_netreq {
	enum sbx_netop op;
	int domain; /* the socket's own, never the address's */
	int type; /* SOCK_STREAM, SOCK_DGRAM, ... */
	const struct sockaddr *addr; /* connect, send, bind */
	socklen_t addrlen;
	bool local; /* addr is this machine (sbx_addr_refused) */
	uint16_t bound_port; /* listen: the socket's port, 0 if unbound */
	/* The sandbox shares the host's network (the landlock backend): it
	 * may still serve its own loopback on an ephemeral port (a bind to
	 * port 0 on a loopback address, and listen on it) ... */
	bool own_listeners;
	/* ... and connect to a loopback port on which every listener is one
	 * it holds itself (netsup.c asks the kernel each time). */
	bool owned_listener;
	/* listen: the address the socket is bound to, or NULL */
	const struct sockaddr *bound;
	socklen_t boundlen;
};

struct sbx_netverdict {
	bool allow;
	int errnum; /* when refused: the error the sandbox sees */
	const char *reason; /* static text for the trace */
};

static inline struct sbx_netverdict
sbx_net_allow(void)
{
	return (struct sbx_netverdict){ .allow = true };
}

static inline struct sbx_netverdict
sbx_net_refuse(int errnum, const char *reason)
{
	return (struct sbx_netverdict){ .allow = false, .errnum = errnum, .reason = reason };
}

/* Decides req under r. */
struct sbx_netverdict sbx_net_decide(const struct sbx_netrules *r, const struct sbx_netreq *req);

/* The TCP port rules that Landlock holds under these decisions where the
 * sandbox shares the host's network (the landlock backend), as a second
 * wall: bind only the listen ports and port 0 (an ephemeral port, which
 * the supervisor allows on loopback only); connect is left to the
 * supervisor (*connect_any), since the sandbox may connect to its own
 * ephemeral servers. Ports are added to the caller's lists. r NULL means
 * the network is fully off: no port. */
void sbx_netrules_landlock_ports(const struct sbx_netrules *r, struct sbx_ports *bind,
    struct sbx_ports *connect, bool *connect_any);

/* The port of an AF_INET or AF_INET6 address; 0 for anything else. */
uint16_t sbx_sockaddr_port(const struct sockaddr *sa, socklen_t len);

/* Whether sa is a loopback address in any spelling (127/8, ::1,
 * ::ffff:127.x): the only local addresses a loopback port is given back on. */
bool sbx_addr_is_loopback(const struct sockaddr *sa, socklen_t len);

/* Whether sa is the address the allowlist proxy listens on: 127.0.0.1, as
 * such or IPv4-mapped. Its port on another loopback address (127.0.0.2,
 * ::1) is whatever host socket holds that number there. */
bool sbx_addr_is_proxy_host(const struct sockaddr *sa, socklen_t len);

#endif
