/* sbx_net_decide() as a table: rules (a profile, a proxy port, the
 * resolvers of a resolv.conf), one request the sandbox makes, and the
 * verdict with the error and the reason the trace shows. The request's
 * "local" fact is what netsup.c computes (sbx_addr_refused): every
 * loopback, unspecified or link-local address, and the host's own
 * addresses (here 192.168.1.10, marked per row). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "netrules.h"
#include "policy.h"
#include "profile.h"
#include "tap.h"
#include "netfixture.h"

enum { C = SBX_NETOP_CONNECT, S = SBX_NETOP_SEND, B = SBX_NETOP_BIND, L = SBX_NETOP_LISTEN };
enum { TCP = SOCK_STREAM, UDP = SOCK_DGRAM };
#define V4 AF_INET
#define V6 AF_INET6

/* Own loopback servers (the landlock backend shares the host's network):
 * OWN when the sandbox may serve its own loopback, OWNED when every
 * listener on the port is its own. */
#define OWN 1
#define OWNED 2
#define HOST 4 /* the address is one of the host's own */

struct row {
	int rules;
	int op;
	int domain; /* the socket's */
	int type;
	const char *addr; /* numeric; "unix:PATH" for AF_UNIX; NULL: none */
	uint16_t port; /* connect, send, bind; for listen the bound port */
	unsigned flags;
	bool allow;
	int errnum;
	const char *reason;
};

