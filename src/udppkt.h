/* The IP packets of the UDP relay (doc/design/udp-relay.md): what the
 * jail's kernel writes to its tun device is parsed here, and the answers
 * written back are built here. Pure: no syscalls. Every packet comes from
 * the sandbox's side and is hostile: each length is checked against the
 * bytes read before it is used, and anything that is not one whole,
 * unfragmented UDP datagram over IPv4 or IPv6 is refused. */
#ifndef SBX_UDPPKT_H
#define SBX_UDPPKT_H

#include <stddef.h>
#include <stdint.h>

/* Header bytes before the payload: IPv4 (no options) + UDP, IPv6 + UDP. */
#define SBX_UDPPKT_HDR4 28
#define SBX_UDPPKT_HDR6 48
/* The largest packet the tun device's MTU lets through, and the largest
 * payload an answer may carry in each family (the total length, or the
 * IPv6 payload length, is 16 bits). */
#define SBX_UDPPKT_MTU 65535
#define SBX_UDPPKT_MAX4 (65535 - SBX_UDPPKT_HDR4)
#define SBX_UDPPKT_MAX6 (65535 - 8)

/* One datagram: addresses in network byte order (IPv4 in the first four
 * bytes of src and dst), ports in host byte order. payload points into
 * the parsed buffer. */
struct sbx_udppkt {
	int family; /* AF_INET or AF_INET6 */
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
	const uint8_t *payload;
	size_t len;
};

/* Why a packet was refused (for counters and tests). */
enum sbx_udppkt_why {
	SBX_UDPPKT_OK = 0,
	SBX_UDPPKT_SHORT, /* shorter than its headers, or than it says */
	SBX_UDPPKT_VERSION, /* neither IPv4 nor IPv6 */
	SBX_UDPPKT_NOT_UDP, /* another protocol, or IPv6 extension headers */
	SBX_UDPPKT_FRAGMENT, /* a fragment (never reassembled) */
	SBX_UDPPKT_PORT, /* port 0 on either side */
};

/* Parses the n bytes of pkt (one packet as a tun device without packet
 * information gives it) into *out. Returns SBX_UDPPKT_OK, or why it is
 * not a datagram the relay forwards (then *out is unspecified). */
enum sbx_udppkt_why sbx_udppkt_parse(const void *pkt, size_t n, struct sbx_udppkt *out);

/* Writes the IP and UDP headers of p (family, addresses, ports, and the
 * p->len bytes at p->payload, which the checksums cover) into hdr, which
 * has room for SBX_UDPPKT_HDR6 bytes. The caller puts hdr right before the
 * payload to make the packet. Returns the header's length, or 0 when p's
 * family is unknown or its payload too long for one packet. */
size_t sbx_udppkt_header(const struct sbx_udppkt *p, uint8_t *hdr);

/* The 16-bit ones' complement sum of n bytes (RFC 1071), folded, not
 * complemented, continuing from sum. */
uint32_t sbx_udppkt_sum(uint32_t sum, const uint8_t *p, size_t n);

#endif
