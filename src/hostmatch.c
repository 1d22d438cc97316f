#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "hostmatch.h"
#include "policy.h"

/* ASCII only: the C library's ctype functions follow the locale, and a
 * host name's alphabet must not. */
static bool
is_alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

static char
to_lower(char c)
{
	return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool
is_digits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

static bool
is_xdigits(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

/* Whether label (lowercase) is read as a number by inet_aton() or by the
 * URL standard's IPv4 parser: decimal, or 0x hexadecimal. */
static bool
label_is_numeric(const char *label, size_t n)
{
	if (n >= 2 && label[0] == '0' && label[1] == 'x')
		return is_xdigits(label + 2, n - 2);
	return is_digits(label, n);
}

static bool
normalize_ipv6(const char *host, size_t len, char *out, size_t outsz)
{
	char tmp[INET6_ADDRSTRLEN], canon[INET6_ADDRSTRLEN];
	struct in6_addr a;
	int n;

	if (len < 3 || host[len - 1] != ']' || len - 2 >= sizeof(tmp))
		return false;
	memcpy(tmp, host + 1, len - 2);
	tmp[len - 2] = '\0';
	/* inet_pton() refuses a zone ("fe80::1%eth0") and any stray byte. */
	if (inet_pton(AF_INET6, tmp, &a) != 1)
		return false;
	if (inet_ntop(AF_INET6, &a, canon, sizeof(canon)) == NULL)
		return false;
	n = snprintf(out, outsz, "[%s]", canon);
	if (n < 0 || (size_t)n >= outsz) {
		out[0] = '\0';
		return false;
	}
	return true;
}

static bool
normalize_name(const char *host, size_t len, char *out, size_t outsz)
{
	struct in_addr a;
	char canon[INET_ADDRSTRLEN];
	const char *last;
	size_t label = 0;

	if (len > 1 && host[len - 1] == '.')
		len--;
	if (len == 0 || len > 253 || len >= outsz)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = host[i];

		if (c == '.') {
			if (label == 0)
				return false;
			label = 0;
		} else if (is_alnum(c) || c == '-' || c == '_') {
			if (++label > 63)
				return false;
		} else {
			return false;
		}
		out[i] = to_lower(c);
	}
	if (label == 0)
		return false;
	out[len] = '\0';

	/* A numeric last label makes the whole name an IPv4 address to
	 * inet_aton() and getaddrinfo(): "127.1", "0x7f000001". Only the
	 * canonical dotted quad is accepted, and it stays an address. */
	last = strrchr(out, '.');
	last = last ? last + 1 : out;
	if (!label_is_numeric(last, strlen(last)))
		return true;
	if (inet_pton(AF_INET, out, &a) == 1 &&
	    inet_ntop(AF_INET, &a, canon, sizeof(canon)) != NULL && strcmp(canon, out) == 0)
		return true;
	out[0] = '\0';
	return false;
}

bool
sbx_host_normalize(const char *host, size_t len, char *out, size_t outsz)
{
	bool ok;

	if (out == NULL || outsz == 0)
		return false;
	out[0] = '\0';
	/* An embedded NUL would cut the name short for every C string
	 * function downstream (and for the resolver). */
	if (host == NULL || len == 0 || memchr(host, '\0', len) != NULL)
		return false;
	if (host[0] == '[')
		ok = normalize_ipv6(host, len, out, outsz);
	else
		ok = normalize_name(host, len, out, outsz);
	if (!ok)
		out[0] = '\0';
	return ok;
}

static bool
host_is_ip(const char *h)
{
	struct in_addr a;

	return h[0] == '[' || inet_pton(AF_INET, h, &a) == 1;
}

static bool
pattern_matches(const char *pattern, const char *h, bool h_is_ip)
{
	char p[SBX_HOST_MAX + 2];
	size_t hl, pl;

	if (pattern[0] == '*' && pattern[1] == '.') {
		if (h_is_ip)
			return false;
		if (!sbx_host_normalize(pattern + 2, strlen(pattern + 2), p, sizeof(p)) ||
		    host_is_ip(p))
			return false;
		hl = strlen(h);
		pl = strlen(p);
		/* At least one whole label in front of ".suffix". */
		return hl > pl + 1 && h[hl - pl - 1] == '.' && memcmp(h + hl - pl, p, pl) == 0;
	}
	if (strchr(pattern, ':') != NULL && pattern[0] != '[') {
		/* A bare IPv6 address as a pattern. */
		char b[SBX_HOST_MAX + 2];
		int n = snprintf(b, sizeof(b), "[%s]", pattern);

		if (n < 0 || (size_t)n >= sizeof(b))
			return false;
		if (!sbx_host_normalize(b, (size_t)n, p, sizeof(p)))
			return false;
	} else if (!sbx_host_normalize(pattern, strlen(pattern), p, sizeof(p))) {
		return false;
	}
	/* Both sides are canonical, so equal text is equal names and, for
	 * literals, equal addresses. */
	return strcmp(p, h) == 0;
}

bool
sbx_host_allowed(const struct sbx_strv *patterns, const char *host)
{
	char h[SBX_HOST_MAX];
	bool is_ip;

	if (patterns == NULL || host == NULL)
		return false;
	if (!sbx_host_normalize(host, strlen(host), h, sizeof(h)))
		return false;
	is_ip = host_is_ip(h);
	for (size_t i = 0; i < patterns->n; i++)
		if (patterns->v[i] != NULL && pattern_matches(patterns->v[i], h, is_ip))
			return true;
	return false;
}

/* Splits an entry into its pattern (into pat, patsz bytes) and its port
 * (0: none). Only "name:PORT" and "[v6]:PORT" carry a port; a bare IPv6
 * address, with its many colons, does not. Returns false for an entry
 * that cannot be split (a bad port, or a pattern too long). */
static bool
split_entry(const char *entry, char *pat, size_t patsz, uint16_t *port)
{
	const char *colon = strrchr(entry, ':');
	size_t n = strlen(entry);
	unsigned long v = 0;

	*port = 0;
	if (colon != NULL && entry[0] != '[' && strchr(entry, ':') != colon)
		colon = NULL; /* a bare IPv6 address */
	if (colon != NULL && entry[0] == '[' && (colon == entry || colon[-1] != ']'))
		colon = NULL; /* "[v6]" without a port */
	if (colon != NULL) {
		const char *d = colon + 1;

		if (*d == '\0' || strlen(d) > 5)
			return false;
		for (; *d; d++) {
			if (*d < '0' || *d > '9')
				return false;
			v = v * 10 + (unsigned long)(*d - '0');
		}
		if (v == 0 || v > 65535)
			return false;
		*port = (uint16_t)v;
		n = (size_t)(colon - entry);
	}
	if (n >= patsz)
		return false;
	memcpy(pat, entry, n);
	pat[n] = '\0';
	return true;
}

enum sbx_host_verdict
sbx_host_decide(
    const struct sbx_strv *allow, const struct sbx_strv *deny, const char *host, uint16_t port)
{
	char h[SBX_HOST_MAX], pat[SBX_HOST_MAX + 2];
	bool is_ip, listed = false, on_port = false;
	uint16_t p;

	if (host == NULL || !sbx_host_normalize(host, strlen(host), h, sizeof(h)))
		return SBX_HOST_NOT_LISTED;
	is_ip = host_is_ip(h);
	for (size_t i = 0; deny != NULL && i < deny->n; i++) {
		if (deny->v[i] == NULL || !split_entry(deny->v[i], pat, sizeof(pat), &p))
			continue;
		if ((p == 0 || p == port) && pattern_matches(pat, h, is_ip))
			return SBX_HOST_DENIED;
	}
	for (size_t i = 0; allow != NULL && i < allow->n; i++) {
		if (allow->v[i] == NULL || !split_entry(allow->v[i], pat, sizeof(pat), &p))
			continue;
		if (!pattern_matches(pat, h, is_ip))
			continue;
		listed = true;
		if ((p != 0 && p == port) || (p == 0 && (port == 80 || port == 443)))
			on_port = true;
	}
	if (!listed)
		return SBX_HOST_NOT_LISTED;
	return on_port ? SBX_HOST_ALLOWED : SBX_HOST_PORT;
}

const char *
sbx_host_verdict_reason(enum sbx_host_verdict v)
{
	switch (v) {
	case SBX_HOST_ALLOWED: return NULL;
	case SBX_HOST_NOT_LISTED: return "host not allowed";
	case SBX_HOST_PORT: return "port not allowed for this host";
	case SBX_HOST_DENIED: return "host denied";
	}
	return "host not allowed";
}

void
sbx_host_allow_ports(const struct sbx_strv *allow, struct sbx_ports *ports)
{
	char pat[SBX_HOST_MAX + 2];
	uint16_t p;

	for (size_t i = 0; allow != NULL && i < allow->n; i++) {
		if (allow->v[i] == NULL || !split_entry(allow->v[i], pat, sizeof(pat), &p))
			continue;
		if (p != 0) {
			sbx_ports_add(ports, p);
		} else {
			sbx_ports_add(ports, 80);
			sbx_ports_add(ports, 443);
		}
	}
}

static bool
v4_is_local(const uint8_t b[4])
{
	uint32_t a = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3];

	if (b[0] == 0 || b[0] == 127) /* this network, loopback */
		return true;
	if (b[0] == 169 && b[1] == 254) /* link-local, metadata */
		return true;
	if (b[0] >= 224) /* multicast, reserved, broadcast */
		return true;
	if (a == 0x646464c8) /* 100.100.100.200 */
		return true;
	return false;
}

