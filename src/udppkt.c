#include "config.h"

#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

#include "udppkt.h"

static uint16_t
be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

static void
put16(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

uint32_t
sbx_udppkt_sum(uint32_t sum, const uint8_t *p, size_t n)
{
	uint64_t s = sum;

	for (; n >= 2; p += 2, n -= 2)
		s += be16(p);
	if (n)
		s += (uint32_t)p[0] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint32_t)s;
}

/* The UDP header at u (ulen bytes of it are the datagram). */
static enum sbx_udppkt_why
udp(const uint8_t *u, size_t avail, struct sbx_udppkt *out)
{
	size_t ulen;

	if (avail < 8)
		return SBX_UDPPKT_SHORT;
	ulen = be16(u + 4);
	if (ulen < 8 || ulen > avail)
		return SBX_UDPPKT_SHORT;
	out->sport = be16(u);
	out->dport = be16(u + 2);
	if (out->sport == 0 || out->dport == 0)
		return SBX_UDPPKT_PORT;
	out->payload = u + 8;
	out->len = ulen - 8;
	return SBX_UDPPKT_OK;
}

enum sbx_udppkt_why
sbx_udppkt_parse(const void *pkt, size_t n, struct sbx_udppkt *out)
{
	const uint8_t *p = pkt;

	memset(out, 0, sizeof(*out));
	if (n < 1)
		return SBX_UDPPKT_SHORT;
	if ((p[0] >> 4) == 4) {
		size_t ihl, tot;

		if (n < 20)
			return SBX_UDPPKT_SHORT;
		ihl = (size_t)(p[0] & 0xf) * 4;
		tot = be16(p + 2);
		if (ihl < 20 || tot < ihl || tot > n)
			return SBX_UDPPKT_SHORT;
		/* More fragments, or an offset: a piece of a datagram. */
		if (be16(p + 6) & 0x3fff)
			return SBX_UDPPKT_FRAGMENT;
		if (p[9] != IPPROTO_UDP)
			return SBX_UDPPKT_NOT_UDP;
		out->family = AF_INET;
		memcpy(out->src, p + 12, 4);
		memcpy(out->dst, p + 16, 4);
		return udp(p + ihl, tot - ihl, out);
	}
	if ((p[0] >> 4) == 6) {
		size_t plen;

		if (n < 40)
			return SBX_UDPPKT_SHORT;
		plen = be16(p + 4);
		/* 0 is a jumbogram's, which needs a hop-by-hop header. */
		if (plen == 0 || 40 + plen > n)
			return SBX_UDPPKT_SHORT;
		/* Extension headers (a fragment header among them) are not
		 * followed: the kernel puts none on a plain UDP send. */
		if (p[6] == 44)
			return SBX_UDPPKT_FRAGMENT;
		if (p[6] != IPPROTO_UDP)
			return SBX_UDPPKT_NOT_UDP;
		out->family = AF_INET6;
		memcpy(out->src, p + 8, 16);
		memcpy(out->dst, p + 24, 16);
		return udp(p + 40, plen, out);
	}
	return SBX_UDPPKT_VERSION;
}

static uint16_t
finish(uint32_t sum)
{
	uint16_t c = (uint16_t)~sum;

	/* UDP sends a computed 0 as all ones (0 means "no checksum"). */
	return c == 0 ? 0xffff : c;
}

size_t
sbx_udppkt_header(const struct sbx_udppkt *p, uint8_t *hdr)
{
	size_t ulen = p->len + 8;
	uint8_t *u;
	uint32_t sum;

	if (p->family == AF_INET) {
		if (p->len > SBX_UDPPKT_MAX4)
			return 0;
		memset(hdr, 0, SBX_UDPPKT_HDR4);
		hdr[0] = 0x45;
		put16(hdr + 2, (uint32_t)(ulen + 20));
		put16(hdr + 6, 0x4000); /* don't fragment */
		hdr[8] = 64;
		hdr[9] = IPPROTO_UDP;
		memcpy(hdr + 12, p->src, 4);
		memcpy(hdr + 16, p->dst, 4);
		put16(hdr + 10, (uint16_t)~sbx_udppkt_sum(0, hdr, 20));
		u = hdr + 20;
		sum = sbx_udppkt_sum(0, hdr + 12, 8);
	} else if (p->family == AF_INET6) {
		if (p->len > SBX_UDPPKT_MAX6)
			return 0;
		memset(hdr, 0, SBX_UDPPKT_HDR6);
		hdr[0] = 0x60;
		put16(hdr + 4, (uint32_t)ulen);
		hdr[6] = IPPROTO_UDP;
		hdr[7] = 64;
		memcpy(hdr + 8, p->src, 16);
		memcpy(hdr + 24, p->dst, 16);
		u = hdr + 40;
		sum = sbx_udppkt_sum(0, hdr + 8, 32);
	} else {
		return 0;
	}
	put16(u, p->sport);
	put16(u + 2, p->dport);
	put16(u + 4, (uint32_t)ulen);
	/* The pseudo-header's protocol and length, the header, the data. */
	sum += IPPROTO_UDP + (uint32_t)ulen;
	sum = sbx_udppkt_sum(sum, u, 6);
	sum = sbx_udppkt_sum(sum, p->payload, p->len);
	put16(u + 6, finish(sum));
	return (size_t)(u + 8 - hdr);
}
