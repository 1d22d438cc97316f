/* A libFuzzer target for the UDP relay's packets (src/udppkt.c): any
 * bytes, as the jail's kernel or a hostile writer could put them on the
 * tun device. A packet that parses must describe bytes inside the input;
 * an answer built from what was parsed (source and destination swapped,
 * as the relay does) must parse back to the same datagram. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "fuzz.h"
#include "udppkt.h"

FUZZ_TARGET(udppkt);

FUZZ_TARGET(udppkt)
{
	static uint8_t out[SBX_UDPPKT_HDR6 + 65536];
	struct sbx_udppkt p, q, r;
	size_t hl;

	/* A copy of exactly size bytes: ASan sees any read past it. */
	uint8_t *copy = malloc(size ? size : 1);

	memcpy(copy, data, size);
	if (sbx_udppkt_parse(copy, size, &p) != SBX_UDPPKT_OK)
		goto out;
	if (p.payload < copy || p.payload + p.len > copy + size ||
	    (p.family != AF_INET && p.family != AF_INET6) || p.sport == 0 || p.dport == 0)
		abort();
	q = p;
	memcpy(q.src, p.dst, sizeof(q.src));
	memcpy(q.dst, p.src, sizeof(q.dst));
	q.sport = p.dport;
	q.dport = p.sport;
	hl = p.family == AF_INET ? SBX_UDPPKT_HDR4 : SBX_UDPPKT_HDR6;
	memcpy(out + hl, p.payload, p.len);
	q.payload = out + hl;
	if (sbx_udppkt_header(&q, out) != hl)
		goto out; /* too long for an answer: the relay drops it */
	if (sbx_udppkt_parse(out, hl + p.len, &r) != SBX_UDPPKT_OK || r.len != p.len ||
	    r.sport != q.sport || r.dport != q.dport || memcmp(r.src, q.src, 16) != 0 ||
	    memcmp(r.dst, q.dst, 16) != 0 || memcmp(r.payload, p.payload, p.len) != 0) {
		fprintf(stderr, "an answer does not parse back to itself\n");
		abort();
	}
out:
	free(copy);
	return 0;
}