static bool
all_zero(const uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (b[i] != 0)
			return false;
	return true;
}

static bool
v6_is_local(const uint8_t b[16])
{
	static const uint8_t aws_metadata[16] = {
		0xfd,
		0x00,
		0x0e,
		0xc2,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0,
		0x02,
		0x54,
	};

	if (all_zero(b, 12)) /* ::/96 */
		return true;
	if (all_zero(b, 10) && b[10] == 0xff && b[11] == 0xff) /* ::ffff:a.b.c.d */
		return v4_is_local(b + 12);
	if (all_zero(b, 8) && b[8] == 0xff && b[9] == 0xff && b[10] == 0 && b[11] == 0)
		return v4_is_local(b + 12); /* ::ffff:0:a.b.c.d */
	if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && all_zero(b + 4, 8))
		return v4_is_local(b + 12); /* 64:ff9b::/96 */
	if (b[0] == 0x20 && b[1] == 0x02) /* 6to4 */
		return v4_is_local(b + 2);
	if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) /* fe80::/10 */
		return true;
	if (b[0] == 0xff) /* multicast */
		return true;
	return memcmp(b, aws_metadata, 16) == 0;
}

/* The address bytes of sa as (4, a.b.c.d) or (16, IPv6); an IPv4-mapped
 * IPv6 address is returned as IPv4 when unmap is set. Returns 0 when sa
 * is not a complete AF_INET or AF_INET6 address. The sockaddr may come
 * unaligned from another process's memory, so it is copied, never cast. */
