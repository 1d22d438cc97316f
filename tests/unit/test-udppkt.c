/* The UDP relay's packets (src/udppkt.c): datagrams the kernel would
 * write to the tun device parse to their addresses, ports and payload;
 * every kind of malformed or unwanted packet is refused with its reason;
 * and the answers built here parse back and carry checksums that verify
 * (the ones' complement sum over header and pseudo-header is all ones). */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "tap.h"
#include "udppkt.h"

static uint8_t buf[SBX_UDPPKT_HDR6 + 70000];

/* Builds a packet with sbx_udppkt_header into buf; returns its length. */
static size_t
make(int family, const char *src, const char *dst, uint16_t sport, uint16_t dport, const char *data,
    size_t len)
{
	struct sbx_udppkt p = { .family = family, .sport = sport, .dport = dport, .len = len };
	size_t hl = family == AF_INET ? SBX_UDPPKT_HDR4 : SBX_UDPPKT_HDR6;

	inet_pton(family, src, p.src);
	inet_pton(family, dst, p.dst);
	memcpy(buf + hl, data, len);
	p.payload = buf + hl;
	if (sbx_udppkt_header(&p, buf) != hl)
		return 0;
	return hl + len;
}

static bool
checksums_verify(const uint8_t *pkt, size_t n)
{
	uint32_t sum;
	size_t ulen;

	if ((pkt[0] >> 4) == 4) {
		if (sbx_udppkt_sum(0, pkt, 20) != 0xffff)
			return false;
		ulen = n - 20;
		sum = sbx_udppkt_sum(0, pkt + 12, 8) + IPPROTO_UDP + (uint32_t)ulen;
		return sbx_udppkt_sum(sum, pkt + 20, ulen) == 0xffff;
	}
	ulen = n - 40;
	sum = sbx_udppkt_sum(0, pkt + 8, 32) + IPPROTO_UDP + (uint32_t)ulen;
	return sbx_udppkt_sum(sum, pkt + 40, ulen) == 0xffff;
}

