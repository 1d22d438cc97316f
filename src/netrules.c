#include "config.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/un.h>

#include "netrules.h"
#include "notifydecode.h"

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

static struct sbx_netverdict
allow(void)
{
	return (struct sbx_netverdict){ .allow = true };
}

static struct sbx_netverdict
refuse(int errnum, const char *reason)
{
	return (struct sbx_netverdict){ .allow = false, .errnum = errnum, .reason = reason };
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
		return refuse(EAFNOSUPPORT, "address family not allowed");
	if (port == 0)
		return refuse(EACCES, "port 0");
	if (is_resolver(r, q, port))
		return allow();
	if (q->local) {
		if (stream && sbx_addr_is_loopback(q->addr, q->addrlen) &&
		    (sbx_ports_contains(&r->loopback, port) ||
			(r->proxy_port != 0 && port == r->proxy_port)))
			return allow();
		/* The sandbox's own server on an ephemeral loopback port. */
		if (stream && q->own_listeners && q->owned_listener &&
		    sbx_addr_is_loopback(q->addr, q->addrlen))
			return allow();
		return refuse(EACCES, "local address");
	}
	if (r->network)
		return allow();
	if (stream && sbx_ports_contains(&r->connect, port))
		return allow();
	return refuse(EACCES,
	    stream ? "remote port not in the connect list" : "datagrams need the network on");
}

struct sbx_netverdict
sbx_net_decide(const struct sbx_netrules *r, const struct sbx_netreq *q)
{
	uint16_t port;

	if (q->domain != AF_INET && q->domain != AF_INET6)
		return refuse(EAFNOSUPPORT, "socket family not allowed");
	if (q->type != SOCK_STREAM && q->type != SOCK_DGRAM)
		return refuse(EPERM, "socket type not allowed");
	switch (q->op) {
	case SBX_NETOP_CONNECT:
	case SBX_NETOP_SEND:
		if (q->addr == NULL)
			return refuse(EINVAL, "no address");
		return decide_out(r, q);
	case SBX_NETOP_BIND:
		if (q->addr == NULL)
			return refuse(EINVAL, "no address");
		port = sbx_sockaddr_port(q->addr, q->addrlen);
		if (q->addr->sa_family != AF_INET && q->addr->sa_family != AF_INET6)
			return refuse(EAFNOSUPPORT, "address family not allowed");
		/* A datagram socket may take an ephemeral port: what it sends
		 * is judged per datagram. A stream socket serves only on a
		 * declared port. */
		if (q->type == SOCK_DGRAM)
			return port == 0 ? allow() : refuse(EACCES, "UDP ports cannot be declared");
		if (port != 0 && sbx_ports_contains(&r->listen, port))
			return allow();
		/* Its own loopback, where it has no network of its own: only
		 * an ephemeral port, only on a loopback address. */
		if (port == 0 && q->own_listeners && sbx_addr_is_loopback(q->addr, q->addrlen))
			return allow();
		return refuse(EACCES, port == 0 ? "bind to port 0" : "port not in the listen list");
	case SBX_NETOP_LISTEN:
		if (q->type != SOCK_STREAM)
			return refuse(EOPNOTSUPP, "listen on a datagram socket");
		/* listen() on an unbound socket would bind a random port. */
		if (q->bound_port == 0)
			return refuse(EACCES, "listen on an unbound socket");
		/* Bound by the rule above: an ephemeral loopback port. */
		if (q->own_listeners && q->bound != NULL &&
		    sbx_addr_is_loopback(q->bound, q->boundlen) &&
		    !sbx_ports_contains(&r->listen, q->bound_port))
			return allow();
		if (!sbx_ports_contains(&r->listen, q->bound_port))
			return refuse(EACCES, "port not in the listen list");
		return allow();
	}
	return refuse(EPERM, "unknown operation");
}

/* The classification of the trapped calls (sbx_net_classify). */

static struct sbx_netclass
act(enum sbx_netact a)
{
	return (struct sbx_netclass){ .act = a };
}

static struct sbx_netclass
refused(int errnum, const char *reason)
{
	return (
	    struct sbx_netclass){ .act = SBX_NETACT_REFUSE, .errnum = errnum, .reason = reason };
}

