#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/un.h>

#include "netrules.h"

static void
copy_ports(struct sbx_ports *dst, const struct sbx_ports *src)
{
	for (size_t i = 0; i < src->n; i++)
		sbx_ports_add(dst, src->v[i]);
}

void
sbx_netrules_init(struct sbx_netrules *r, const struct sbx_policy *p, uint16_t proxy_port)
{
	memset(r, 0, sizeof(*r));
	r->network = p->network;
	copy_ports(&r->listen, &p->listen);
	copy_ports(&r->connect, &p->connect);
	copy_ports(&r->loopback, &p->loopback);
	r->proxy_port = proxy_port;
	/* sbxrun(1), NETWORK, DNS: the resolvers only with outbound permission; a proxy
	 * allowlist alone resolves names in the proxy, never inside. */
	r->outbound = p->network || p->connect.n > 0;
}

void
sbx_netrules_free(struct sbx_netrules *r)
{
	free(r->listen.v);
	free(r->connect.v);
	free(r->loopback.v);
	sbx_addrlist_free(&r->resolvers);
	memset(r, 0, sizeof(*r));
}

void
sbx_netrules_add_resolvers(struct sbx_netrules *r, const char *text)
{
	const char *line = text;

	while (line && *line) {
		const char *end = strchr(line, '\n');
		size_t n = end ? (size_t)(end - line) : strlen(line);
		char buf[128], addr[64];

		if (n < sizeof(buf)) {
			memcpy(buf, line, n);
			buf[n] = '\0';
			if (sscanf(buf, " nameserver %63s", addr) == 1) {
				struct sockaddr_in in = { .sin_family = AF_INET,
					.sin_port = htons(53) };
				struct sockaddr_in6 in6 = { .sin6_family = AF_INET6,
					.sin6_port = htons(53) };
				char *pct = strchr(addr, '%');

				if (pct)
					*pct = '\0'; /* fe80::1%eth0: the scope is not ours */
				if (inet_pton(AF_INET, addr, &in.sin_addr) == 1)
					sbx_addrlist_add(
					    &r->resolvers, (struct sockaddr *)&in, sizeof(in));
				else if (inet_pton(AF_INET6, addr, &in6.sin6_addr) == 1)
					sbx_addrlist_add(
					    &r->resolvers, (struct sockaddr *)&in6, sizeof(in6));
			}
		}
		line = end ? end + 1 : NULL;
	}
}

void
sbx_netrules_landlock_ports(const struct sbx_netrules *r, struct sbx_ports *bind,
    struct sbx_ports *connect, bool *connect_any)
{
	*connect_any = false;
	if (r == NULL)
		return;
	for (size_t i = 0; i < r->listen.n; i++)
		sbx_ports_add(bind, r->listen.v[i]);
	for (size_t i = 0; i < r->connect.n; i++)
		sbx_ports_add(connect, r->connect.v[i]);
	for (size_t i = 0; i < r->loopback.n; i++)
		sbx_ports_add(connect, r->loopback.v[i]);
	if (r->proxy_port)
		sbx_ports_add(connect, r->proxy_port);
	if (r->outbound)
		sbx_ports_add(connect, 53);
	/* The sandbox's own servers on the shared loopback: an ephemeral
	 * port (a Landlock rule for port 0 allows exactly that, ABI 4), and
	 * connects to it, whose port nobody knows in advance. The supervisor
	 * judges every connect by address and by who holds the listener;
	 * Landlock keeps the bind side. */
	sbx_ports_add(bind, 0);
	*connect_any = true;
}

uint16_t
sbx_sockaddr_port(const struct sockaddr *sa, socklen_t len)
{
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in))
		return ntohs(((const struct sockaddr_in *)sa)->sin_port);
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6))
		return ntohs(((const struct sockaddr_in6 *)sa)->sin6_port);
	return 0;
}

bool
sbx_addr_is_proxy_host(const struct sockaddr *sa, socklen_t len)
{
	uint32_t a;

	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in))
		a = ((const struct sockaddr_in *)sa)->sin_addr.s_addr;
	else if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6) &&
	    IN6_IS_ADDR_V4MAPPED(&((const struct sockaddr_in6 *)sa)->sin6_addr))
		memcpy(&a, &((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr[12], 4);
	else
		return false;
	return a == htonl(INADDR_LOOPBACK);
}

bool
sbx_addr_is_loopback(const struct sockaddr *sa, socklen_t len)
{
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in)) {
		uint32_t a = ntohl(((const struct sockaddr_in *)sa)->sin_addr.s_addr);

		return (a >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(a))
			return true;
		return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
	}
	return false;
}

