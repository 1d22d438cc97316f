/* The UDP relay: one thread of sbxrun's network supervisor, dropped like
 * a worker (the sandbox's ids, no capability, no_new_privs, a seccomp
 * filter of its own). It never blocks: the tun device and every host
 * socket are non-blocking, and a datagram that does not fit is dropped,
 * as the network may drop one. See doc/design/udp-relay.md. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "linux-creds.h"
#include "supervise.h"
#include "udppkt.h"
#include "udprelay.h"

/* At most this many flows (jail address and port, remote address and
 * port) at once; the least recently used goes when a new one needs room.
 * A flow idle this long is closed. */
#define FLOWS 256
#define IDLE_MS 60000
/* Packets handled per wakeup and source, so that neither direction
 * starves the other. */
#define BATCH 64

#define KEY_TUN UINT32_MAX
#define KEY_WAKE (UINT32_MAX - 1)

struct flow {
	int family; /* 0: a free slot */
	uint8_t jail[16], remote[16];
	uint16_t jport, rport;
	int host; /* connected to the remote, or -1: refused by the rules */
	uint64_t used_ms;
};

struct relay {
	const struct sbx_udprelay_args *a;
	int ep;
	struct flow flows[FLOWS];
	struct flow *last; /* the flow the last packet matched */
	uint8_t in[SBX_UDPPKT_MTU + 1];
	uint8_t out[SBX_UDPPKT_HDR6 + 65536];
};

/* What the relay thread may call once dropped (and write(2) on the tun
 * device and on the descriptor of the -v refusal lines alone): read the
 * tun device, make and connect host sockets (bind:
 * the local-address probe of the judgement), move datagrams; and what
 * every dropped thread needs (linux-creds.h). */
static const char *const relay_calls[] = {
	"read",
	"socket",
	"bind",
	"connect",
	"sendto",
	"recvfrom",
	"epoll_wait",
	"epoll_pwait",
	"epoll_ctl",
	"close",
	/* A -v line's wait for room on standard error (sbx_write_shared()). */
	"poll",
	"ppoll",
	SBX_THREAD_RUNTIME_CALLS,
	NULL,
};

static socklen_t
remote_addr(const struct flow *f, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof(*ss));
	if (f->family == AF_INET) {
		struct sockaddr_in *in = (struct sockaddr_in *)ss;

		in->sin_family = AF_INET;
		in->sin_port = htons(f->rport);
		memcpy(&in->sin_addr, f->remote, 4);
		return sizeof(*in);
	}
	{
		struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;

		in6->sin6_family = AF_INET6;
		in6->sin6_port = htons(f->rport);
		memcpy(&in6->sin6_addr, f->remote, 16);
		return sizeof(*in6);
	}
}

static void
flow_close(struct relay *r, struct flow *f)
{
	if (f->host >= 0) {
		epoll_ctl(r->ep, EPOLL_CTL_DEL, f->host, NULL);
		close(f->host);
	}
	memset(f, 0, sizeof(*f));
	f->host = -1;
	if (r->last == f)
		r->last = NULL;
}

static bool
flow_is(const struct flow *f, const struct sbx_udppkt *p)
{
	return f->family == p->family && f->jport == p->sport && f->rport == p->dport &&
	    memcmp(f->jail, p->src, 16) == 0 && memcmp(f->remote, p->dst, 16) == 0;
}

/* The flow of p: found, or made in a free slot (or the least recently
 * used one's), judged by the rules, and if allowed given a host socket
 * connected to the remote. NULL when no socket could be made. */