/* A unix address to connect or send to. An abstract name is looked up in
 * the socket's own network namespace: the jail's under unix_owned or
 * own_netns, or the kernel judges it (abstract_scoped); the host's
 * otherwise, so refused. A path is supervised only where its socket
 * file can be checked: bound in the jail (unix_owned), in a private view,
 * or in the writable trees of the host's view. */
static struct sbx_netclass
unix_peer(const struct sbx_netmode *m, const struct sbx_netcall *k)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	int kind = sbx_decode_unix_path(k->addr, k->addrlen, path, sizeof(path));
	struct sbx_netclass c;

	if (kind < 0)
		return refused(EINVAL, "bad unix address");
	if (kind == 0)
		return m->unix_owned || m->abstract_scoped || m->own_netns
		    ? act(SBX_NETACT_ON_COPY)
		    : refused(EACCES, "abstract unix sockets are the host's here");
	if (!m->unix_owned && !m->unix_view && !m->host_view)
		return refused(EACCES, "unix socket paths are not supervised here");
	c = act(SBX_NETACT_UNIX_PEER);
	c.peer_bound_inside = m->unix_owned;
	/* With the host's filesystem in view: never a host daemon's. */
	c.peer_writable = !m->unix_owned && !m->unix_view;
	return c;
}

static struct sbx_netclass
classify_unix(const struct sbx_netmode *m, const struct sbx_netcall *k)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	struct sbx_netclass c;
	int kind;

	switch (k->kind) {
	case SBX_NETCALL_LISTEN: return act(SBX_NETACT_ON_COPY); /* no address */
	case SBX_NETCALL_BIND:
		/* An abstract name is the socket's own namespace; a path is
		 * made in the directory the caller's view gives it. */
		kind = sbx_decode_unix_path(k->addr, k->addrlen, path, sizeof(path));
		if (kind < 0)
			return refused(EINVAL, "bad unix address");
		if (kind == 0)
			return act(SBX_NETACT_ON_COPY);
		c = act(SBX_NETACT_UNIX_BIND);
		c.bind_writable = m->host_view;
		return c;
	case SBX_NETCALL_CONNECT: return unix_peer(m, k);
	case SBX_NETCALL_SENDTO:
	case SBX_NETCALL_SENDMSG:
	case SBX_NETCALL_SENDMMSG:
		/* A stream or seqpacket send takes no address. */
		if (k->type != SOCK_DGRAM)
			return act(SBX_NETACT_NO_ADDRESS);
		if (k->kind == SBX_NETCALL_SENDMMSG)
			return refused(EOPNOTSUPP, "sendmmsg on a unix datagram socket");
		/* To the connected peer, which connect() judged; sent from
		 * our copy, so a racing thread cannot add an address. */
		if (k->addrlen == 0)
			return act(SBX_NETACT_ON_COPY);
		return unix_peer(m, k);
	case SBX_NETCALL_OTHER: break;
	}
	return refused(EPERM, "not understood");
}

/* Whether the call's socket lives in the jail's own network namespace,
 * so that reaching the host takes a socket the supervisor makes there. */
static bool
leaves_jail(const struct sbx_netmode *m, const struct sbx_netcall *k)
{
	return m->own_netns && !k->host_sock;
}

/* Whether sa has the form of an IPv4 or IPv6 address the kernel would use. */
static bool
inet_form(const void *sa, socklen_t len)
{
	sa_family_t fam;

	if (len < (socklen_t)sizeof(fam))
		return false;
	memcpy(&fam, sa, sizeof(fam));
	return sbx_decode_sockaddr(fam == AF_INET6 ? AF_INET6 : AF_INET, sa, len) >= 0;
}

static bool
addr_is_unspecified(const struct sockaddr *sa, socklen_t len)
{
	if (sa->sa_family == AF_INET && len >= (socklen_t)sizeof(struct sockaddr_in))
		return ((const struct sockaddr_in *)sa)->sin_addr.s_addr == htonl(INADDR_ANY);
	if (sa->sa_family == AF_INET6 && len >= (socklen_t)sizeof(struct sockaddr_in6)) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)sa)->sin6_addr;

		return IN6_IS_ADDR_UNSPECIFIED(a) ||
		    (IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr32[3] == htonl(INADDR_ANY));
	}
	return false;
}

