/* The classification of the calls the Linux network supervisor traps
 * (sbx_net_classify), pure: given one call as netsup.c decoded it, the
 * rules and the deployment, which way the supervisor makes it. Linux
 * only (it speaks of sendmmsg's struct mmsghdr and the kernel's address
 * forms); the decisions it builds on are netrules.h's, which every OS
 * shares. doc/design/network.md says where the line runs. */
#ifndef SBX_NETCLASS_H
#define SBX_NETCLASS_H

#include "netrules.h"

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
	/* With own_netns (--network on): the jail routes every destination
	 * but its own to a tun device read by the supervisor's UDP relay,
	 * which judges each flow again and sends it from a host socket of its
	 * own. A datagram socket of the jail then keeps its own socket, and a
	 * host datagram socket is never handed in (sendmsg is not trapped). */
	bool udp_relay;
	/* The sandbox shares the host's network (landlock backend) and may
	 * serve its own loopback on an ephemeral port. */
	bool own_listeners;
	/* With own_netns and listen ports: a server of the sandbox's on one
	 * of them is the host's (served on its loopback), and the sandbox's
	 * own connect to it goes there too, when every listener on that
	 * port is the sandbox's (owned_listener). */
	bool listen_self;
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

#endif