static bool
is_resolver(const struct sbx_netrules *r, const struct sbx_netreq *q, uint16_t port)
{
	return r->outbound && port == 53 && sbx_addr_in_list(q->addr, q->addrlen, &r->resolvers);
}

/* An outgoing connection or datagram to addr. */
static struct sbx_netverdict
decide_out(const struct sbx_netrules *r, const struct sbx_netreq *q)
{
	uint16_t port = sbx_sockaddr_port(q->addr, q->addrlen);
	bool stream = q->type == SOCK_STREAM;

	if (q->addr->sa_family != AF_INET && q->addr->sa_family != AF_INET6)
		return sbx_net_refuse(EAFNOSUPPORT, "address family not allowed");
	if (port == 0)
		return sbx_net_refuse(EACCES, "port 0");
	if (is_resolver(r, q, port))
		return sbx_net_allow();
	if (q->local) {
		if (stream && sbx_addr_is_loopback(q->addr, q->addrlen) &&
		    sbx_ports_contains(&r->loopback, port))
			return sbx_net_allow();
		/* The proxy's port only where the proxy listens. */
		if (stream && r->proxy_port != 0 && port == r->proxy_port &&
		    sbx_addr_is_proxy_host(q->addr, q->addrlen))
			return sbx_net_allow();
		/* The sandbox's own server on an ephemeral loopback port. */
		if (stream && q->own_listeners && q->owned_listener &&
		    sbx_addr_is_loopback(q->addr, q->addrlen))
			return sbx_net_allow();
		return sbx_net_refuse(EACCES, "local address");
	}
	if (r->network)
		return sbx_net_allow();
	if (stream && sbx_ports_contains(&r->connect, port))
		return sbx_net_allow();
	return sbx_net_refuse(EACCES,
	    stream ? "remote port not in the connect list" : "datagrams need the network on");
}

struct sbx_netverdict
sbx_net_decide(const struct sbx_netrules *r, const struct sbx_netreq *q)
{
	uint16_t port;

	if (q->domain != AF_INET && q->domain != AF_INET6)
		return sbx_net_refuse(EAFNOSUPPORT, "socket family not allowed");
	if (q->type != SOCK_STREAM && q->type != SOCK_DGRAM)
		return sbx_net_refuse(EPERM, "socket type not allowed");
	switch (q->op) {
	case SBX_NETOP_CONNECT:
	case SBX_NETOP_SEND:
		if (q->addr == NULL)
			return sbx_net_refuse(EINVAL, "no address");
		return decide_out(r, q);
	case SBX_NETOP_BIND:
		if (q->addr == NULL)
			return sbx_net_refuse(EINVAL, "no address");
		port = sbx_sockaddr_port(q->addr, q->addrlen);
		if (q->addr->sa_family != AF_INET && q->addr->sa_family != AF_INET6)
			return sbx_net_refuse(EAFNOSUPPORT, "address family not allowed");
		/* A datagram socket may take an ephemeral port: what it sends
		 * is judged per datagram. A stream socket serves only on a
		 * declared port. */
		if (q->type == SOCK_DGRAM)
			return port == 0 ? sbx_net_allow()
					 : sbx_net_refuse(EACCES, "UDP ports cannot be declared");
		if (port != 0 && sbx_ports_contains(&r->listen, port))
			return sbx_net_allow();
		/* Its own loopback, where it has no network of its own: only
		 * an ephemeral port, only on a loopback address. */
		if (port == 0 && q->own_listeners && sbx_addr_is_loopback(q->addr, q->addrlen))
			return sbx_net_allow();
		return sbx_net_refuse(
		    EACCES, port == 0 ? "bind to port 0" : "port not in the listen list");
	case SBX_NETOP_LISTEN:
		if (q->type != SOCK_STREAM)
			return sbx_net_refuse(EOPNOTSUPP, "listen on a datagram socket");
		/* listen() on an unbound socket would bind a random port. */
		if (q->bound_port == 0)
			return sbx_net_refuse(EACCES, "listen on an unbound socket");
		/* Bound by the rule above: an ephemeral loopback port. */
		if (q->own_listeners && q->bound != NULL &&
		    sbx_addr_is_loopback(q->bound, q->boundlen) &&
		    !sbx_ports_contains(&r->listen, q->bound_port))
			return sbx_net_allow();
		if (!sbx_ports_contains(&r->listen, q->bound_port))
			return sbx_net_refuse(EACCES, "port not in the listen list");
		return sbx_net_allow();
	}
	return sbx_net_refuse(EPERM, "unknown operation");
}
