/* A libFuzzer target for the host matcher (src/hostmatch.c). Byte 0
 * picks what is fuzzed:
 *
 *   0  a host from a request: its normalized form must be short enough,
 *      be normalized again to itself, and pass a pattern made of it;
 *   1  patterns (lines before the last) and a host (the last line): a
 *      host that passes must normalize, and match one pattern exactly or
 *      lie strictly under a "*." one;
 *   2  raw socket addresses: the classification must not read past the
 *      given length, and an IPv4-mapped IPv6 address must be classified
 *      as its IPv4 address is. */
#include "config.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "hostmatch.h"

FUZZ_TARGET(hostmatch);

static void
one_host(const uint8_t *data, size_t size)
{
	char out[SBX_HOST_MAX], again[SBX_HOST_MAX], *pat = NULL, *raw;
	struct sbx_err err = { 0 };
	size_t n;

	if (!sbx_host_normalize((const char *)data, size, out, sizeof(out))) {
		if (out[0] != '\0')
			abort();
		return;
	}
	n = strnlen(out, sizeof(out));
	if (n == 0 || n >= sizeof(out))
		abort();
	if (!sbx_host_normalize(out, n, again, sizeof(again)) || strcmp(out, again) != 0) {
		fprintf(stderr, "normalizing '%s' again gives '%s'\n", out, again);
		abort();
	}
	raw = fuzz_strndup(data, size);
	if (strlen(raw) == size && sbx_parse_host_pattern(out, &pat, &err) == 0) {
		struct sbx_strv pats = { 0 };

		sbx_strv_push(&pats, pat);
		if (!sbx_host_allowed(&pats, raw)) {
			fprintf(stderr, "'%s' (normalized '%s') does not match itself\n", raw, out);
			abort();
		}
		sbx_strv_free(&pats);
		free(pat);
	}
	free(raw);
}

static void
patterns(const uint8_t *data, size_t size)
{
	char *text = fuzz_strndup(data, size), *line, *save = NULL, *host = NULL;
	char norm[SBX_HOST_MAX];
	struct sbx_strv pats = { 0 };
	struct sbx_err err = { 0 };
	struct in_addr in4;
	bool hit = false, is_addr;

	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *pat;

		if (host != NULL && sbx_parse_host_pattern(host, &pat, &err) == 0) {
			sbx_strv_push(&pats, pat);
			free(pat);
		}
		host = line;
	}
	if (host == NULL || !sbx_host_allowed(&pats, host))
		goto out;
	if (!sbx_host_normalize(host, strlen(host), norm, sizeof(norm)))
		abort();
	/* A wildcard never matches an address. */
	is_addr = norm[0] == '[' || inet_pton(AF_INET, norm, &in4) == 1;
	for (size_t i = 0; i < pats.n && !hit; i++) {
		const char *p = pats.v[i];
		size_t pl = strlen(p), hl = strlen(norm);

		if (strcmp(p, norm) == 0)
			hit = true;
		else if (!is_addr && strncmp(p, "*.", 2) == 0 && hl > pl - 1 &&
		    strcmp(norm + hl - (pl - 1), p + 1) == 0)
			hit = true;
	}
	if (!hit) {
		fprintf(stderr, "'%s' passed with no pattern naming it\n", host);
		abort();
	}
out:
	sbx_strv_free(&pats);
	free(text);
}

static void
addresses(const uint8_t *data, size_t size)
{
	struct sockaddr_storage a, b;
	socklen_t alen, blen;
	struct sbx_addrlist own = { 0 };
	char buf[SBX_ADDR_STRLEN];

	if (size < 2)
		return;
	/* The length is exact: ASan sees any read past it. */
	alen = (socklen_t)(data[0] % (sizeof(a) + 1));
	blen = (socklen_t)(data[1] % (sizeof(b) + 1));
	data += 2, size -= 2;
	if (size < (size_t)alen + blen)
		return;
	{
		uint8_t *ca = calloc(1, alen ? alen : 1), *cb = calloc(1, blen ? blen : 1);

		memcpy(ca, data, alen);
		memcpy(cb, data + alen, blen);
		sbx_addr_is_local((struct sockaddr *)ca, alen);
		sbx_addr_equal((struct sockaddr *)ca, alen, (struct sockaddr *)cb, blen);
		sbx_addrlist_add(&own, (struct sockaddr *)cb, blen);
		sbx_addr_refused((struct sockaddr *)ca, alen, &own);
		if (alen >= sizeof(sa_family_t))
			sbx_addr_format((struct sockaddr *)ca, alen, buf, sizeof(buf));
		free(ca);
		free(cb);
	}
	sbx_addrlist_free(&own);

	/* An IPv4 address and its IPv4-mapped IPv6 form. */
	if (size >= 4) {
		struct sockaddr_in *s4 = (struct sockaddr_in *)&a;
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&b;

		memset(&a, 0, sizeof(a));
		memset(&b, 0, sizeof(b));
		s4->sin_family = AF_INET;
		memcpy(&s4->sin_addr, data, 4);
		s6->sin6_family = AF_INET6;
		s6->sin6_addr.s6_addr[10] = 0xff;
		s6->sin6_addr.s6_addr[11] = 0xff;
		memcpy(&s6->sin6_addr.s6_addr[12], data, 4);
		if (sbx_addr_is_local((struct sockaddr *)s4, sizeof(*s4)) !=
		    sbx_addr_is_local((struct sockaddr *)s6, sizeof(*s6)))
			abort();
		if (!sbx_addr_equal(
			(struct sockaddr *)s4, sizeof(*s4), (struct sockaddr *)s6, sizeof(*s6)))
			abort();
	}
}

FUZZ_TARGET(hostmatch)
{
	if (size == 0)
		return 0;
	switch (data[0] % 3) {
	case 0: one_host(data + 1, size - 1); break;
	case 1: patterns(data + 1, size - 1); break;
	default: addresses(data + 1, size - 1); break;
	}
	return 0;
}
