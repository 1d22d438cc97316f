/* Host names and addresses for the network rules: which names the proxy
 * allowlist lets through, and which addresses nothing in sbxrun may ever
 * connect to on the sandbox's behalf. Pure: no resolver, no sockets; the
 * system layer (the proxy, the seccomp network supervisor) resolves names
 * and lists the machine's own addresses, then asks these functions. */
#ifndef SBX_HOSTMATCH_H
#define SBX_HOSTMATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "util.h"

/* Longest normalized host: a 253-byte DNS name, or a bracketed IPv6
 * literal ("[" + 45 + "]"), plus the NUL. */
#define SBX_HOST_MAX 254

/* Longest text sbx_addr_format() writes, NUL included. */
#define SBX_ADDR_STRLEN 48

/* Normalizes the host part of a request's authority (len bytes at host,
 * not NUL-terminated) into out (outsz bytes, at least SBX_HOST_MAX):
 *
 *   - a DNS name: ASCII letters, digits, '-' and '_' in dot-separated
 *     labels of 1 to 63 bytes, at most 253 bytes; lowercased, one trailing
 *     dot dropped ("Example.ORG." -> "example.org");
 *   - an IPv4 literal: exactly four decimal parts, no leading zeros
 *     ("192.0.2.1"). A name whose last label is numeric ("127.1",
 *     "2130706433", "0x7f.1") is one of the legacy inet_aton spellings
 *     that resolvers and browsers read as an address: refused, so that a
 *     name can never turn into an address behind the matcher's back;
 *   - an IPv6 literal in brackets ("[2001:DB8::1]" -> "[2001:db8::1]",
 *     the inet_ntop form); a zone ("%eth0") is refused.
 *
 * Anything else (empty, NUL, '%', spaces, '/', '@', ':', '*', non-ASCII,
 * empty labels) is refused. Returns true when out holds the normalized
 * host; on false, out holds an empty string. */
bool sbx_host_normalize(const char *host, size_t len, char *out, size_t outsz);

/* Whether host may pass the proxy allowlist patterns (as parsed by
 * sbx_parse_host_pattern(): lowercase names or "*.suffix"). host is
 * normalized here first, so raw text from a request is fine; a host that
 * sbx_host_normalize() refuses never matches.
 *
 *   - "name" matches exactly that name, case and one trailing dot aside.
 *   - "*.suffix" matches every name strictly under suffix, at any depth:
 *     "*.example.org" matches "a.example.org" and "a.b.example.org" but
 *     not "example.org" itself (list both to allow both), not
 *     "badexample.org" and not "example.org.evil.com".
 *   - IP literals match only a pattern naming the same address exactly
 *     ("192.0.2.1", "[2001:db8::1]" or "2001:db8::1"); a wildcard never
 *     matches an address. */
bool sbx_host_allowed(const struct sbx_strv *patterns, const char *host);

/* What the proxy's host rules say about one host and port. */
enum sbx_host_verdict {
	SBX_HOST_ALLOWED,
	SBX_HOST_NOT_LISTED, /* no allow entry names the host */
	SBX_HOST_PORT, /* allow entries name the host, none on this port */
	SBX_HOST_DENIED, /* a deny entry names the host on this port */
};

/* The proxy's decision for host (raw text from a request, normalized
 * here; a host sbx_host_normalize() refuses is never allowed) on port,
 * under allow and deny entries as sbx_parse_host_pattern() makes them:
 * "PATTERN" or "PATTERN:PORT", PATTERN as for sbx_host_allowed().
 *
 *   - An allow entry without a port allows ports 80 and 443 only; with
 *     one, only that port. Entries add up: "h" and "h:22" allow 22, 80
 *     and 443 of h.
 *   - A deny entry without a port refuses every port of the hosts it
 *     names; with one, only that port. Deny wins over any allow entry,
 *     whatever their order or how specific they are.
 *
 * Case and one trailing dot never matter; international names match in
 * their ASCII (xn--) form only, as clients send them. */
