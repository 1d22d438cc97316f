/* A libFuzzer target for the JSON writer (src/json.c). The input is a
 * program for the writer: each byte picks a call (open or close an
 * object or array, a string of the next bytes, a number, ...), keys are
 * added where an object needs them, and every open container is closed
 * at the end. The document must then be valid JSON and valid UTF-8 for
 * any bytes in the strings, and each string must read back as a
 * reference decoding of its bytes: valid UTF-8 sequences as they are,
 * each byte of an invalid one as U+FFFD. A small strict parser below
 * checks all three. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "json.h"

FUZZ_TARGET(json);

/* The expected decoded strings, in document order. */
struct expect {
	struct sbx_buf *v;
	size_t n, next;
};

static void __attribute__((noreturn)) fail(const char *why, const char *doc, size_t at)
{
	fprintf(stderr, "json: %s at offset %zu of:\n%s\n", why, at, doc);
	abort();
}

/* The length of the valid UTF-8 sequence at s (n bytes left), or 0:
 * written from RFC 3629's table, apart from src/json.c's. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, lo = s[0] == 0xe0 ? 0xa0 : 0x80, hi = s[0] == 0xed ? 0x9f : 0xbf;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, lo = s[0] == 0xf0 ? 0x90 : 0x80, hi = s[0] == 0xf4 ? 0x8f : 0xbf;
	else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

static void
expect_add(struct expect *e, const char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	struct sbx_buf b = { 0 };

	for (size_t i = 0; i < n;) {
		size_t len = utf8_len(u + i, n - i);

		if (len == 0) {
			sbx_buf_add(&b, "\xef\xbf\xbd", 3);
			i++;
		} else {
			sbx_buf_add(&b, u + i, len);
			i += len;
		}
	}
	e->v = realloc(e->v, (e->n + 1) * sizeof(*e->v));
	e->v[e->n++] = b;
}

struct parser {
	const char *doc, *s;
	struct expect *e;
	int depth;
};

static void
ws(struct parser *p)
{
	while (*p->s == ' ' || *p->s == '\t' || *p->s == '\n' || *p->s == '\r')
		p->s++;
}

static int
hex(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static void
string(struct parser *p)
{
	struct sbx_buf got = { 0 };
	const struct sbx_buf *want;

	if (*p->s != '"')
		fail("a string expected", p->doc, (size_t)(p->s - p->doc));
	p->s++;
	while (*p->s != '"') {
		unsigned char c = (unsigned char)*p->s;
		size_t len;

		if (c == '\0' || c < 0x20)
			fail("a control character in a string", p->doc, (size_t)(p->s - p->doc));
		if (c == '\\') {
			const char *esc = "\"\\/bfnrt", *val = "\"\\/\b\f\n\r\t", *k;
			unsigned cp = 0;

			p->s++;
			if (*p->s == 'u') {
				for (int i = 1; i <= 4; i++) {
					int h = hex(p->s[i]);

					if (h < 0)
						fail("a bad \\u escape", p->doc,
						    (size_t)(p->s - p->doc));
					cp = cp * 16 + (unsigned)h;
				}
				if (cp >= 0xd800 && cp <= 0xdfff)
					fail("a lone surrogate", p->doc, (size_t)(p->s - p->doc));
				p->s += 5;
				if (cp < 0x80) {
					sbx_buf_putc(&got, (char)cp);
				} else if (cp < 0x800) {
					sbx_buf_putc(&got, (char)(0xc0 | (cp >> 6)));
					sbx_buf_putc(&got, (char)(0x80 | (cp & 0x3f)));
				} else {
					sbx_buf_putc(&got, (char)(0xe0 | (cp >> 12)));
					sbx_buf_putc(&got, (char)(0x80 | ((cp >> 6) & 0x3f)));
					sbx_buf_putc(&got, (char)(0x80 | (cp & 0x3f)));
				}
				continue;
			}
			if (*p->s == '\0' || (k = strchr(esc, *p->s)) == NULL)
				fail("a bad escape", p->doc, (size_t)(p->s - p->doc));
			sbx_buf_putc(&got, val[k - esc]);
			p->s++;
			continue;
		}
		len = utf8_len((const unsigned char *)p->s, strlen(p->s));
		if (len == 0)
			fail("invalid UTF-8", p->doc, (size_t)(p->s - p->doc));
		sbx_buf_add(&got, p->s, len);
		p->s += len;
	}
	p->s++;
	if (p->e->next >= p->e->n)
		fail("more strings than written", p->doc, (size_t)(p->s - p->doc));
	want = &p->e->v[p->e->next++];
	if (got.len != want->len || (got.len && memcmp(got.data, want->data, got.len) != 0))
		fail("a string that does not read back", p->doc, (size_t)(p->s - p->doc));
	sbx_buf_free(&got);
}

static void value(struct parser *p);

static void
container(struct parser *p, char close, bool object)
{
	p->s++;
	if (++p->depth > SBX_JSON_MAX_DEPTH)
		fail("too deep", p->doc, (size_t)(p->s - p->doc));
	ws(p);
	if (*p->s == close) {
		p->s++;
		p->depth--;
		return;
	}
	for (;;) {
		ws(p);
		if (object) {
			string(p);
			ws(p);
			if (*p->s++ != ':')
				fail("':' expected", p->doc, (size_t)(p->s - p->doc));
		}
		value(p);
		ws(p);
		if (*p->s == ',') {
			p->s++;
			continue;
		}
		if (*p->s != close)
			fail("',' or a close expected", p->doc, (size_t)(p->s - p->doc));
		p->s++;
		p->depth--;
		return;
	}
}

static void
value(struct parser *p)
{
	ws(p);
	if (*p->s == '{') {
		container(p, '}', true);
	} else if (*p->s == '[') {
		container(p, ']', false);
	} else if (*p->s == '"') {
		string(p);
	} else if (strncmp(p->s, "true", 4) == 0 || strncmp(p->s, "null", 4) == 0) {
		p->s += 4;
	} else if (strncmp(p->s, "false", 5) == 0) {
		p->s += 5;
	} else if (*p->s == '-' || (*p->s >= '0' && *p->s <= '9')) {
		/* The writer prints integers only. */
		if (*p->s == '-')
			p->s++;
		if (*p->s == '0' && p->s[1] >= '0' && p->s[1] <= '9')
			fail("a leading zero", p->doc, (size_t)(p->s - p->doc));
		if (*p->s < '0' || *p->s > '9')
			fail("a bad number", p->doc, (size_t)(p->s - p->doc));
		while (*p->s >= '0' && *p->s <= '9')
			p->s++;
	} else {
		fail("a value expected", p->doc, (size_t)(p->s - p->doc));
	}
}