static size_t
addr_bytes(const struct sockaddr *sa, socklen_t len, uint8_t out[16], bool unmap)
{
	sa_family_t family;

	if (sa == NULL || len < (socklen_t)sizeof(sa_family_t))
		return 0;
	memcpy(&family, (const char *)sa + offsetof(struct sockaddr, sa_family), sizeof(family));
	if (family == AF_INET) {
		struct sockaddr_in sin;

		if (len < (socklen_t)sizeof(sin))
			return 0;
		memcpy(&sin, sa, sizeof(sin));
		memcpy(out, &sin.sin_addr, 4);
		return 4;
	}
	if (family == AF_INET6) {
		struct sockaddr_in6 sin6;
		/* The kernel takes the 24-byte RFC 2133 form without the scope
		 * id, so that is all that can be required here. */
		size_t need = offsetof(struct sockaddr_in6, sin6_addr) + 16;

		if ((size_t)len < need)
			return 0;
		memset(&sin6, 0, sizeof(sin6));
		memcpy(&sin6, sa, need);
		memcpy(out, &sin6.sin6_addr, 16);
		if (unmap && all_zero(out, 10) && out[10] == 0xff && out[11] == 0xff) {
			memmove(out, out + 12, 4);
			return 4;
		}
		return 16;
	}
	return 0;
}

bool
sbx_addr_is_local(const struct sockaddr *sa, socklen_t len)
{
	uint8_t b[16];
	size_t n = addr_bytes(sa, len, b, false);

	if (n == 4)
		return v4_is_local(b);
	if (n == 16)
		return v6_is_local(b);
	return true;
}

void
sbx_addrlist_add(struct sbx_addrlist *l, const struct sockaddr *sa, socklen_t len)
{
	uint8_t b[16];
	size_t n = addr_bytes(sa, len, b, false);

	if (n == 0)
		return;
	l->v = sbx_xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	memset(&l->v[l->n], 0, sizeof(l->v[l->n]));
	memcpy(
	    &l->v[l->n], sa, (size_t)len < sizeof(l->v[l->n]) ? (size_t)len : sizeof(l->v[l->n]));
	l->n++;
}

void
sbx_addrlist_free(struct sbx_addrlist *l)
{
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

bool
sbx_addr_equal(const struct sockaddr *a, socklen_t alen, const struct sockaddr *b, socklen_t blen)
{
	uint8_t x[16], y[16];
	size_t nx = addr_bytes(a, alen, x, true);
	size_t ny = addr_bytes(b, blen, y, true);

	return nx != 0 && nx == ny && memcmp(x, y, nx) == 0;
}

bool
sbx_addr_in_list(const struct sockaddr *sa, socklen_t len, const struct sbx_addrlist *l)
{
	if (l == NULL)
		return false;
	for (size_t i = 0; i < l->n; i++)
		if (sbx_addr_equal(sa, len, (const struct sockaddr *)&l->v[i], sizeof(l->v[i])))
			return true;
	return false;
}

bool
sbx_addr_refused(const struct sockaddr *sa, socklen_t len, const struct sbx_addrlist *own)
{
	return sbx_addr_is_local(sa, len) || sbx_addr_in_list(sa, len, own);
}

const char *
sbx_addr_format(const struct sockaddr *sa, socklen_t len, char *buf, size_t size)
{
	uint8_t b[16];
	size_t n = addr_bytes(sa, len, b, false);

	if (size == 0)
		return buf;
	if (n == 0 || inet_ntop(n == 4 ? AF_INET : AF_INET6, b, buf, (socklen_t)size) == NULL)
		snprintf(buf, size, "?");
	return buf;
}
