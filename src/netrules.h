/* The network decisions of sbxrun(1), NETWORK, as pure functions: given the
 * policy's ports and one operation the sandbox attempts (connect, send to
 * an address, bind, listen), allow or refuse (sbx_net_decide); given one
 * trapped call as decoded, which way the supervisor makes it
 * (sbx_net_classify). The system layer (netsup.c) gathers the facts the
 * decisions need: the socket's domain, type and protocol, the address
 * copied out of the sandbox, whether that address is local to this
 * machine; doc/design/network.md says where the line runs. */
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

/* Decides req under r. */
struct sbx_netverdict sbx_net_decide(const struct sbx_netrules *r, const struct sbx_netreq *req);

/* The deployment the supervisor runs in, fixed for a run (netsup.c reads
 * it from its flags and the descriptors it was given). */
struct sbx_netmode {
	/* The jail has a network namespace of its own (namespaces backend):
	 * what the rules let reach the host is made on a new socket of the
	 * host's namespace, handed in for the caller's. */
	bool own_netns;
	/* With own_netns: the resolvers are served on the jail's lo by the
	 * supervisor's relay; a host datagram socket is never handed in. */
	bool dns_relay;
	/* The sandbox shares the host's network (landlock backend) and may
	 * serve its own loopback on an ephemeral port. */
	bool own_listeners;
	/* A unix path must name a socket bound in the jail's own network
	 * namespace (a sock_diag socket there is at hand). */
	bool unix_owned;
	/* Any unix socket the jail's private filesystem view shows. */
	bool unix_view;
	/* The host's filesystem is in view (landlock backend): unix socket
	 * paths only in the writable trees. */
	bool host_view;
	/* The supervisor's threads hold Landlock's abstract unix scope: the
	 * kernel judges an abstract name made for the sandbox. */
	bool abstract_scoped;
};

/* The trapped calls that carry a network decision. */
enum sbx_netcall_kind {
	SBX_NETCALL_CONNECT,
	SBX_NETCALL_BIND,
	SBX_NETCALL_LISTEN,
	SBX_NETCALL_SENDTO,
	SBX_NETCALL_SENDMSG,
	SBX_NETCALL_SENDMMSG,
	SBX_NETCALL_OTHER, /* anything else: not understood */
};

/* One call as netsup.c decoded it from the sandbox: our copies only. */
struct sbx_netcall {
	enum sbx_netcall_kind kind;
	int domain; /* the socket's SO_DOMAIN */
	int type; /* SO_TYPE */
	int protocol; /* SO_PROTOCOL */
	/* connect, bind, sendto, sendmsg: the address given; listen: the
	 * one the socket is bound to. A bind served on the host's loopback
	 * rewrites it (a wildcard becomes a loopback address). */
	struct sockaddr_storage *addr;
	socklen_t addrlen; /* 0: none */
	const struct mmsghdr *mmsg; /* sendmmsg: each message's address */
	unsigned vlen;
	int flags; /* a send's flags (MSG_FASTOPEN) */
	/* own_netns: the socket lives in the host's namespace already (one
	 * the supervisor handed in). */
	bool host_sock;
};

/* Facts of the running system the classification may need, each asked
 * only when a decision turns on it (netsup.c: a bind probe, a sock_diag
 * dump, a socket option; the unit tests: a table). */
struct sbx_netfacts {
	/* The address is this machine (sbx_addr_refused, or an address
	 * of one of its interfaces). */
	bool (*is_local)(void *ctx, const struct sockaddr *sa, socklen_t len);
	/* Every TCP listener a connect to sa would reach is the sandbox's. */
	bool (*owned_listener)(void *ctx, const struct sockaddr *sa, socklen_t len);
	/* The caller's socket is IPv6-only (IPV6_V6ONLY). */
	bool (*v6only)(void *ctx);
	void *ctx;
};

/* What the supervisor does with a call. */
enum sbx_netact {
	SBX_NETACT_REFUSE, /* answered errnum */
	/* Made on our copy of the caller's socket, with the address as
	 * decoded (or none). */
	SBX_NETACT_ON_COPY,
	/* A send whose address the kernel would ignore (a stream without
	 * Fast Open): made on our copy without it. */
	SBX_NETACT_NO_ADDRESS,
	/* Made on a new socket in the host's network namespace, which then
	 * replaces the caller's (SECCOMP_IOCTL_NOTIF_ADDFD). */
	SBX_NETACT_ON_HOST,
	/* A unix path to connect or send to: resolved in the caller's view
	 * and checked (peer_* below), then made on our copy with our
	 * descriptor of the socket file. */
	SBX_NETACT_UNIX_PEER,
	/* A unix path to bind: its directory resolved in the caller's view
	 * and checked (bind_writable), then made on our copy there. */
	SBX_NETACT_UNIX_BIND,
};

struct sbx_netclass {
	enum sbx_netact act;
	int errnum; /* REFUSE: the error the sandbox sees */
	const char *reason; /* REFUSE: static text for the trace */
	/* NO_ADDRESS: an inet stream sendto or sendmsg, which the
	 * dispatcher may make itself when it cannot block (netsup.c). */
	bool send_inline;
	bool peer_bound_inside; /* UNIX_PEER: bound in the jail's netns */
	bool peer_writable; /* UNIX_PEER: in the writable trees */
	bool bind_writable; /* UNIX_BIND: the directory is in them */
};

/* Classifies call under r in mode m: which family and call it is, what
 * the rules say of it (sbx_net_decide), and which way the supervisor makes
 * it. Pure but for the facts it asks, and for call->addr, which a bind
 * served on loopback rewrites. */
struct sbx_netclass sbx_net_classify(const struct sbx_netrules *r, const struct sbx_netmode *m,
    struct sbx_netcall *call, const struct sbx_netfacts *facts);

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

#endif