enum sbx_host_verdict sbx_host_decide(
    const struct sbx_strv *allow, const struct sbx_strv *deny, const char *host, uint16_t port);

/* The short reason the proxy gives for a verdict ("host not allowed",
 * ...), or NULL for SBX_HOST_ALLOWED. */
const char *sbx_host_verdict_reason(enum sbx_host_verdict v);

/* Adds to ports every port an allow entry can let through: 80 and 443
 * for an entry without a port, the port of one with. */
struct sbx_ports;
void sbx_host_allow_ports(const struct sbx_strv *allow, struct sbx_ports *ports);

/* Whether sa (len bytes) is an address sbxrun must never connect to for
 * the sandbox, whatever the policy: a classification of the address
 * alone, the machine's own interface addresses aside (see
 * sbx_addr_refused()). The port is ignored. True for:
 *
 *   IPv4  0.0.0.0/8 (Linux connects 0.0.0.0 to loopback), 127.0.0.0/8,
 *         169.254.0.0/16 (link-local, and the cloud metadata service at
 *         169.254.169.254, the classic SSRF target), 224.0.0.0/4
 *         (multicast), 240.0.0.0/4 (reserved, and 255.255.255.255), and
 *         100.100.100.200 (Alibaba Cloud's metadata service);
 *   IPv6  ::/96 (the unspecified address, ::1, and the deprecated
 *         IPv4-compatible ::a.b.c.d, which older stacks route as IPv4),
 *         fe80::/10 (link-local), ff00::/8 (multicast), fd00:ec2::254
 *         (the AWS metadata service over IPv6), and every IPv6 spelling of
 *         an IPv4 address above: IPv4-mapped ::ffff:a.b.c.d, IPv4-
 *         translated ::ffff:0:a.b.c.d, NAT64 64:ff9b::a.b.c.d and 6to4
 *         2002:aabb:ccdd::;
 *   any other family, or a length too short for the family: an address
 *         that cannot be classified is refused (fail closed).
 *
 * Private ranges (10/8, 172.16/12, 192.168/16, fc00::/7, 100.64/10) are
 * not local: they are other machines, reachable when the policy allows. */
bool sbx_addr_is_local(const struct sockaddr *sa, socklen_t len);

/* A list of addresses, e.g. the machine's own interface addresses. */
struct sbx_addrlist {
	struct sockaddr_storage *v;
	size_t n;
};

/* Adds a copy of sa (AF_INET or AF_INET6; others are ignored). */
void sbx_addrlist_add(struct sbx_addrlist *l, const struct sockaddr *sa, socklen_t len);
void sbx_addrlist_free(struct sbx_addrlist *l);

/* Whether a and b name the same IP address, ports and IPv6 scope ignored;
 * an IPv4-mapped IPv6 address equals its IPv4 address. */
bool sbx_addr_equal(
    const struct sockaddr *a, socklen_t alen, const struct sockaddr *b, socklen_t blen);

/* Whether sa is one of the addresses in l (per sbx_addr_equal()). */
bool sbx_addr_in_list(const struct sockaddr *sa, socklen_t len, const struct sbx_addrlist *l);

/* The one question to ask before connecting: sbx_addr_is_local(), or one
 * of the machine's own addresses in own (which may be NULL). A host
 * service bound to 0.0.0.0 answers on every own address, so those are as
 * local as 127.0.0.1. */
bool sbx_addr_refused(const struct sockaddr *sa, socklen_t len, const struct sbx_addrlist *own);

/* Writes the address of sa without its port ("192.0.2.1", "2001:db8::1")
 * into buf (SBX_ADDR_STRLEN bytes) and returns buf; "?" for anything but
 * AF_INET and AF_INET6. */
const char *sbx_addr_format(const struct sockaddr *sa, socklen_t len, char *buf, size_t size);

#endif