/* Takes up to the next length-prefixed run of input bytes. */
static size_t
take(const uint8_t **d, size_t *n, const char **s)
{
	size_t len;

	if (*n == 0) {
		*s = "";
		return 0;
	}
	len = (*d)[0] % 64;
	(*d)++, (*n)--;
	if (len > *n)
		len = *n;
	*s = (const char *)*d;
	*d += len, *n -= len;
	return len;
}

FUZZ_TARGET(json)
{
	struct sbx_json j = { 0 };
	struct expect e = { 0 };
	bool object[SBX_JSON_MAX_DEPTH];
	int depth = 0;
	char *doc;

	sbx_json_obj_begin(&j);
	object[depth++] = true;
	while (size > 0) {
		uint8_t op = data[0];
		const char *s;
		size_t len;
		char *z;

		data++, size--;
		if (op % 8 == 2) {
			if (depth > 1) {
				if (object[--depth])
					sbx_json_obj_end(&j);
				else
					sbx_json_arr_end(&j);
			}
			continue;
		}
		if (object[depth - 1]) {
			len = take(&data, &size, &s);
			z = fuzz_strndup((const uint8_t *)s, len);
			expect_add(&e, z, strlen(z));
			sbx_json_key(&j, z);
			free(z);
		}
		switch (op % 8) {
		case 0:
		case 1:
			if (depth < SBX_JSON_MAX_DEPTH - 2) {
				object[depth++] = op % 8 == 0;
				if (op % 8 == 0)
					sbx_json_obj_begin(&j);
				else
					sbx_json_arr_begin(&j);
			} else {
				sbx_json_null(&j);
			}
			break;
		case 3:
			len = take(&data, &size, &s);
			expect_add(&e, s, len);
			sbx_json_strn(&j, s, len);
			break;
		case 4:
			len = take(&data, &size, &s);
			z = fuzz_strndup((const uint8_t *)s, len);
			expect_add(&e, z, strlen(z));
			sbx_json_str(&j, z);
			free(z);
			break;
		case 5: {
			int64_t v = 0;

			len = size < 8 ? size : 8;
			memcpy(&v, data, len);
			data += len, size -= len;
			if (op & 0x80)
				sbx_json_uint(&j, (uint64_t)v);
			else
				sbx_json_int(&j, v);
			break;
		}
		case 6:
			if (op & 0x80)
				sbx_json_null(&j);
			else
				sbx_json_bool(&j, op & 0x40);
			break;
		default: {
			struct sbx_strv sv = { 0 };

			for (int k = 0; k < (op >> 3) % 4; k++) {
				len = take(&data, &size, &s);
				z = fuzz_strndup((const uint8_t *)s, len);
				expect_add(&e, z, strlen(z));
				sbx_strv_push(&sv, z);
				free(z);
			}
			sbx_json_strv(&j, &sv);
			sbx_strv_free(&sv);
			break;
		}
		}
	}
	while (depth > 0) {
		if (object[--depth])
			sbx_json_obj_end(&j);
		else
			sbx_json_arr_end(&j);
	}
	doc = sbx_json_steal(&j);
	{
		struct parser p = { doc, doc, &e, 0 };

		value(&p);
		ws(&p);
		if (*p.s != '\0')
			fail("text after the document", doc, (size_t)(p.s - doc));
		if (e.next != e.n)
			fail("fewer strings than written", doc, (size_t)(p.s - doc));
	}
	for (size_t i = 0; i < e.n; i++)
		sbx_buf_free(&e.v[i]);
	free(e.v);
	free(doc);
	free(sbx_json_steal(&j));
	return 0;
}