/* Whether a datagram to sa goes to the resolver relay in the jail
 * (dns_relay): a resolver's address, port 53, from a socket of the jail.
 * It is then sent on the sandbox's own socket, and stays in the jail,
 * where the relay takes it. */
static bool
relayed(const struct sbx_netrules *r, const struct sbx_netmode *m, const struct sbx_netcall *k,
    const struct sockaddr *sa, socklen_t len)
{
	return m->dns_relay && leaves_jail(m, k) && k->type != SOCK_STREAM && r->outbound &&
	    inet_form(sa, len) && sbx_sockaddr_port(sa, len) == 53 &&
	    sbx_addr_in_list(sa, len, &r->resolvers);
}

/* Whether sa is the jail's own loopback: a loopback or unspecified
 * address (Linux sends the latter to loopback), reached from a socket of
 * the jail's namespace, where it can only mean the jail's own lo. A host
 * loopback port given back (--loopback, the proxy) and a loopback
 * resolver are the host's, and go to the rules. */
static bool
own_loopback(const struct sbx_netrules *r, const struct sbx_netmode *m, const struct sbx_netcall *k,
    const struct sockaddr *sa, socklen_t len)
{
	uint16_t port;

	if (!leaves_jail(m, k) || !inet_form(sa, len) ||
	    (!sbx_addr_is_loopback(sa, len) && !addr_is_unspecified(sa, len)))
		return false;
	port = sbx_sockaddr_port(sa, len);
	/* A loopback stub resolver (127.0.0.53) is the host's, given with
	 * outbound permission. */
	if (port == 53 && r->outbound && sbx_addr_in_list(sa, len, &r->resolvers))
		return false;
	if (k->type == SOCK_STREAM &&
	    (sbx_ports_contains(&r->loopback, port) ||
		(r->proxy_port != 0 && port == r->proxy_port)))
		return false;
	return true;
}

/* Whether a datagram or connection to sa stays in the jail, on a socket
 * of its own: its own loopback, or the resolver relay. */
static bool
stays_in_jail(const struct sbx_netrules *r, const struct sbx_netmode *m,
    const struct sbx_netcall *k, const struct sockaddr *sa, socklen_t len)
{
	return own_loopback(r, m, k, sa, len) || relayed(r, m, k, sa, len);
}

/* The rules' verdict on one outgoing address (connect, or one message of
 * a send). */
static struct sbx_netverdict
decide_out_to(const struct sbx_netrules *r, const struct sbx_netmode *m,
    const struct sbx_netcall *k, const struct sbx_netfacts *f, const struct sockaddr *sa,
    socklen_t len, bool connects)
{
	struct sbx_netreq q = {
		.op = connects ? SBX_NETOP_CONNECT : SBX_NETOP_SEND,
		.domain = k->domain,
		.type = k->type,
		.addr = sa,
		.addrlen = len,
	};
	int e = sbx_decode_sockaddr(k->domain, sa, len);

	if (e < 0)
		return refuse(-e, "malformed address");
	q.local = f->is_local(f->ctx, sa, len);
	if (m->own_listeners) {
		q.own_listeners = true;
		if (connects && k->type == SOCK_STREAM && q.local && sbx_addr_is_loopback(sa, len))
			q.owned_listener = f->owned_listener(f->ctx, sa, len);
	}
	return sbx_net_decide(r, &q);
}

/* A declared listen port is served on loopback only: a wildcard address
 * becomes 127.0.0.1 (::1 for an IPv6-only socket, the mapped 127.0.0.1
 * for a dual-stack one), so that a server inside never answers on the
 * machine's other addresses; any other address but a loopback one is
 * refused. */