static struct flow *
flow_for(struct relay *r, const struct sbx_udppkt *p, uint64_t now)
{
	struct flow *f = NULL, *victim = &r->flows[0];
	struct sockaddr_storage ss;
	socklen_t len;

	if (r->last != NULL && flow_is(r->last, p))
		return r->last;
	for (int i = 0; i < FLOWS; i++) {
		struct flow *g = &r->flows[i];

		if (g->family != 0 && flow_is(g, p)) {
			f = g;
			break;
		}
		if (victim->family != 0 && (g->family == 0 || g->used_ms < victim->used_ms))
			victim = g;
	}
	if (f != NULL)
		return r->last = f;
	flow_close(r, victim);
	f = victim;
	f->family = p->family;
	memcpy(f->jail, p->src, 16);
	memcpy(f->remote, p->dst, 16);
	f->jport = p->sport;
	f->rport = p->dport;
	f->used_ms = now;
	len = remote_addr(f, &ss);
	/* Refused: remembered as such for the flow's life, so that a
	 * stream of datagrams is judged once. */
	if (!r->a->judge(r->a->ctx, (struct sockaddr *)&ss, len))
		return r->last = f;
	f->host = socket(p->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (f->host >= 0 && connect(f->host, (struct sockaddr *)&ss, len) == 0) {
		struct epoll_event ev = { .events = EPOLLIN, .data.u32 = (uint32_t)(f - r->flows) };

		if (epoll_ctl(r->ep, EPOLL_CTL_ADD, f->host, &ev) == 0)
			return r->last = f;
	}
	/* No socket (no route, no buffer): forgotten, tried again with the
	 * next datagram. */
	flow_close(r, f);
	return NULL;
}

/* Datagrams the jail routed to the tun device, to their remotes. */
static void
from_jail(struct relay *r)
{
	uint64_t now = sbx_now_ms();

	for (int i = 0; i < BATCH; i++) {
		struct sbx_udppkt p;
		struct flow *f;
		ssize_t n = read(r->a->tun_fd, r->in, sizeof(r->in));

		if (n <= 0)
			return;
		if (sbx_udppkt_parse(r->in, (size_t)n, &p) != SBX_UDPPKT_OK)
			continue;
		f = flow_for(r, &p, now);
		if (f == NULL || f->host < 0)
			continue;
		f->used_ms = now;
		/* Dropped when the socket's buffer is full, as a datagram may be. */
		(void)!send(f->host, p.payload, p.len, MSG_DONTWAIT);
	}
}

/* Datagrams from a flow's remote, to the jail's socket that sent to it. */
static void
to_jail(struct relay *r, struct flow *f)
{
	uint8_t *payload = r->out + SBX_UDPPKT_HDR6;
	struct sbx_udppkt p = { .family = f->family, .sport = f->rport, .dport = f->jport };

	memcpy(p.src, f->remote, 16);
	memcpy(p.dst, f->jail, 16);
	p.payload = payload;
	for (int i = 0; i < BATCH && f->host >= 0; i++) {
		ssize_t n = recv(f->host, payload, 65536, MSG_DONTWAIT);
		size_t hl;
		uint8_t hdr[SBX_UDPPKT_HDR6];

		if (n < 0) {
			/* An ICMP error (ECONNREFUSED) is not passed on. */
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return;
			continue;
		}
		p.len = (size_t)n;
		hl = sbx_udppkt_header(&p, hdr);
		if (hl == 0)
			continue; /* too long for one packet */
		memcpy(payload - hl, hdr, hl);
		f->used_ms = sbx_now_ms();
		(void)!write(r->a->tun_fd, payload - hl, hl + p.len);
	}
}

static void
sweep(struct relay *r, uint64_t now)
{
	for (int i = 0; i < FLOWS; i++)
		if (r->flows[i].family != 0 && now - r->flows[i].used_ms > IDLE_MS)
			flow_close(r, &r->flows[i]);
}

int
sbx_udprelay_run(const struct sbx_udprelay_args *a)
{
	struct relay *r = calloc(1, sizeof(*r));
	struct epoll_event ev = { .events = EPOLLIN };
	struct sbx_err err = { 0 };
	uint64_t swept = sbx_now_ms();
	int rc = -1;

	if (r == NULL)
		return -1;
	r->a = a;
	for (int i = 0; i < FLOWS; i++)
		r->flows[i].host = -1;
	r->ep = epoll_create1(EPOLL_CLOEXEC);
	if (r->ep < 0)
		goto out;
	ev.data.u32 = KEY_TUN;
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, a->tun_fd, &ev) < 0)
		goto out;
	ev.data.u32 = KEY_WAKE;
	if (epoll_ctl(r->ep, EPOLL_CTL_ADD, a->wake_fd, &ev) < 0)
		goto out;
	/* Everything above needed no right; nothing below may use more than
	 * the sandbox's. */
	if (sbx_creds_drop_thread2(a->as_uid, a->as_gid, relay_calls, a->tun_fd, a->say_fd, &err) <
	    0)
		goto out;
	rc = 0;
	while (!atomic_load(a->stopping)) {
		struct epoll_event evs[32];
		int n = epoll_wait(r->ep, evs, 32, 1000);
		uint64_t now;

		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			uint32_t k = evs[i].data.u32;

			if (k == KEY_WAKE)
				goto out;
			if (k == KEY_TUN)
				from_jail(r);
			else if (k < FLOWS && r->flows[k].host >= 0)
				to_jail(r, &r->flows[k]);
		}
		now = sbx_now_ms();
		if (now - swept >= 1000) {
			sweep(r, now);
			swept = now;
		}
	}
out:
	for (int i = 0; i < FLOWS; i++)
		if (r->flows[i].host >= 0)
			close(r->flows[i].host);
	if (r->ep >= 0)
		close(r->ep);
	free(r);
	return rc;
}