int
main(void)
{
	struct sbx_udppkt p;
	uint8_t a[16];
	size_t n;
	static char big[SBX_UDPPKT_MAX6 + 2];

	/* A known answer: RFC 1071's example sums to ddf2. */
	{
		static const uint8_t ex[] = { 0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7 };

		is_int(
		    sbx_udppkt_sum(0, ex, sizeof(ex)), 0xddf2, "the RFC 1071 example sums to ddf2");
	}

	n = make(AF_INET, "169.254.77.1", "198.18.1.2", 40000, 7007, "hello", 5);
	ok(n == 33, "an IPv4 datagram is built (33 bytes)");
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_OK, "... and parses");
	is_int(p.family, AF_INET, "... IPv4");
	inet_pton(AF_INET, "198.18.1.2", a);
	ok(memcmp(p.dst, a, 4) == 0, "... to its destination");
	is_int(p.sport, 40000, "... from its port");
	is_int(p.dport, 7007, "... to its port");
	ok(p.len == 5 && memcmp(p.payload, "hello", 5) == 0, "... with its payload");
	ok(checksums_verify(buf, n), "... IP and UDP checksums verify");
	is_int(sbx_udppkt_parse(buf, n + 10, &p), SBX_UDPPKT_OK,
	    "trailing bytes past the total length are ignored");
	is_int((intmax_t)p.len, 5, "... the payload is what the headers say");

	n = make(AF_INET, "10.0.0.1", "10.0.0.2", 1, 2, "odd", 3);
	ok(checksums_verify(buf, n), "an odd-length payload's checksum verifies");

	n = make(AF_INET6, "fd00:5b::1", "2001:db8::7", 5353, 53, "question", 8);
	ok(n == 56, "an IPv6 datagram is built (56 bytes)");
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_OK, "... and parses");
	is_int(p.family, AF_INET6, "... IPv6");
	inet_pton(AF_INET6, "2001:db8::7", a);
	ok(memcmp(p.dst, a, 16) == 0, "... to its destination");
	ok(p.len == 8 && memcmp(p.payload, "question", 8) == 0, "... with its payload");
	ok(checksums_verify(buf, n), "... the UDP checksum verifies");

	/* Malformed or unwanted. */
	n = make(AF_INET, "10.0.0.1", "10.0.0.2", 1000, 2000, "x", 1);
	for (size_t cut = 0; cut < n; cut++)
		if (sbx_udppkt_parse(buf, cut, &p) == SBX_UDPPKT_OK)
			ok(false, "a packet cut to %zu bytes parsed", cut);
	ok(true, "an IPv4 packet cut anywhere is refused");
	buf[0] = 0x44;
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_SHORT, "an IHL under 5 is refused");
	buf[0] = 0x4f;
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_SHORT, "an IHL past the packet is refused");
	buf[0] = 0x45;
	buf[6] = 0x20; /* more fragments */
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_FRAGMENT, "a first fragment is refused");
	buf[6] = 0x00;
	buf[7] = 0x08; /* an offset */
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_FRAGMENT, "a later fragment is refused");
	buf[7] = 0x00;
	buf[9] = IPPROTO_TCP;
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_NOT_UDP, "TCP is refused");
	buf[9] = IPPROTO_ICMP;
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_NOT_UDP, "ICMP is refused");
	buf[9] = IPPROTO_UDP;
	buf[20 + 4] = 0xff; /* UDP length past the packet */
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_SHORT,
	    "a UDP length past the packet is refused");
	buf[20 + 4] = 0;
	buf[20 + 5] = 7;
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_SHORT, "a UDP length under 8 is refused");
	n = make(AF_INET, "10.0.0.1", "10.0.0.2", 1000, 0, "x", 1);
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_PORT, "destination port 0 is refused");
	n = make(AF_INET, "10.0.0.1", "10.0.0.2", 0, 9, "x", 1);
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_PORT, "source port 0 is refused");
	buf[0] = 0x55;
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_VERSION, "IP version 5 is refused");

	n = make(AF_INET6, "fd00::1", "fd00::2", 1000, 2000, "x", 1);
	for (size_t cut = 0; cut < n; cut++)
		if (sbx_udppkt_parse(buf, cut, &p) == SBX_UDPPKT_OK)
			ok(false, "an IPv6 packet cut to %zu bytes parsed", cut);
	ok(true, "an IPv6 packet cut anywhere is refused");
	buf[6] = 44;
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_FRAGMENT,
	    "an IPv6 fragment header is refused");
	buf[6] = 0; /* hop-by-hop options */
	is_int(
	    sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_NOT_UDP, "IPv6 extension headers are refused");
	buf[6] = IPPROTO_UDP;
	buf[4] = buf[5] = 0;
	is_int(sbx_udppkt_parse(buf, n, &p), SBX_UDPPKT_SHORT,
	    "a jumbogram's payload length 0 is refused");

	/* The largest answers. */
	memset(big, 'z', sizeof(big));
	n = make(AF_INET, "10.0.0.1", "10.0.0.2", 1, 2, big, SBX_UDPPKT_MAX4);
	ok(n == 65535 && checksums_verify(buf, n), "the largest IPv4 answer is built and verifies");
	ok(make(AF_INET, "10.0.0.1", "10.0.0.2", 1, 2, big, SBX_UDPPKT_MAX4 + 1) == 0,
	    "one byte more is refused");
	n = make(AF_INET6, "fd00::1", "fd00::2", 1, 2, big, SBX_UDPPKT_MAX6);
	ok(n == 40 + 65535 && checksums_verify(buf, n),
	    "the largest IPv6 answer is built and verifies");
	ok(make(AF_INET6, "fd00::1", "fd00::2", 1, 2, big, SBX_UDPPKT_MAX6 + 1) == 0,
	    "one byte more is refused");
	{
		struct sbx_udppkt q = { .family = AF_UNIX };

		is_int((long)sbx_udppkt_header(&q, buf), 0, "an unknown family builds nothing");
	}
	return done_testing();
}