static const struct row rows[] = {
	/* Network off: nothing leaves, not even DNS. */
	{ OFF, C, V4, TCP, REMOTE, 443, 0, false, EACCES, "remote port not in the connect list" },
	{ OFF, S, V4, UDP, "10.0.0.53", 53, 0, false, EACCES, "datagrams need the network on" },
	{ OFF, C, V4, TCP, "10.0.0.53", 53, 0, false, EACCES,
	    "remote port not in the connect list" },
	{ OFF, C, V4, TCP, "127.0.0.1", 5432, 0, false, EACCES, "local address" },
	{ OFF, S, V4, UDP, "127.0.0.53", 53, 0, false, EACCES, "local address" },
	{ OFF, B, V4, TCP, "0.0.0.0", 8080, 0, false, EACCES, "port not in the listen list" },
	{ OFF, B, V4, TCP, "127.0.0.1", 0, 0, false, EACCES, "bind to port 0" },
	{ OFF, B, V4, UDP, "0.0.0.0", 0, 0, true, 0, NULL },
	{ OFF, B, V4, UDP, "0.0.0.0", 5353, 0, false, EACCES, "UDP ports cannot be declared" },
	/* Unix sockets and raw ones are never judged here: netsup.c and the
	 * seccomp filter keep them. */
	{ OFF, C, AF_UNIX, TCP, "unix:/run/docker.sock", 0, 0, false, EAFNOSUPPORT,
	    "socket family not allowed" },
	{ ON, C, AF_UNIX, TCP, "unix:/tmp/x.sock", 0, 0, false, EAFNOSUPPORT,
	    "socket family not allowed" },
	{ ON, C, V4, SOCK_RAW, REMOTE, 0, 0, false, EPERM, "socket type not allowed" },
	{ ON, C, V4, TCP, "unix:/tmp/x.sock", 0, 0, false, EAFNOSUPPORT,
	    "address family not allowed" },
	{ ON, C, V4, TCP, NULL, 0, 0, false, EINVAL, "no address" },

	/* Network on: every remote address, never the host. */
	{ ON, C, V4, TCP, REMOTE, 443, 0, true, 0, NULL },
	{ ON, C, V4, TCP, REMOTE, 0, 0, false, EACCES, "port 0" },
	{ ON, S, V4, UDP, REMOTE, 123, 0, true, 0, NULL },
	{ ON, C, V6, TCP, "2606:2800:220:1::1", 443, 0, true, 0, NULL },
	{ ON, C, V6, TCP, "::ffff:" REMOTE, 443, 0, true, 0, NULL },
	{ ON, C, V4, TCP, "127.0.0.1", 5432, 0, false, EACCES, "local address" },
	{ ON, C, V6, TCP, "::1", 22, 0, false, EACCES, "local address" },
	{ ON, C, V6, TCP, "::ffff:127.0.0.1", 22, 0, false, EACCES, "local address" },
	{ ON, C, V4, TCP, "0.0.0.0", 22, 0, false, EACCES, "local address" },
	{ ON, C, V4, TCP, HOST_ADDR, 22, HOST, false, EACCES, "local address" },
	{ ON, C, V6, TCP, "::ffff:" HOST_ADDR, 22, HOST, false, EACCES, "local address" },
	{ ON, C, V6, TCP, "fe80::1", 22, 0, false, EACCES, "local address" },
	{ ON, S, V4, UDP, HOST_ADDR, 53, HOST, false, EACCES, "local address" },
	/* DNS with outbound permission: the resolvers, even the host's
	 * loopback stub named in resolv.conf, by UDP or TCP. */
	{ ON, S, V4, UDP, "10.0.0.53", 53, 0, true, 0, NULL },
	{ ON, S, V4, UDP, "127.0.0.53", 53, 0, true, 0, NULL },
	{ ON, C, V4, TCP, "127.0.0.53", 53, 0, true, 0, NULL },
	{ ON, S, V4, UDP, "127.0.0.53", 54, 0, false, EACCES, "local address" },
	{ ON, S, V4, UDP, "127.0.0.1", 53, 0, false, EACCES, "local address" },
	{ ON, B, V4, TCP, "0.0.0.0", 3000, 0, false, EACCES, "port not in the listen list" },

	/* Ports: connect 443, listen 8080, loopback 5432. */
	{ PORTS, C, V4, TCP, REMOTE, 443, 0, true, 0, NULL },
	{ PORTS, C, V6, TCP, "::ffff:" REMOTE, 443, 0, true, 0, NULL },
	{ PORTS, C, V4, TCP, REMOTE, 80, 0, false, EACCES, "remote port not in the connect list" },
	{ PORTS, S, V4, UDP, REMOTE, 443, 0, false, EACCES, "datagrams need the network on" },
	{ PORTS, C, V4, TCP, HOST_ADDR, 443, HOST, false, EACCES, "local address" },
	{ PORTS, S, V4, UDP, "10.0.0.53", 53, 0, true, 0, NULL },
	{ PORTS, C, V4, TCP, "10.0.0.53", 53, 0, true, 0, NULL },
	{ PORTS, S, V6, UDP, "fd00::53", 53, 0, true, 0, NULL },
	{ PORTS, S, V6, UDP, "::ffff:10.0.0.53", 53, 0, true, 0, NULL },
	{ PORTS, S, V4, UDP, "10.0.0.54", 53, 0, false, EACCES, "datagrams need the network on" },
	{ PORTS, C, V4, TCP, "127.0.0.1", 5432, 0, true, 0, NULL },
	{ PORTS, C, V4, TCP, "127.1.2.3", 5432, 0, true, 0, NULL },
	{ PORTS, C, V6, TCP, "::1", 5432, 0, true, 0, NULL },
	{ PORTS, C, V6, TCP, "::ffff:127.0.0.1", 5432, 0, true, 0, NULL },
	{ PORTS, C, V4, TCP, HOST_ADDR, 5432, HOST, false, EACCES, "local address" },
	{ PORTS, C, V4, TCP, "0.0.0.0", 5432, 0, false, EACCES, "local address" },
	{ PORTS, C, V4, TCP, "127.0.0.1", 5433, 0, false, EACCES, "local address" },
	{ PORTS, S, V4, UDP, "127.0.0.1", 5432, 0, false, EACCES, "local address" },
	{ PORTS, B, V4, TCP, "0.0.0.0", 8080, 0, true, 0, NULL },
	{ PORTS, B, V6, TCP, "::", 8080, 0, true, 0, NULL },
	{ PORTS, B, V4, TCP, "0.0.0.0", 8081, 0, false, EACCES, "port not in the listen list" },
	{ PORTS, B, V4, UDP, "0.0.0.0", 8080, 0, false, EACCES, "UDP ports cannot be declared" },
	{ PORTS, L, V4, TCP, "0.0.0.0", 8080, 0, true, 0, NULL },
	{ PORTS, L, V4, TCP, "0.0.0.0", 9000, 0, false, EACCES, "port not in the listen list" },
	{ PORTS, L, V4, TCP, NULL, 0, 0, false, EACCES, "listen on an unbound socket" },
	{ PORTS, L, V4, UDP, "0.0.0.0", 8080, 0, false, EOPNOTSUPP, "listen on a datagram socket" },

	/* The sandbox's own loopback servers where it shares the host's
	 * network: an ephemeral port on a loopback address only, and a
	 * connect only where every listener is its own. */
	{ OFF, B, V4, TCP, "127.0.0.1", 0, OWN, true, 0, NULL },
	{ OFF, B, V6, TCP, "::1", 0, OWN, true, 0, NULL },
	{ OFF, B, V6, TCP, "::ffff:127.0.0.1", 0, OWN, true, 0, NULL },
	{ OFF, B, V4, TCP, "0.0.0.0", 0, OWN, false, EACCES, "bind to port 0" },
	{ OFF, B, V4, TCP, HOST_ADDR, 0, OWN | HOST, false, EACCES, "bind to port 0" },
	{ OFF, B, V4, TCP, "127.0.0.1", 41234, OWN, false, EACCES, "port not in the listen list" },
	{ OFF, L, V4, TCP, "127.0.0.1", 41234, OWN, true, 0, NULL },
	{ OFF, L, V4, TCP, "0.0.0.0", 41234, OWN, false, EACCES, "port not in the listen list" },
	{ OFF, C, V4, TCP, "127.0.0.1", 41234, OWN | OWNED, true, 0, NULL },
	{ OFF, C, V6, TCP, "::ffff:127.0.0.1", 41234, OWN | OWNED, true, 0, NULL },
	{ OFF, C, V4, TCP, "127.0.0.1", 41234, OWN, false, EACCES, "local address" },
	{ OFF, C, V4, TCP, HOST_ADDR, 41234, OWN | OWNED | HOST, false, EACCES, "local address" },
	{ OFF, S, V4, UDP, "127.0.0.1", 41234, OWN | OWNED, false, EACCES, "local address" },
	/* Under namespaces the jail has a loopback of its own, and the
	 * flags are never set: the host's loopback stays refused. */
	{ OFF, C, V4, TCP, "127.0.0.1", 41234, OWNED, false, EACCES, "local address" },

	/* The proxy's host loopback port where the proxy listens, and
	 * nothing else of the host: the same number on another loopback
	 * address is another server's. */
	{ PROXY, C, V4, TCP, "127.0.0.1", PROXY_PORT, 0, true, 0, NULL },
	{ PROXY, C, V6, TCP, "::ffff:127.0.0.1", PROXY_PORT, 0, true, 0, NULL },
	{ PROXY, C, V6, TCP, "::1", PROXY_PORT, 0, false, EACCES, "local address" },
	{ PROXY, C, V4, TCP, "127.0.0.2", PROXY_PORT, 0, false, EACCES, "local address" },
	{ PROXY, C, V4, TCP, "127.0.0.53", PROXY_PORT, 0, false, EACCES, "local address" },
	{ PROXY, C, V6, TCP, "::ffff:127.0.0.2", PROXY_PORT, 0, false, EACCES, "local address" },
	{ PROXY, C, V4, TCP, "0.0.0.0", PROXY_PORT, 0, false, EACCES, "local address" },
	{ PROXY, C, V4, TCP, HOST_ADDR, PROXY_PORT, HOST, false, EACCES, "local address" },
	{ PROXY, S, V4, UDP, "127.0.0.1", PROXY_PORT, 0, false, EACCES, "local address" },
	{ PROXY, C, V4, TCP, REMOTE, 443, 0, false, EACCES, "remote port not in the connect list" },
	{ PROXY, S, V4, UDP, "10.0.0.53", 53, 0, false, EACCES, "datagrams need the network on" },
	{ OFF, C, V4, TCP, "127.0.0.1", PROXY_PORT, 0, false, EACCES, "local address" },
};

