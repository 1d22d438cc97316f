/* A libFuzzer target for the proxy's request parser and response
 * rewriter (src/proxy.c). They are static functions of the proxy, so this
 * file includes proxy.c itself; it is written against the parser as it
 * stands in the in-process proxy (header_end, parse_request,
 * build_request, rewrite_response). Byte 0 picks what is fuzzed:
 *
 *   even  a request header from the sandbox: when it parses, the host
 *         must be in normalized form with a port, and a plain request
 *         rebuilt for the server must parse again to the same method,
 *         host, port and version, with exactly one Host field and none
 *         of the hop-by-hop or Proxy- fields;
 *   odd   a response header from a server (byte 1 says whether the server
 *         has closed): no sanitizer report, and once the header is
 *         handled nothing is left behind in the header buffer. */
#include "../../src/proxy.c"

#include "fuzz.h"

FUZZ_TARGET(proxy);

static void
request(const uint8_t *data, size_t size)
{
	struct request r, r2;
	struct sbx_buf b = { 0 };
	char host[SBX_HOST_MAX];
	size_t end = header_end((const char *)data, size, 0);
	char *copy;

	if (end == 0)
		return;
	/* Exactly the header block, unterminated: ASan sees a read past it. */
	copy = malloc(end);
	memcpy(copy, data, end);
	if (parse_request(copy, end, &r) != NULL)
		goto out;
	if (r.port == 0 || !sbx_host_normalize(r.host, strlen(r.host), host, sizeof(host)) ||
	    strcmp(host, r.host) != 0) {
		fprintf(stderr, "parsed host '%s' port %u is not normalized\n", r.host, r.port);
		abort();
	}
	if (r.connect)
		goto out;
	build_request(&b, &r);
	if (header_end(b.data, b.len, 0) != b.len) {
		fprintf(stderr, "the rebuilt request's header does not end at its end:\n%.*s\n",
		    (int)b.len, b.data);
		abort();
	}
	{
		/* The rebuilt request goes to the server in origin form: read
		 * it back as an absolute one would be, with its Host. */
		const char *why;
		struct sbx_buf abs = { 0 };
		const char *sp = memchr(b.data, ' ', b.len);
		size_t hosts = 0, ll;

		sbx_buf_add(&abs, b.data, (size_t)(sp - b.data) + 1);
		sbx_buf_printf(&abs, "http://%s:%u", r.host, r.port);
		sbx_buf_add(&abs, sp + 1, b.len - (size_t)(sp + 1 - b.data));
		why = parse_request(abs.data, abs.len, &r2);
		if (why != NULL || strcmp(r.method, r2.method) != 0 ||
		    strcmp(r.host, r2.host) != 0 || r.port != r2.port || r.minor != r2.minor) {
			fprintf(stderr, "the rebuilt request reads differently (%s):\n%.*s\n",
			    why ? why : "other fields", (int)abs.len, abs.data);
			abort();
		}
		for (const char *pos = r2.fields, *l;
		     next_field(&pos, r2.fields + r2.fieldslen, &l, &ll);) {
			if (field_is(l, ll, "host"))
				hosts++;
			else if (field_dropped(l, ll, true) &&
			    !(ll == 17 && strncmp(l, "Connection: close", 17) == 0 &&
				l + ll + 4 == r2.fields + r2.fieldslen))
				abort();
		}
		if (hosts != 1)
			abort();
		sbx_buf_free(&abs);
	}
out:
	sbx_buf_free(&b);
	free(copy);
}

static void
response(const uint8_t *data, size_t size)
{
	struct dir d;

	if (size < 1)
		return;
	dir_init(&d, -1, -1);
	d.hdr = true;
	d.eof = data[0] & 1;
	sbx_buf_add(&d.hbuf, data + 1, size - 1);
	while (d.hdr && d.hbuf.len > 0 && rewrite_response(&d))
		;
	/* Once the header is done, everything else passes on unchanged. */
	if (!d.hdr && d.hbuf.len != 0)
		abort();
	dir_free(&d);
}

FUZZ_TARGET(proxy)
{
	if (size == 0)
		return 0;
	if (data[0] % 2 == 0)
		request(data + 1, size - 1);
	else
		response(data + 1, size - 1);
	return 0;
}
