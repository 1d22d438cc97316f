/* sbx_net_classify() as a table: a deployment mode (the jail's own
 * network namespace with or without the resolver relay, with the UDP
 * relay, the landlock backend sharing the host's network, nothing
 * supervised), rules (a profile, a proxy port, the resolvers of a
 * resolv.conf), one decoded call the sandbox makes, and what the
 * supervisor does with it: refuse (the error and the reason the trace
 * shows), make it on our copy of the caller's socket, drop a send's
 * address, make it on a host socket handed in, or resolve a unix path
 * first. The facts of the system (this machine's addresses, listeners
 * the sandbox holds, IPv6-only) come from the row. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "netclass.h"
#include "policy.h"
#include "profile.h"
#include "tap.h"
#include "netfixture.h"
#include "util.h"

/* The deployments the backends build (backend-namespaces.c,
 * backend-landlock.c, network.c). */
enum { JAIL, JAILV, JAILU, JAILL, LL, LLOLD, BARE };
static const struct {
	const char *name;
	struct sbx_netmode mode;
} modes[] = {
	/* namespaces, a guarded view and the resolver relay */
	[JAIL] = { "jail", { .own_netns = true, .dns_relay = true, .unix_owned = true } },
	/* namespaces, a private view, no relay */
	[JAILV] = { "jail-view", { .own_netns = true, .unix_view = true } },
	/* namespaces with the network on: the UDP relay behind the jail's
	 * tun device, and the resolver relay for a loopback stub */
	[JAILU] = { "jail-udp",
	    { .own_netns = true, .unix_view = true, .dns_relay = true, .udp_relay = true } },
	/* namespaces with listen ports: the sandbox's own connects to its
	 * servers there (the host's) */
	[JAILL] = { "jail-listen", { .own_netns = true, .unix_view = true, .listen_self = true } },
	/* landlock, with Landlock's abstract unix scope */
	[LL] = { "landlock",
	    { .own_listeners = true, .host_view = true, .abstract_scoped = true } },
	/* landlock on a kernel without that scope */
	[LLOLD] = { "landlock-unscoped", { .own_listeners = true, .host_view = true } },
	[BARE] = { "bare", { 0 } },
};

enum {
	CO = SBX_NETCALL_CONNECT,
	BI = SBX_NETCALL_BIND,
	LI = SBX_NETCALL_LISTEN,
	ST = SBX_NETCALL_SENDTO,
	SM = SBX_NETCALL_SENDMSG,
	SMM = SBX_NETCALL_SENDMMSG,
	OT = SBX_NETCALL_OTHER,
};
enum { TCP = SOCK_STREAM, UDP = SOCK_DGRAM, RAW = SOCK_RAW, SEQ = SOCK_SEQPACKET };
#define V4 AF_INET
#define V6 AF_INET6
#define UX AF_UNIX

enum {
	RF = SBX_NETACT_REFUSE,
	CP = SBX_NETACT_ON_COPY,
	NA = SBX_NETACT_NO_ADDRESS,
	HO = SBX_NETACT_ON_HOST,
	UP = SBX_NETACT_UNIX_PEER,
	UB = SBX_NETACT_UNIX_BIND,
};

/* The call's flags and the facts of the system. */
#define TFO 0x1u /* the send carries MSG_FASTOPEN */
#define HOSTSOCK 0x2u /* the socket is one handed in, in the host's netns */
#define HOST 0x4u /* the address is one of this machine's own */
#define OWNED 0x8u /* every listener on it is the sandbox's */
#define V6ONLY 0x10u /* the socket is IPv6-only */

/* What else the verdict says. */
#define INLINE 0x1u /* send_inline */
#define INSIDE 0x2u /* peer_bound_inside */
#define WRITABLE 0x4u /* peer_writable or bind_writable */

struct row {
	int mode, rules, kind, domain, type, protocol;
	/* numeric; "unix:PATH", "unix:@NAME", "unix:" (unnamed); "unspec"
	 * (AF_UNSPEC); "short" (an IPv4 address cut short); NULL: none */
	const char *addr;
	uint16_t port;
	/* sendmmsg: each message's "ADDRESS PORT", or "-" for none */
	const char *mm[3];
	unsigned flags;
	int act, errnum;
	const char *reason;
	unsigned want;
	const char *rewritten; /* a bind served on loopback: the address after */
};

#define NOMM \
	{ \
		NULL \
	}