static const char *const op_names[] = { "connect", "send", "bind", "listen" };

static void
check_row(size_t i, const struct row *w)
{
	struct sbx_policy p;
	struct sbx_netrules r;
	struct sockaddr_storage ss;
	socklen_t len = make_addr(&ss, w->addr, w->port);
	struct sbx_netreq q = {
		.op = (enum sbx_netop)w->op,
		.domain = w->domain,
		.type = w->type,
		.own_listeners = (w->flags & OWN) != 0,
		.owned_listener = (w->flags & OWNED) != 0,
	};
	struct sbx_netverdict v;
	const char *rules = rule_sets[w->rules].name;

	load_rules(&p, &r, w->rules);
	if (w->op == SBX_NETOP_LISTEN) {
		q.bound_port = w->port;
		q.bound = len ? (const struct sockaddr *)&ss : NULL;
		q.boundlen = len;
	} else {
		q.addr = len ? (const struct sockaddr *)&ss : NULL;
		q.addrlen = len;
		/* What netsup.c asks sbx_addr_refused(): local, or the host's. */
		q.local = len && (sbx_addr_is_local(q.addr, len) || (w->flags & HOST));
	}
	v = sbx_net_decide(&r, &q);
	if (!ok(v.allow == w->allow &&
		    (w->allow ||
			(v.errnum == w->errnum && v.reason && w->reason &&
			    strcmp(v.reason, w->reason) == 0)),
		"row %zu: %s: %s %s %s:%u%s%s -> %s%s%s", i, rules, op_names[w->op],
		w->type == TCP       ? "tcp"
		    : w->type == UDP ? "udp"
				     : "raw",
		w->addr ? w->addr : "(none)", w->port, w->flags & OWN ? " own-loopback" : "",
		w->flags & OWNED ? " owned" : "", w->allow ? "allowed" : "refused",
		w->allow ? "" : ": ", w->allow ? "" : w->reason))
		diag("got %s, errno %d, \"%s\"", v.allow ? "allowed" : "refused", v.errnum,
		    v.reason ? v.reason : "");
	sbx_netrules_free(&r);
	sbx_policy_free(&p);
}

