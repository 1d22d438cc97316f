#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/un.h>

#include "netclass.h"
#include "notifydecode.h"

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

/* Whether a datagram call of a socket of the jail is made on that socket
 * once the rules allow it (udp_relay): its datagrams leave through the
 * tun device, where the UDP relay judges each flow again. */
static bool
udp_relayed(const struct sbx_netmode *m, const struct sbx_netcall *k)
{
	return m->udp_relay && leaves_jail(m, k) && k->type != SOCK_STREAM;
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
		return sbx_net_refuse(-e, "malformed address");
	q.local = f->is_local(f->ctx, sa, len);
	if (m->own_listeners) {
		q.own_listeners = true;
		if (connects && k->type == SOCK_STREAM && q.local && sbx_addr_is_loopback(sa, len))
			q.owned_listener = f->owned_listener(f->ctx, sa, len);
	}
	return sbx_net_decide(r, &q);
}

/* A declared listen port, or a datagram socket's port while the network
 * is off, is served on loopback only: a wildcard address becomes
 * 127.0.0.1 (::1 for an IPv6-only socket, the mapped 127.0.0.1 for a
 * dual-stack one), so that a server inside never answers on the
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
		return sbx_net_refuse(EINVAL, "malformed address");
	}
	if (!sbx_addr_is_loopback(sa, k->addrlen))
		return sbx_net_refuse(EADDRNOTAVAIL,
		    k->type == SOCK_STREAM
			? "a listen port is served on loopback only"
			: "datagram sockets bind on loopback only with the network off");
	return sbx_net_allow();
}

/* A send: only an address the kernel would use is judged. */
static struct sbx_netverdict
classify_send(const struct sbx_netrules *r, const struct sbx_netmode *m,
    const struct sbx_netcall *k, const struct sbx_netfacts *f, bool fastopen, bool *on_host)
{
	const struct sockaddr *sa = (const struct sockaddr *)k->addr;
	struct sbx_netverdict v = sbx_net_allow();
	unsigned own = 0, named = 0;

	if (k->kind != SBX_NETCALL_SENDMMSG) {
		/* No address: a connected datagram socket, whose peer
		 * connect() judged; sent from our copy, so a racing thread
		 * cannot add one. */
		if (k->addrlen == 0 || stays_in_jail(r, m, k, sa, k->addrlen))
			return v;
		v = decide_out_to(r, m, k, f, sa, k->addrlen, fastopen);
		*on_host = v.allow && leaves_jail(m, k) && !udp_relayed(m, k);
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
		return sbx_net_refuse(EACCES, "own loopback and host addresses in one sendmmsg");
	*on_host = v.allow && named > 0 && own == 0 && leaves_jail(m, k) && !udp_relayed(m, k);
	return v;
}

/* Whether a connect from the jail goes to a server of the sandbox's own on
 * a listen port, which its bind put on the host's loopback: a stream to a
 * loopback address on that port where every host listener is one the
 * sandbox made. */
static bool
to_own_server(const struct sbx_netrules *r, const struct sbx_netmode *m,
    const struct sbx_netcall *k, const struct sbx_netfacts *f, const struct sockaddr *sa,
    socklen_t len)
{
	return m->listen_self && leaves_jail(m, k) && k->type == SOCK_STREAM &&
	    inet_form(sa, len) && sbx_addr_is_loopback(sa, len) &&
	    sbx_ports_contains(&r->listen, sbx_sockaddr_port(sa, len)) &&
	    f->owned_listener(f->ctx, sa, len);
}

static struct sbx_netverdict
classify_connect(const struct sbx_netrules *r, const struct sbx_netmode *m,
    const struct sbx_netcall *k, const struct sbx_netfacts *f, bool *on_host)
{
	const struct sockaddr *sa = (const struct sockaddr *)k->addr;
	bool dissolve = k->addrlen >= sizeof(sa_family_t) && sa->sa_family == AF_UNSPEC;
	struct sbx_netverdict v;

	if (!dissolve && to_own_server(r, m, k, f, sa, k->addrlen)) {
		*on_host = true;
		return sbx_net_allow();
	}
	if (!dissolve && stays_in_jail(r, m, k, sa, k->addrlen))
		return sbx_net_allow();
	v = decide_out_to(r, m, k, f, sa, k->addrlen, true);
	if (dissolve && k->type == SOCK_DGRAM)
		return sbx_net_allow(); /* dissolving a UDP association */
	*on_host = v.allow && leaves_jail(m, k) && !udp_relayed(m, k);
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
		return sbx_net_refuse(-e, "malformed address");
	port = sbx_sockaddr_port(sa, k->addrlen);
	if (leaves_jail(m, k)) {
		if (k->type != SOCK_STREAM || port == 0 || !sbx_ports_contains(&r->listen, port))
			return sbx_net_allow();
		v = serve_on_loopback(k, f);
		*on_host = v.allow;
		return v;
	}
	v = sbx_net_decide(r, &q);
	if (v.allow && k->type == SOCK_STREAM && port != 0)
		v = serve_on_loopback(k, f);
	/* A datagram socket of the host's, with the network off: on any
	 * address but loopback it would receive from the network, which no
	 * rule judges (only what is sent is), so it takes its port there. */
	else if (v.allow && k->type == SOCK_DGRAM && !r->network)
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
		return sbx_net_allow();
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
	/* Unless the network is on without the UDP relay, sendmsg may go
	 * untrapped (the resolvers, or every datagram, are relayed): a
	 * datagram socket of the host must never reach the sandbox, whatever
	 * the rules said. */
	if (on_host && !stream && m->own_netns && (!r->network || m->udp_relay))
		return refused(EACCES, "datagrams leave only through the relays");
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