static struct sbx_netverdict
serve_on_loopback(const struct sbx_netcall *k, const struct sbx_netfacts *f)
{
	struct sockaddr *sa = (struct sockaddr *)k->addr;

	if (sa->sa_family == AF_INET && k->addrlen >= sizeof(struct sockaddr_in)) {
		struct sockaddr_in *in = (struct sockaddr_in *)sa;

		if (in->sin_addr.s_addr == htonl(INADDR_ANY))
			in->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	} else if (sa->sa_family == AF_INET6 && k->addrlen >= sizeof(struct sockaddr_in6)) {
		struct in6_addr *a = &((struct sockaddr_in6 *)sa)->sin6_addr;

		if (addr_is_unspecified(sa, k->addrlen)) {
			if (IN6_IS_ADDR_UNSPECIFIED(a) && f->v6only(f->ctx)) {
				*a = in6addr_loopback;
			} else {
				memset(a, 0, sizeof(*a));
				a->s6_addr[10] = a->s6_addr[11] = 0xff;
				a->s6_addr32[3] = htonl(INADDR_LOOPBACK);
			}
		}
	} else {
		return refuse(EINVAL, "malformed address");
	}
	if (!sbx_addr_is_loopback(sa, k->addrlen))
		return refuse(EADDRNOTAVAIL, "a listen port is served on loopback only");
	return allow();
}

/* A send: only an address the kernel would use is judged. */
static struct sbx_netverdict
classify_send(const struct sbx_netrules *r, const struct sbx_netmode *m,
    const struct sbx_netcall *k, const struct sbx_netfacts *f, bool fastopen, bool *on_host)
{
	const struct sockaddr *sa = (const struct sockaddr *)k->addr;
	struct sbx_netverdict v = allow();
	unsigned own = 0, named = 0;

	if (k->kind != SBX_NETCALL_SENDMMSG) {
		/* No address: a connected datagram socket, whose peer
		 * connect() judged; sent from our copy, so a racing thread
		 * cannot add one. */
		if (k->addrlen == 0 || stays_in_jail(r, m, k, sa, k->addrlen))
			return v;
		v = decide_out_to(r, m, k, f, sa, k->addrlen, fastopen);
		*on_host = v.allow && leaves_jail(m, k);
		return v;
	}
	for (unsigned i = 0; i < k->vlen && v.allow; i++) {
		const struct sockaddr *name = k->mmsg[i].msg_hdr.msg_name;
		socklen_t len = k->mmsg[i].msg_hdr.msg_namelen;

		if (name == NULL)
			continue;
		named++;
		if (stays_in_jail(r, m, k, name, len))
			own++;
		else
			v = decide_out_to(r, m, k, f, name, len, false);
	}
	/* One socket cannot be both the jail's and the host's. */
	if (v.allow && own > 0 && own < named)
		return refuse(EACCES, "own loopback and host addresses in one sendmmsg");
	*on_host = v.allow && named > 0 && own == 0 && leaves_jail(m, k);
	return v;
}

static struct sbx_netverdict
classify_connect(const struct sbx_netrules *r, const struct sbx_netmode *m,
    const struct sbx_netcall *k, const struct sbx_netfacts *f, bool *on_host)
{
	const struct sockaddr *sa = (const struct sockaddr *)k->addr;
	bool dissolve = k->addrlen >= sizeof(sa_family_t) && sa->sa_family == AF_UNSPEC;
	struct sbx_netverdict v;

	if (!dissolve && stays_in_jail(r, m, k, sa, k->addrlen))
		return allow();
	v = decide_out_to(r, m, k, f, sa, k->addrlen, true);
	if (dissolve && k->type == SOCK_DGRAM)
		return allow(); /* dissolving a UDP association */
	*on_host = v.allow && leaves_jail(m, k);
	return v;
}

/* A bind. On a socket of the jail's own namespace anything is the jail's
 * own, except a declared listen port (TCP), served from the host on
 * loopback only, on a host socket that replaces the caller's: a wildcard
 * bind therefore never answers on the machine's other addresses. */