/* The second wall the landlock backend builds from the same rules. */
static void
test_landlock_ports(void)
{
	struct sbx_policy p;
	struct sbx_netrules r;
	struct sbx_err err = { 0 };
	struct sbx_ports bind = { 0 }, connect = { 0 };
	bool any = true;

	sbx_netrules_landlock_ports(NULL, &bind, &connect, &any);
	ok(bind.n == 0 && connect.n == 0 && !any, "landlock ports: network fully off: none");

	sbx_policy_init(&p, "/home/alice");
	sbx_profile_load_string(&p, "t.ini", rule_sets[PORTS].ini, &err);
	sbx_netrules_init(&r, &p, PROXY_PORT);
	sbx_netrules_landlock_ports(&r, &bind, &connect, &any);
	ok(bind.n == 2 && sbx_ports_contains(&bind, 8080) && sbx_ports_contains(&bind, 0),
	    "landlock ports: bind the listen ports and an ephemeral one");
	ok(sbx_ports_contains(&connect, 443) && sbx_ports_contains(&connect, 5432) &&
		sbx_ports_contains(&connect, PROXY_PORT) && sbx_ports_contains(&connect, 53),
	    "landlock ports: connect, loopback, proxy and DNS ports");
	ok(any, "landlock ports: connect is left to the supervisor");
	free(bind.v);
	free(connect.v);
	sbx_netrules_free(&r);
	sbx_policy_free(&p);
}

int
main(void)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(rows); i++)
		check_row(i, &rows[i]);
	test_landlock_ports();
	return done_testing();
}