static const struct row rows[] = {
	/* Families and protocols the supervisor never makes a call on. */
	{ JAIL, ON, CO, AF_PACKET, UDP, 0, NULL, 0, NOMM, 0, RF, EPERM, "socket family not allowed",
	    0, NULL },
	{ LL, ON, CO, AF_NETLINK, RAW, 0, NULL, 0, NOMM, 0, RF, EPERM, "socket family not allowed",
	    0, NULL },
	{ LL, ON, CO, AF_UNSPEC, TCP, 0, REMOTE, 443, NOMM, 0, RF, EPERM,
	    "socket family not allowed", 0, NULL },
	{ JAIL, ON, CO, V4, TCP, IPPROTO_MPTCP, REMOTE, 443, NOMM, 0, RF, EPERM,
	    "socket protocol not allowed", 0, NULL },
	{ LL, ON, ST, V6, TCP, IPPROTO_MPTCP, "::1", 80, NOMM, TFO, RF, EPERM,
	    "socket protocol not allowed", 0, NULL },
	{ LL, ON, BI, V4, SEQ, IPPROTO_SCTP, "0.0.0.0", 8080, NOMM, 0, RF, EPERM,
	    "socket protocol not allowed", 0, NULL },
	{ LL, ON, CO, V4, RAW, IPPROTO_ICMP, REMOTE, 1, NOMM, 0, RF, EPERM,
	    "socket type not allowed", 0, NULL },
	{ JAIL, ON, CO, V4, TCP, IPPROTO_TCP, REMOTE, 443, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ LL, ON, OT, V4, TCP, 0, REMOTE, 443, NOMM, 0, RF, EPERM, "not understood", 0, NULL },
	{ LL, ON, OT, UX, TCP, 0, "unix:/tmp/s", 0, NOMM, 0, RF, EPERM, "not understood", 0, NULL },

	/* connect, the jail's own namespace: its own loopback stays on its
	 * own socket; what the rules let reach the host goes on a host
	 * socket handed in. */
	{ JAIL, OFF, CO, V4, TCP, 0, REMOTE, 443, NOMM, 0, RF, EACCES,
	    "remote port not in the connect list", 0, NULL },
	{ JAIL, PORTS, CO, V4, TCP, 0, REMOTE, 443, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAIL, PORTS, CO, V6, TCP, 0, "2606:2800:220:1::1", 443, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAIL, OFF, CO, V4, TCP, 0, "127.0.0.1", 8080, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, OFF, CO, V4, TCP, 0, "0.0.0.0", 8080, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, OFF, CO, V6, TCP, 0, "::", 8080, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, OFF, CO, V6, TCP, 0, "::ffff:127.0.0.1", 5432, NOMM, 0, CP, 0, NULL, 0, NULL },
	/* A server of the sandbox's on a listen port is the host's: its own
	 * connect goes there when every listener on the port is its own,
	 * and stays in the jail otherwise (or without listen_self). */
	{ JAILL, PORTS, CO, V4, TCP, 0, "127.0.0.1", 8080, NOMM, OWNED, HO, 0, NULL, 0, NULL },
	{ JAILL, PORTS, CO, V6, TCP, 0, "::1", 8080, NOMM, OWNED, HO, 0, NULL, 0, NULL },
	{ JAILL, PORTS, CO, V6, TCP, 0, "::ffff:127.0.0.1", 8080, NOMM, OWNED, HO, 0, NULL, 0,
	    NULL },
	{ JAILL, PORTS, CO, V4, TCP, 0, "127.0.0.1", 8080, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAILL, PORTS, CO, V4, TCP, 0, "127.0.0.1", 8081, NOMM, OWNED, CP, 0, NULL, 0, NULL },
	{ JAILL, PORTS, CO, V4, UDP, 0, "127.0.0.1", 8080, NOMM, OWNED, CP, 0, NULL, 0, NULL },
	{ JAIL, PORTS, CO, V4, TCP, 0, "127.0.0.1", 8080, NOMM, OWNED, CP, 0, NULL, 0, NULL },
	/* A loopback port given back is the host's, in every spelling. */
	{ JAIL, PORTS, CO, V4, TCP, 0, "127.0.0.1", 5432, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAIL, PORTS, CO, V6, TCP, 0, "::1", 5432, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAIL, PORTS, CO, V6, TCP, 0, "::ffff:127.0.0.1", 5432, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAIL, PORTS, CO, V4, TCP, 0, "127.0.0.2", 5432, NOMM, 0, HO, 0, NULL, 0, NULL },
	/* ... but only for TCP: a datagram there is the jail's own. */
	{ JAIL, PORTS, CO, V4, UDP, 0, "127.0.0.1", 5432, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, PROXY, CO, V4, TCP, 0, "127.0.0.1", PROXY_PORT, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAIL, ON, CO, V4, TCP, 0, HOST_ADDR, 22, NOMM, HOST, RF, EACCES, "local address", 0,
	    NULL },
	{ JAIL, ON, CO, V4, TCP, 0, "169.254.169.254", 80, NOMM, 0, RF, EACCES, "local address", 0,
	    NULL },
	/* A socket handed in already lives in the host's netns: its
	 * loopback is the host's. */
	{ JAIL, OFF, CO, V4, TCP, 0, "127.0.0.1", 8080, NOMM, HOSTSOCK, RF, EACCES, "local address",
	    0, NULL },
	{ JAIL, PORTS, CO, V4, TCP, 0, REMOTE, 443, NOMM, HOSTSOCK, CP, 0, NULL, 0, NULL },

	/* connect, the landlock backend: one network, the host's. */
	{ LL, ON, CO, V4, TCP, 0, REMOTE, 443, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, PORTS, CO, V6, TCP, 0, "::ffff:127.0.0.1", 5432, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, CO, V6, TCP, 0, "::ffff:127.0.0.1", 5432, NOMM, 0, RF, EACCES, "local address",
	    0, NULL },
	{ LL, OFF, CO, V4, TCP, 0, "127.0.0.1", 40000, NOMM, OWNED, CP, 0, NULL, 0, NULL },
	{ LL, OFF, CO, V6, TCP, 0, "::ffff:127.0.0.1", 40000, NOMM, OWNED, CP, 0, NULL, 0, NULL },
	{ LL, OFF, CO, V4, TCP, 0, "127.0.0.1", 40000, NOMM, 0, RF, EACCES, "local address", 0,
	    NULL },
	{ LL, OFF, CO, V4, TCP, 0, HOST_ADDR, 40000, NOMM, HOST | OWNED, RF, EACCES,
	    "local address", 0, NULL },
	{ LL, OFF, CO, V4, UDP, 0, "127.0.0.1", 40000, NOMM, OWNED, RF, EACCES, "local address", 0,
	    NULL },

	/* DNS: relayed in the jail, decided by the rules elsewhere. */
	{ JAIL, PORTS, CO, V4, UDP, 0, "10.0.0.53", 53, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, PORTS, CO, V4, UDP, 0, "127.0.0.53", 53, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, PORTS, CO, V6, UDP, 0, "fd00::53", 53, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, OFF, CO, V4, UDP, 0, "10.0.0.53", 53, NOMM, 0, RF, EACCES,
	    "datagrams need the network on", 0, NULL },
	{ JAIL, PORTS, CO, V4, UDP, 0, "10.0.0.54", 53, NOMM, 0, RF, EACCES,
	    "datagrams need the network on", 0, NULL },
	{ JAIL, PORTS, CO, V4, TCP, 0, "10.0.0.53", 53, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAILV, PORTS, CO, V4, UDP, 0, "10.0.0.53", 53, NOMM, 0, RF, EACCES,
	    "datagrams leave only through the relays", 0, NULL },
	{ JAIL, ON, CO, V4, UDP, 0, REMOTE, 123, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ LL, PORTS, CO, V4, UDP, 0, "127.0.0.53", 53, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, CO, V4, UDP, 0, "127.0.0.53", 53, NOMM, 0, RF, EACCES, "local address", 0,
	    NULL },

	/* connect with odd addresses. */
	{ JAIL, OFF, CO, V4, UDP, 0, "unspec", 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, CO, V6, UDP, 0, "unspec", 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, ON, CO, V4, TCP, 0, "unspec", 0, NOMM, 0, RF, EAFNOSUPPORT,
	    "address family not allowed", 0, NULL },
	{ LL, ON, CO, V4, TCP, 0, NULL, 0, NOMM, 0, RF, EINVAL, "malformed address", 0, NULL },
	{ JAIL, ON, CO, V4, TCP, 0, "short", 443, NOMM, 0, RF, EINVAL, "malformed address", 0,
	    NULL },
	{ LL, ON, CO, V4, TCP, 0, "::1", 443, NOMM, 0, RF, EAFNOSUPPORT, "malformed address", 0,
	    NULL },
	{ JAIL, ON, CO, V4, TCP, 0, "unix:/run/docker.sock", 0, NOMM, 0, RF, EAFNOSUPPORT,
	    "malformed address", 0, NULL },
	/* An IPv6 socket takes an IPv4 address. */
	{ LL, ON, CO, V6, UDP, 0, REMOTE, 123, NOMM, 0, CP, 0, NULL, 0, NULL },

	/* Stream sends: the address is ignored by the kernel unless Fast
	 * Open; the dispatcher may send inline (not sendmmsg). */
	{ JAIL, OFF, ST, V4, TCP, 0, REMOTE, 443, NOMM, 0, NA, 0, NULL, INLINE, NULL },
	{ LL, OFF, SM, V6, TCP, 0, NULL, 0, NOMM, 0, NA, 0, NULL, INLINE, NULL },
	{ LL, OFF, SMM, V4, TCP, 0, NULL, 0, { REMOTE " 443" }, 0, NA, 0, NULL, 0, NULL },
	/* Fast Open connects: judged as a connect. */
	{ JAIL, OFF, ST, V4, TCP, 0, REMOTE, 443, NOMM, TFO, RF, EACCES,
	    "remote port not in the connect list", 0, NULL },
	{ JAIL, PORTS, ST, V4, TCP, 0, REMOTE, 443, NOMM, TFO, HO, 0, NULL, 0, NULL },
	{ JAIL, PORTS, SM, V6, TCP, 0, "::ffff:127.0.0.1", 5432, NOMM, TFO, HO, 0, NULL, 0, NULL },
	{ JAIL, OFF, ST, V4, TCP, 0, "127.0.0.1", 9000, NOMM, TFO, CP, 0, NULL, 0, NULL },
	{ LL, PORTS, ST, V4, TCP, 0, REMOTE, 443, NOMM, TFO, CP, 0, NULL, 0, NULL },
	{ LL, OFF, ST, V4, TCP, 0, "127.0.0.1", 40000, NOMM, TFO | OWNED, CP, 0, NULL, 0, NULL },
	{ LL, OFF, SM, V4, TCP, 0, "127.0.0.1", 40000, NOMM, TFO, RF, EACCES, "local address", 0,
	    NULL },
	{ LL, OFF, ST, V4, TCP, 0, NULL, 0, NOMM, TFO, CP, 0, NULL, 0, NULL },
	{ LL, OFF, SMM, V4, TCP, 0, NULL, 0, { REMOTE " 443" }, TFO, RF, EACCES,
	    "remote port not in the connect list", 0, NULL },
	/* MSG_FASTOPEN means nothing to a datagram. */
	{ JAIL, OFF, ST, V4, UDP, 0, REMOTE, 53, NOMM, TFO, RF, EACCES,
	    "datagrams need the network on", 0, NULL },

	/* Datagram sends, with and without an address. */
	{ JAIL, ON, ST, V4, UDP, 0, REMOTE, 53, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAIL, OFF, ST, V4, UDP, 0, REMOTE, 53, NOMM, 0, RF, EACCES,
	    "datagrams need the network on", 0, NULL },
	{ JAIL, PORTS, ST, V4, UDP, 0, "10.0.0.53", 53, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, OFF, SM, V4, UDP, 0, "127.0.0.1", 5353, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, OFF, SM, V4, UDP, 0, NULL, 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, ON, SM, V6, UDP, 0, "2606:2800:220:1::1", 53, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAIL, ON, SM, V4, UDP, 0, "short", 53, NOMM, 0, RF, EINVAL, "malformed address", 0,
	    NULL },
	{ LL, PORTS, ST, V4, UDP, 0, "10.0.0.53", 53, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, SM, V4, UDP, 0, "10.0.0.53", 53, NOMM, 0, RF, EACCES,
	    "datagrams need the network on", 0, NULL },
	{ LL, ON, SM, V4, UDP, 0, "127.0.0.1", 5353, NOMM, 0, RF, EACCES, "local address", 0,
	    NULL },

	/* sendmmsg: each message judged; one socket is the jail's or the
	 * host's, never both. */
	{ JAIL, ON, SMM, V4, UDP, 0, NULL, 0, { REMOTE " 53", REMOTE " 123" }, 0, HO, 0, NULL, 0,
	    NULL },
	{ JAIL, ON, SMM, V4, UDP, 0, NULL, 0, { "127.0.0.1 5353", REMOTE " 53" }, 0, RF, EACCES,
	    "own loopback and host addresses in one sendmmsg", 0, NULL },
	{ JAIL, ON, SMM, V4, UDP, 0, NULL, 0, { "127.0.0.1 5353", "-" }, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, ON, SMM, V4, UDP, 0, NULL, 0, { "-", "-" }, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, PORTS, SMM, V6, UDP, 0, NULL, 0, { "10.0.0.53 53", "fd00::53 53" }, 0, CP, 0, NULL,
	    0, NULL },
	{ JAIL, OFF, SMM, V4, UDP, 0, NULL, 0, { "10.0.0.53 53" }, 0, RF, EACCES,
	    "datagrams need the network on", 0, NULL },
	{ JAIL, ON, SMM, V4, UDP, 0, NULL, 0, { REMOTE " 53", HOST_ADDR " 53" }, HOST, RF, EACCES,
	    "local address", 0, NULL },
	{ JAILV, PORTS, SMM, V4, UDP, 0, NULL, 0, { "10.0.0.53 53" }, 0, RF, EACCES,
	    "datagrams leave only through the relays", 0, NULL },
	{ LL, ON, SMM, V4, UDP, 0, NULL, 0, { REMOTE " 53", "-" }, 0, CP, 0, NULL, 0, NULL },

	/* The UDP relay (network on): an allowed datagram call of the jail's
	 * socket is made on that socket, which the jail routes to the tun
	 * device; a host datagram socket is never handed in; streams and
	 * refusals are as without it. */
	{ JAILU, ON, ST, V4, UDP, 0, REMOTE, 53, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAILU, ON, SM, V6, UDP, 0, "2606:2800:220:1::1", 53, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAILU, ON, CO, V4, UDP, 0, REMOTE, 123, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAILU, ON, CO, V6, UDP, 0, "::ffff:" REMOTE, 123, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAILU, ON, SMM, V4, UDP, 0, NULL, 0, { REMOTE " 53", REMOTE " 123" }, 0, CP, 0, NULL, 0,
	    NULL },
	{ JAILU, ON, SMM, V4, UDP, 0, NULL, 0, { "127.0.0.1 5353", REMOTE " 53" }, 0, RF, EACCES,
	    "own loopback and host addresses in one sendmmsg", 0, NULL },
	{ JAILU, ON, ST, V4, UDP, 0, HOST_ADDR, 53, NOMM, HOST, RF, EACCES, "local address", 0,
	    NULL },
	{ JAILU, ON, CO, V4, UDP, 0, "169.254.169.254", 80, NOMM, 0, RF, EACCES, "local address", 0,
	    NULL },
	{ JAILU, ON, ST, V4, UDP, 0, "127.0.0.53", 53, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAILU, ON, CO, V4, TCP, 0, REMOTE, 443, NOMM, 0, HO, 0, NULL, 0, NULL },
	{ JAILU, ON, ST, V4, TCP, 0, REMOTE, 443, NOMM, TFO, HO, 0, NULL, 0, NULL },
	/* The relay's own judgement of a flow: the same call from a host
	 * socket (netsup.c, udp_judge). */
	{ JAILU, ON, ST, V4, UDP, 0, REMOTE, 53, NOMM, HOSTSOCK, CP, 0, NULL, 0, NULL },
	{ JAILU, ON, ST, V6, UDP, 0, "fd00::53", 53, NOMM, HOSTSOCK, CP, 0, NULL, 0, NULL },
	{ JAILU, ON, ST, V4, UDP, 0, HOST_ADDR, 9, NOMM, HOSTSOCK | HOST, RF, EACCES,
	    "local address", 0, NULL },
	{ JAILU, ON, ST, V4, UDP, 0, "127.0.0.1", 5353, NOMM, HOSTSOCK, RF, EACCES, "local address",
	    0, NULL },

	/* bind in the jail: its own, except a declared listen port (TCP),
	 * served from the host on loopback only. */
	{ JAIL, OFF, BI, V4, TCP, 0, "0.0.0.0", 8080, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, OFF, BI, V4, TCP, 0, "0.0.0.0", 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, PORTS, BI, V4, TCP, 0, "0.0.0.0", 8080, NOMM, 0, HO, 0, NULL, 0, "127.0.0.1" },
	{ JAIL, PORTS, BI, V4, TCP, 0, "127.0.0.1", 8080, NOMM, 0, HO, 0, NULL, 0, "127.0.0.1" },
	{ JAIL, PORTS, BI, V6, TCP, 0, "::", 8080, NOMM, V6ONLY, HO, 0, NULL, 0, "::1" },
	{ JAIL, PORTS, BI, V6, TCP, 0, "::", 8080, NOMM, 0, HO, 0, NULL, 0, "::ffff:127.0.0.1" },
	{ JAIL, PORTS, BI, V6, TCP, 0, "::ffff:0.0.0.0", 8080, NOMM, V6ONLY, HO, 0, NULL, 0,
	    "::ffff:127.0.0.1" },
	{ JAIL, PORTS, BI, V4, TCP, 0, HOST_ADDR, 8080, NOMM, 0, RF, EADDRNOTAVAIL,
	    "a listen port is served on loopback only", 0, NULL },
	{ JAIL, PORTS, BI, V4, UDP, 0, "0.0.0.0", 8080, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, PORTS, BI, V4, TCP, 0, "0.0.0.0", 8080, NOMM, HOSTSOCK, CP, 0, NULL, 0,
	    "127.0.0.1" },
	{ JAIL, OFF, BI, V4, TCP, 0, "0.0.0.0", 8080, NOMM, HOSTSOCK, RF, EACCES,
	    "port not in the listen list", 0, NULL },
	{ JAIL, ON, BI, V4, TCP, 0, "unix:/tmp/s", 0, NOMM, 0, RF, EAFNOSUPPORT,
	    "malformed address", 0, NULL },
	{ JAIL, ON, BI, V4, TCP, 0, "short", 8080, NOMM, 0, RF, EINVAL, "malformed address", 0,
	    NULL },
	/* bind, the landlock backend. */
	{ LL, PORTS, BI, V4, TCP, 0, "0.0.0.0", 8080, NOMM, 0, CP, 0, NULL, 0, "127.0.0.1" },
	{ LL, PORTS, BI, V6, TCP, 0, "::", 8080, NOMM, 0, CP, 0, NULL, 0, "::ffff:127.0.0.1" },
	{ LL, OFF, BI, V4, TCP, 0, "127.0.0.1", 0, NOMM, 0, CP, 0, NULL, 0, "127.0.0.1" },
	{ LL, OFF, BI, V6, TCP, 0, "::ffff:127.0.0.1", 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, BI, V4, TCP, 0, "0.0.0.0", 0, NOMM, 0, RF, EACCES, "bind to port 0", 0, NULL },
	{ LL, OFF, BI, V4, TCP, 0, "0.0.0.0", 8080, NOMM, 0, RF, EACCES,
	    "port not in the listen list", 0, NULL },
	/* A datagram socket with the network off: its port on loopback,
	 * where nothing from the network reaches it. */
	{ LL, OFF, BI, V4, UDP, 0, "0.0.0.0", 0, NOMM, 0, CP, 0, NULL, 0, "127.0.0.1" },
	{ LL, PORTS, BI, V4, UDP, 0, "0.0.0.0", 0, NOMM, 0, CP, 0, NULL, 0, "127.0.0.1" },
	{ LL, OFF, BI, V6, UDP, 0, "::", 0, NOMM, 0, CP, 0, NULL, 0, "::ffff:127.0.0.1" },
	{ LL, OFF, BI, V6, UDP, 0, "::", 0, NOMM, V6ONLY, CP, 0, NULL, 0, "::1" },
	{ LL, OFF, BI, V4, UDP, 0, "127.0.0.1", 0, NOMM, 0, CP, 0, NULL, 0, "127.0.0.1" },
	{ LL, OFF, BI, V4, UDP, 0, HOST_ADDR, 0, NOMM, 0, RF, EADDRNOTAVAIL,
	    "datagram sockets bind on loopback only with the network off", 0, NULL },
	{ LL, OFF, BI, V6, UDP, 0, "2001:db8::1", 0, NOMM, 0, RF, EADDRNOTAVAIL,
	    "datagram sockets bind on loopback only with the network off", 0, NULL },
	/* The network on: on any address, as the network reaches it anyway. */
	{ LL, ON, BI, V4, UDP, 0, "0.0.0.0", 0, NOMM, 0, CP, 0, NULL, 0, "0.0.0.0" },
	{ LL, ON, BI, V4, UDP, 0, HOST_ADDR, 0, NOMM, 0, CP, 0, NULL, 0, HOST_ADDR },
	{ LL, OFF, BI, V4, UDP, 0, "0.0.0.0", 5353, NOMM, 0, RF, EACCES,
	    "UDP ports cannot be declared", 0, NULL },

	/* listen. */
	{ JAIL, OFF, LI, V4, TCP, 0, "0.0.0.0", 9000, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAIL, PORTS, LI, V4, TCP, 0, "127.0.0.1", 8080, NOMM, HOSTSOCK, CP, 0, NULL, 0, NULL },
	{ JAIL, OFF, LI, V4, TCP, 0, "127.0.0.1", 8080, NOMM, HOSTSOCK, RF, EACCES,
	    "port not in the listen list", 0, NULL },
	{ LL, PORTS, LI, V4, TCP, 0, "127.0.0.1", 8080, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, LI, V4, TCP, 0, "127.0.0.1", 40000, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, LI, V4, TCP, 0, "0.0.0.0", 40000, NOMM, 0, RF, EACCES,
	    "port not in the listen list", 0, NULL },
	{ LL, OFF, LI, V4, TCP, 0, NULL, 0, NOMM, 0, RF, EACCES, "listen on an unbound socket", 0,
	    NULL },
	{ LL, OFF, LI, V4, UDP, 0, "127.0.0.1", 40000, NOMM, 0, RF, EOPNOTSUPP,
	    "listen on a datagram socket", 0, NULL },

	/* Unix sockets: a path is checked in the caller's view, as each
	 * deployment can; an abstract name lives in the socket's netns. */
	{ JAIL, OFF, CO, UX, TCP, 0, "unix:/run/docker.sock", 0, NOMM, 0, UP, 0, NULL, INSIDE,
	    NULL },
	{ JAILV, OFF, CO, UX, TCP, 0, "unix:/run/docker.sock", 0, NOMM, 0, UP, 0, NULL, 0, NULL },
	{ LL, OFF, CO, UX, TCP, 0, "unix:/run/docker.sock", 0, NOMM, 0, UP, 0, NULL, WRITABLE,
	    NULL },
	{ LL, OFF, CO, UX, TCP, 0, "unix:rel.sock", 0, NOMM, 0, UP, 0, NULL, WRITABLE, NULL },
	{ BARE, OFF, CO, UX, TCP, 0, "unix:/run/docker.sock", 0, NOMM, 0, RF, EACCES,
	    "unix socket paths are not supervised here", 0, NULL },
	{ JAIL, OFF, CO, UX, TCP, 0, "unix:@x11", 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ JAILV, OFF, CO, UX, TCP, 0, "unix:@x11", 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, CO, UX, TCP, 0, "unix:@x11", 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LLOLD, OFF, CO, UX, TCP, 0, "unix:@x11", 0, NOMM, 0, RF, EACCES,
	    "abstract unix sockets are the host's here", 0, NULL },
	{ LLOLD, OFF, ST, UX, UDP, 0, "unix:@x11", 0, NOMM, 0, RF, EACCES,
	    "abstract unix sockets are the host's here", 0, NULL },
	{ JAIL, OFF, CO, UX, TCP, 0, "unix:", 0, NOMM, 0, RF, EINVAL, "bad unix address", 0, NULL },
	{ JAIL, OFF, CO, UX, TCP, 0, NULL, 0, NOMM, 0, RF, EINVAL, "bad unix address", 0, NULL },
	{ LL, OFF, CO, UX, TCP, 0, "127.0.0.1", 80, NOMM, 0, RF, EINVAL, "bad unix address", 0,
	    NULL },
	{ JAIL, OFF, BI, UX, TCP, 0, "unix:/tmp/s", 0, NOMM, 0, UB, 0, NULL, 0, NULL },
	{ LL, OFF, BI, UX, UDP, 0, "unix:/tmp/s", 0, NOMM, 0, UB, 0, NULL, WRITABLE, NULL },
	{ LLOLD, OFF, BI, UX, TCP, 0, "unix:@mine", 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, BI, UX, TCP, 0, "unix:", 0, NOMM, 0, RF, EINVAL, "bad unix address", 0, NULL },
	{ BARE, OFF, LI, UX, TCP, 0, NULL, 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	/* A stream or seqpacket send takes no address. */
	{ BARE, OFF, ST, UX, TCP, 0, "unix:/run/docker.sock", 0, NOMM, 0, NA, 0, NULL, 0, NULL },
	{ LL, OFF, SM, UX, SEQ, 0, "unix:@x11", 0, NOMM, 0, NA, 0, NULL, 0, NULL },
	{ LL, OFF, SMM, UX, TCP, 0, NULL, 0, { "-" }, 0, NA, 0, NULL, 0, NULL },
	/* Datagrams: to the connected peer, or a path checked. */
	{ LL, OFF, SM, UX, UDP, 0, "unix:/tmp/s", 0, NOMM, 0, UP, 0, NULL, WRITABLE, NULL },
	{ JAIL, OFF, ST, UX, UDP, 0, "unix:/dev/log", 0, NOMM, 0, UP, 0, NULL, INSIDE, NULL },
	{ BARE, OFF, SM, UX, UDP, 0, NULL, 0, NOMM, 0, CP, 0, NULL, 0, NULL },
	{ LL, OFF, SMM, UX, UDP, 0, NULL, 0, { "-" }, 0, RF, EOPNOTSUPP,
	    "sendmmsg on a unix datagram socket", 0, NULL },
};

/* The facts of one row, and how often each was asked. */
struct facts {
	unsigned flags;
	int asked_local, asked_owned, asked_v6only;
};

static bool
fact_local(void *ctx, const struct sockaddr *sa, socklen_t len)
{
	struct facts *f = ctx;
	char text[SBX_ADDR_STRLEN];

	f->asked_local++;
	sbx_addr_format(sa, len, text, sizeof(text));
	return sbx_addr_is_local(sa, len) || ((f->flags & HOST) && strcmp(text, HOST_ADDR) == 0);
}

static bool
fact_owned(void *ctx, SBX_UNUSED const struct sockaddr *sa, SBX_UNUSED socklen_t len)
{
	struct facts *f = ctx;

	f->asked_owned++;
	return (f->flags & OWNED) != 0;
}

static bool
fact_v6only(void *ctx)
{
	struct facts *f = ctx;

	f->asked_v6only++;
	return (f->flags & V6ONLY) != 0;
}

static const char *const kind_names[] = { "connect", "bind", "listen", "sendto", "sendmsg",
	"sendmmsg", "other" };
static const char *const act_names[] = { "refuse", "on-copy", "no-address", "on-host", "unix-peer",
	"unix-bind" };

static bool
want_bits(const struct sbx_netclass *c, unsigned want)
{
	bool writable = c->peer_writable || c->bind_writable;

	return c->send_inline == ((want & INLINE) != 0) &&
	    c->peer_bound_inside == ((want & INSIDE) != 0) && writable == ((want & WRITABLE) != 0);
}

static void
check_row(size_t i, const struct row *w)
{
	struct sbx_policy p;
	struct sbx_netrules r;
	struct sockaddr_storage ss, names[3];
	struct mmsghdr mm[3];
	struct facts fx = { .flags = w->flags };
	const struct sbx_netfacts facts = { fact_local, fact_owned, fact_v6only, &fx };
	struct sbx_netcall call = {
		.kind = (enum sbx_netcall_kind)w->kind,
		.domain = w->domain,
		.type = w->type,
		.protocol = w->protocol,
		.addr = &ss,
		.flags = (w->flags & TFO) ? MSG_FASTOPEN : 0,
		.host_sock = (w->flags & HOSTSOCK) != 0,
	};
	struct sbx_netclass c;
	char got[SBX_ADDR_STRLEN] = "";
	bool rewritten_ok = true;

	load_rules(&p, &r, w->rules);
	call.addrlen = make_addr(&ss, w->addr, w->port);
	memset(mm, 0, sizeof(mm));
	for (unsigned k = 0; k < 3 && w->mm[k]; k++) {
		char host[64];
		unsigned port = 0;

		if (strcmp(w->mm[k], "-") != 0 && sscanf(w->mm[k], "%63s %u", host, &port) == 2) {
			mm[k].msg_hdr.msg_name = &names[k];
			mm[k].msg_hdr.msg_namelen = make_addr(&names[k], host, (uint16_t)port);
		}
		call.vlen = k + 1;
	}
	call.mmsg = call.vlen ? mm : NULL;
	c = sbx_net_classify(&r, &modes[w->mode].mode, &call, &facts);
	if (w->rewritten) {
		sbx_addr_format((struct sockaddr *)&ss, call.addrlen, got, sizeof(got));
		rewritten_ok = strcmp(got, w->rewritten) == 0;
	}
	if (!ok((int)c.act == w->act && want_bits(&c, w->want) && rewritten_ok &&
		    (w->act != RF ||
			(c.errnum == w->errnum && c.reason && w->reason &&
			    strcmp(c.reason, w->reason) == 0)),
		"row %zu: %s, %s: %s %s/%d %s%s%s:%u -> %s%s%s", i, modes[w->mode].name,
		rule_sets[w->rules].name, kind_names[w->kind],
		w->domain == UX       ? "unix"
		    : w->domain == V4 ? "inet"
		    : w->domain == V6 ? "inet6"
				      : "other",
		w->type, w->flags & TFO ? "fastopen " : "",
		w->flags & HOSTSOCK ? "host-socket " : "",
		w->addr        ? w->addr
		    : w->mm[0] ? "(sendmmsg)"
			       : "(none)",
		w->port, act_names[w->act], w->act == RF ? ": " : "",
		w->act == RF ? w->reason : ""))
		diag("got %s, errno %d, \"%s\", inline %d inside %d writable %d/%d, address %s",
		    act_names[c.act], c.errnum, c.reason ? c.reason : "", c.send_inline,
		    c.peer_bound_inside, c.peer_writable, c.bind_writable, got);
	sbx_netrules_free(&r);
	sbx_policy_free(&p);
}

/* The facts cost a syscall or a sock_diag dump each: asked only when a
 * decision turns on them. */
static void
test_facts_asked_lazily(void)
{
	struct sbx_policy p;
	struct sbx_netrules r;
	struct sockaddr_storage ss;
	struct facts fx = { 0 };
	const struct sbx_netfacts facts = { fact_local, fact_owned, fact_v6only, &fx };
	struct sbx_netcall call = {
		.kind = SBX_NETCALL_CONNECT, .domain = AF_INET, .type = SOCK_STREAM, .addr = &ss
	};

	load_rules(&p, &r, OFF);
	call.addrlen = make_addr(&ss, "127.0.0.1", 8080);
	sbx_net_classify(&r, &modes[JAIL].mode, &call, &facts);
	ok(fx.asked_local == 0 && fx.asked_owned == 0,
	    "facts: the jail's own loopback asks nothing");

	call.addrlen = make_addr(&ss, REMOTE, 443);
	sbx_net_classify(&r, &modes[LL].mode, &call, &facts);
	ok(fx.asked_local == 1 && fx.asked_owned == 0,
	    "facts: a remote connect asks whether it is local, not who listens");

	call.addrlen = make_addr(&ss, "127.0.0.1", 40000);
	sbx_net_classify(&r, &modes[LL].mode, &call, &facts);
	ok(fx.asked_owned == 1, "facts: a loopback connect asks who listens, once");

	call.kind = SBX_NETCALL_BIND;
	call.addrlen = make_addr(&ss, "0.0.0.0", 8080);
	sbx_net_classify(&r, &modes[JAIL].mode, &call, &facts);
	ok(fx.asked_v6only == 0, "facts: an IPv4 bind never asks for IPv6-only");
	sbx_netrules_free(&r);
	sbx_policy_free(&p);
}

int
main(void)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(rows); i++)
		check_row(i, &rows[i]);
	test_facts_asked_lazily();
	return done_testing();
}