static struct sbx_netverdict
classify_bind(const struct sbx_netrules *r, const struct sbx_netmode *m,
    const struct sbx_netcall *k, const struct sbx_netfacts *f, bool *on_host)
{
	const struct sockaddr *sa = (const struct sockaddr *)k->addr;
	struct sbx_netreq q = {
		.op = SBX_NETOP_BIND,
		.domain = k->domain,
		.type = k->type,
		.addr = sa,
		.addrlen = k->addrlen,
		.own_listeners = m->own_listeners,
	};
	int e = sbx_decode_sockaddr(k->domain, sa, k->addrlen);
	uint16_t port;
	struct sbx_netverdict v;

	if (e < 0)
		return refuse(-e, "malformed address");
	port = sbx_sockaddr_port(sa, k->addrlen);
	if (leaves_jail(m, k)) {
		if (k->type != SOCK_STREAM || port == 0 || !sbx_ports_contains(&r->listen, port))
			return allow();
		v = serve_on_loopback(k, f);
		*on_host = v.allow;
		return v;
	}
	v = sbx_net_decide(r, &q);
	if (v.allow && k->type == SOCK_STREAM && port != 0)
		v = serve_on_loopback(k, f);
	return v;
}

static struct sbx_netverdict
classify_listen(
    const struct sbx_netrules *r, const struct sbx_netmode *m, const struct sbx_netcall *k)
{
	const struct sockaddr *sa = k->addrlen ? (const struct sockaddr *)k->addr : NULL;
	struct sbx_netreq q = {
		.op = SBX_NETOP_LISTEN,
		.domain = k->domain,
		.type = k->type,
		.bound_port = sa ? sbx_sockaddr_port(sa, k->addrlen) : 0,
		.own_listeners = m->own_listeners,
		.bound = sa,
		.boundlen = k->addrlen,
	};

	/* A socket of the jail's own namespace serves only there. */
	if (leaves_jail(m, k))
		return allow();
	return sbx_net_decide(r, &q);
}

/* The protocols the seccomp filter keeps the sandbox from making
 * (linux-seccomp.c), refused here too should such a socket reach us. */
static bool
protocol_refused(int protocol)
{
	return protocol == IPPROTO_MPTCP || protocol == IPPROTO_SCTP || protocol == 33 /* DCCP */;
}

static struct sbx_netclass
classify_inet(const struct sbx_netrules *r, const struct sbx_netmode *m, struct sbx_netcall *k,
    const struct sbx_netfacts *f)
{
	bool stream = k->type == SOCK_STREAM, on_host = false;
	/* TCP ignores a send's address unless it carries MSG_FASTOPEN (the
	 * flags are a register, not racy memory). */
	bool fastopen = stream && (k->flags & MSG_FASTOPEN);
	struct sbx_netverdict v;

	if (protocol_refused(k->protocol))
		return refused(EPERM, "socket protocol not allowed");
	switch (k->kind) {
	case SBX_NETCALL_SENDTO:
	case SBX_NETCALL_SENDMSG:
	case SBX_NETCALL_SENDMMSG:
		/* Sent from our copy, without the address, on the connection
		 * connect() judged. */
		if (stream && !fastopen) {
			struct sbx_netclass c = act(SBX_NETACT_NO_ADDRESS);

			c.send_inline = k->kind != SBX_NETCALL_SENDMMSG;
			return c;
		}
		v = classify_send(r, m, k, f, fastopen, &on_host);
		break;
	case SBX_NETCALL_CONNECT: v = classify_connect(r, m, k, f, &on_host); break;
	case SBX_NETCALL_BIND: v = classify_bind(r, m, k, f, &on_host); break;
	case SBX_NETCALL_LISTEN: v = classify_listen(r, m, k); break;
	case SBX_NETCALL_OTHER:
	default: return refused(EPERM, "not understood");
	}
	if (!v.allow)
		return refused(v.errnum, v.reason);
	/* Unless the network is on, sendmsg may go untrapped (the resolvers
	 * are relayed): a datagram socket of the host must never reach the
	 * sandbox, whatever the rules said. */
	if (on_host && !stream && m->own_netns && !r->network)
		return refused(EACCES, "datagrams leave only through the resolver relay");
	return act(on_host ? SBX_NETACT_ON_HOST : SBX_NETACT_ON_COPY);
}

struct sbx_netclass
sbx_net_classify(const struct sbx_netrules *r, const struct sbx_netmode *m,
    struct sbx_netcall *call, const struct sbx_netfacts *facts)
{
	if (call->domain == AF_UNIX)
		return classify_unix(m, call);
	if (call->domain == AF_INET || call->domain == AF_INET6)
		return classify_inet(r, m, call, facts);
	return refused(EPERM, "socket family not allowed");
}
