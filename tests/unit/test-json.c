/* The JSON writer and the diagnostics line. Every document is checked by
 * a small strict RFC 8259 parser below (no trailing commas, no raw control
 * characters, valid escapes and surrogate pairs, strict UTF-8, no
 * duplicate member names), so "valid JSON" here means what a strict
 * consumer such as Python's json module would accept. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "json.h"
#include "policy.h"
#include "tap.h"

/* A parsed JSON value. */
enum jtype { J_NULL, J_BOOL, J_INT, J_NUM, J_STR, J_ARR, J_OBJ };

struct jv {
	enum jtype t;
	bool b;
	long long i;
	char *s; /* J_STR: decoded UTF-8 (may hold NUL: see n) */
	size_t n; /* J_STR: byte length; J_ARR/J_OBJ: members */
	struct jv *items;
	char **keys; /* J_OBJ */
};

struct jp {
	const unsigned char *p, *end;
	const char *why;
	int depth;
};

static void
jv_free(struct jv *v)
{
	for (size_t i = 0; (v->t == J_ARR || v->t == J_OBJ) && i < v->n; i++) {
		jv_free(&v->items[i]);
		if (v->keys)
			free(v->keys[i]);
	}
	free(v->items);
	free(v->keys);
	free(v->s);
	memset(v, 0, sizeof(*v));
}

static void
jp_ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static void
jp_note(struct jp *j, const char *why)
{
	if (j->why == NULL)
		j->why = why;
}

/* Notes why the parse failed; false. A macro so that the static analyzer
 * sees the false at any depth of the parser's calls. */
#define jp_fail(j, msg) \
	({ \
		jp_note((j), (msg)); \
		false; \
	})

/* Strict UTF-8: the length of the sequence at s, or 0. Written from the
 * table of well-formed byte sequences in the Unicode standard (ch. 3), not
 * by decoding as json.c does, so that the two do not share a mistake. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	static const struct {
		unsigned char lead_lo, lead_hi, len, second_lo, second_hi;
	} table[] = {
		{ 0x00, 0x7f, 1, 0, 0 },
		{ 0xc2, 0xdf, 2, 0x80, 0xbf },
		{ 0xe0, 0xe0, 3, 0xa0, 0xbf },
		{ 0xe1, 0xec, 3, 0x80, 0xbf },
		{ 0xed, 0xed, 3, 0x80, 0x9f },
		{ 0xee, 0xef, 3, 0x80, 0xbf },
		{ 0xf0, 0xf0, 4, 0x90, 0xbf },
		{ 0xf1, 0xf3, 4, 0x80, 0xbf },
		{ 0xf4, 0xf4, 4, 0x80, 0x8f },
	};

	if (n == 0)
		return 0;
	for (size_t t = 0; t < sizeof(table) / sizeof(table[0]); t++) {
		if (s[0] < table[t].lead_lo || s[0] > table[t].lead_hi)
			continue;
		if (table[t].len > n)
			return 0;
		if (table[t].len == 1)
			return 1;
		if (s[1] < table[t].second_lo || s[1] > table[t].second_hi)
			return 0;
		for (size_t i = 2; i < table[t].len; i++)
			if (s[i] < 0x80 || s[i] > 0xbf)
				return 0;
		return table[t].len;
	}
	return 0;
}

static bool
utf8_valid(const char *s, size_t n)
{
	for (size_t i = 0, l; i < n; i += l)
		if ((l = utf8_len((const unsigned char *)s + i, n - i)) == 0)
			return false;
	return true;
}

static void
put_cp(struct sbx_buf *b, unsigned cp)
{
	char u[4];
	size_t n;

	if (cp < 0x80)
		u[0] = (char)cp, n = 1;
	else if (cp < 0x800)
		u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
	else if (cp < 0x10000)
		u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)),
		u[2] = (char)(0x80 | (cp & 0x3f)), n = 3;
	else
		u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
		u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
	sbx_buf_add(b, u, n);
}

static bool
jp_hex4(struct jp *j, unsigned *out)
{
	unsigned v = 0;

	if (j->end - j->p < 4)
		return jp_fail(j, "short \\u escape");
	for (int i = 0; i < 4; i++) {
		unsigned char c = *j->p++;

		v <<= 4;
		if (c >= '0' && c <= '9')
			v |= c - '0';
		else if (c >= 'a' && c <= 'f')
			v |= (unsigned)(c - 'a') + 10;
		else if (c >= 'A' && c <= 'F')
			v |= (unsigned)(c - 'A') + 10;
		else
			return jp_fail(j, "bad hex digit in \\u escape");
	}
	*out = v;
	return true;
}

static bool
jp_string(struct jp *j, char **out, size_t *outn)
{
	struct sbx_buf b = { 0 };

	j->p++; /* the opening quote */
	for (;;) {
		size_t l;

		if (j->p >= j->end) {
			sbx_buf_free(&b);
			return jp_fail(j, "unterminated string");
		}
		if (*j->p == '"') {
			j->p++;
			break;
		}
		if (*j->p < 0x20) {
			sbx_buf_free(&b);
			return jp_fail(j, "raw control character in a string");
		}
		if (*j->p == '\\') {
			unsigned cp, lo;

			j->p++;
			if (j->p >= j->end) {
				sbx_buf_free(&b);
				return jp_fail(j, "backslash at the end");
			}
			switch (*j->p++) {
			case '"': sbx_buf_putc(&b, '"'); break;
			case '\\': sbx_buf_putc(&b, '\\'); break;
			case '/': sbx_buf_putc(&b, '/'); break;
			case 'b': sbx_buf_putc(&b, '\b'); break;
			case 'f': sbx_buf_putc(&b, '\f'); break;
			case 'n': sbx_buf_putc(&b, '\n'); break;
			case 'r': sbx_buf_putc(&b, '\r'); break;
			case 't': sbx_buf_putc(&b, '\t'); break;
			case 'u':
				if (!jp_hex4(j, &cp)) {
					sbx_buf_free(&b);
					return false;
				}
				if (cp >= 0xdc00 && cp <= 0xdfff) {
					sbx_buf_free(&b);
					return jp_fail(j, "lone low surrogate escape");
				}
				if (cp >= 0xd800 && cp <= 0xdbff) {
					if (j->end - j->p < 6 || j->p[0] != '\\' ||
					    j->p[1] != 'u') {
						sbx_buf_free(&b);
						return jp_fail(j, "lone high surrogate escape");
					}
					j->p += 2;
					if (!jp_hex4(j, &lo) || lo < 0xdc00 || lo > 0xdfff) {
						sbx_buf_free(&b);
						return jp_fail(j, "bad surrogate pair");
					}
					cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
				}
				put_cp(&b, cp);
				break;
			default: sbx_buf_free(&b); return jp_fail(j, "bad escape");
			}
			continue;
		}
		l = utf8_len(j->p, (size_t)(j->end - j->p));
		if (l == 0) {
			sbx_buf_free(&b);
			return jp_fail(j, "invalid UTF-8 in a string");
		}
		sbx_buf_add(&b, j->p, l);
		j->p += l;
	}
	*outn = b.len;
	*out = b.data ? b.data : sbx_xstrdup("");
	return true;
}

static bool jp_value(struct jp *j, struct jv *v);

static bool
jp_number(struct jp *j, struct jv *v)
{
	const unsigned char *s = j->p;
	bool frac = false;

	if (j->p < j->end && *j->p == '-')
		j->p++;
	if (j->p >= j->end || !(*j->p >= '0' && *j->p <= '9'))
		return jp_fail(j, "bad number");
	if (*j->p == '0' && j->p + 1 < j->end && j->p[1] >= '0' && j->p[1] <= '9')
		return jp_fail(j, "number with a leading zero");
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	if (j->p < j->end && *j->p == '.') {
		frac = true;
		j->p++;
		if (j->p >= j->end || !(*j->p >= '0' && *j->p <= '9'))
			return jp_fail(j, "bad fraction");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		frac = true;
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (j->p >= j->end || !(*j->p >= '0' && *j->p <= '9'))
			return jp_fail(j, "bad exponent");
		while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
			j->p++;
	}
	v->t = frac ? J_NUM : J_INT;
	if (!frac) {
		char tmp[32];
		size_t n = (size_t)(j->p - s);

		if (n >= sizeof(tmp))
			n = sizeof(tmp) - 1;
		memcpy(tmp, s, n);
		tmp[n] = '\0';
		v->i = strtoll(tmp, NULL, 10);
	}
	return true;
}

static bool
jp_word(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n) != 0)
		return jp_fail(j, "unexpected character");
	j->p += n;
	return true;
}

static bool
jp_container(struct jp *j, struct jv *v, bool obj)
{
	char close = obj ? '}' : ']';

	if (++j->depth > 64)
		return jp_fail(j, "too deep");
	v->t = obj ? J_OBJ : J_ARR;
	j->p++;
	jp_ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return true;
	}
	for (;;) {
		struct jv item = { 0 };
		char *key = NULL;
		size_t keyn;

		jp_ws(j);
		if (obj) {
			if (j->p >= j->end || *j->p != '"')
				return jp_fail(j, "object member without a string name");
			if (!jp_string(j, &key, &keyn))
				return false;
			for (size_t i = 0; i < v->n; i++) {
				if (strcmp(v->keys[i], key) == 0) {
					free(key);
					return jp_fail(j, "duplicate member name");
				}
			}
			jp_ws(j);
			if (j->p >= j->end || *j->p != ':') {
				free(key);
				return jp_fail(j, "missing ':'");
			}
			j->p++;
		}
		if (!jp_value(j, &item)) {
			free(key);
			jv_free(&item);
			return false;
		}
		v->items = sbx_xreallocarray(v->items, v->n + 1, sizeof(*v->items));
		if (obj)
			v->keys = sbx_xreallocarray(v->keys, v->n + 1, sizeof(*v->keys)),
			v->keys[v->n] = key;
		v->items[v->n++] = item;
		jp_ws(j);
		if (j->p < j->end && *j->p == ',') {
			j->p++;
			continue;
		}
		if (j->p < j->end && *j->p == close) {
			j->p++;
			j->depth--;
			return true;
		}
		return jp_fail(j, obj ? "missing ',' or '}'" : "missing ',' or ']'");
	}
}

static bool
jp_value(struct jp *j, struct jv *v)
{
	jp_ws(j);
	if (j->p >= j->end)
		return jp_fail(j, "missing value");
	switch (*j->p) {
	case '{': return jp_container(j, v, true);
	case '[': return jp_container(j, v, false);
	case '"': v->t = J_STR; return jp_string(j, &v->s, &v->n);
	case 't': v->t = J_BOOL, v->b = true; return jp_word(j, "true");
	case 'f': v->t = J_BOOL, v->b = false; return jp_word(j, "false");
	case 'n': v->t = J_NULL; return jp_word(j, "null");
	default: return jp_number(j, v);
	}
}

/* Parses a whole document; on failure says why on a diag line. */
static bool
json_parse(const char *text, struct jv *v)
{
	struct jp j = { (const unsigned char *)text, (const unsigned char *)text + strlen(text),
		NULL, 0 };

	memset(v, 0, sizeof(*v));
	if (jp_value(&j, v)) {
		jp_ws(&j);
		if (j.p == j.end)
			return true;
		jp_fail(&j, "text after the value");
	}
	diag("invalid JSON (%s) at offset %td: %.60s", j.why, (const char *)j.p - text, text);
	jv_free(v);
	return false;
}

static const struct jv *
jv_get(const struct jv *o, const char *key)
{
	if (o == NULL || o->t != J_OBJ)
		return NULL;
	for (size_t i = 0; i < o->n; i++)
		if (strcmp(o->keys[i], key) == 0)
			return &o->items[i];
	return NULL;
}

/* The checker itself must refuse what it should, or the tests below
 * prove nothing. */
static void
test_checker(void)
{
	static const char *const good[] = {
		"{}",
		"[]",
		"0",
		"-1",
		"1.5e3",
		"\"\"",
		"\"\\u00e9\\ud83d\\ude00\"",
		"null",
		" { \"a\" : [ 1 , true , false , null , \"x\" ] } ",
		"\"\xc3\xa9\"",
	};
	static const char *const bad[] = {
		"",
		"{",
		"[1,]",
		"{\"a\":1,}",
		"{\"a\" 1}",
		"{a:1}",
		"\"\x01\"",
		"\"\\x\"",
		"01",
		"[1 2]",
		"\"\xc3\"",
		"\"\xc0\x80\"",
		"\"\xed\xa0\x80\"",
		"\"\\ud800\"",
		"\"\\udc00x\"",
		"{\"a\":1,\"a\":2}",
		"tru",
		"1 2",
		"\"abc",
		"\"\xf4\x90\x80\x80\"",
		"[\"\t\"]",
	};
	struct jv v;

	for (size_t i = 0; i < SBX_ARRAY_LEN(good); i++) {
		ok(json_parse(good[i], &v), "checker accepts %s", good[i]);
		jv_free(&v);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
		struct jp j = { (const unsigned char *)bad[i],
			(const unsigned char *)bad[i] + strlen(bad[i]), NULL, 0 };
		bool accepted;

		memset(&v, 0, sizeof(v));
		accepted = jp_value(&j, &v) && (jp_ws(&j), j.p == j.end);
		ok(!accepted, "checker refuses bad document #%zu", i);
		jv_free(&v);
	}
}

/* Escapes n bytes of s and compares with the expected literal. */
static void
esc_is(const char *s, size_t n, const char *want, const char *what)
{
	struct sbx_buf b = { 0 };
	struct jv v;

	sbx_json_escape(&b, s, n);
	is_str(b.data, want, "escape %s", what);
	if (ok(json_parse(b.data, &v) && v.t == J_STR, "escape %s: a valid JSON string", what) &&
	    utf8_valid(s, n))
		ok(v.n == n && (n == 0 || memcmp(v.s, s, n) == 0),
		    "escape %s: decodes to the same bytes", what);
	jv_free(&v);
	sbx_buf_free(&b);
}

#define ESC(lit, want) esc_is(lit, sizeof(lit) - 1, want, #lit)

static void
test_escape(void)
{
	ESC("", "\"\"");
	ESC("plain text", "\"plain text\"");
	ESC("\"", "\"\\\"\"");
	ESC("\\", "\"\\\\\"");
	ESC("a\"b\\c", "\"a\\\"b\\\\c\"");
	ESC("/", "\"/\"");
	ESC("\n", "\"\\n\"");
	ESC("\r", "\"\\r\"");
	ESC("\t", "\"\\t\"");
	ESC("\x01", "\"\\u0001\"");
	ESC("\x08", "\"\\u0008\"");
	ESC("\x0c", "\"\\u000c\"");
	ESC("\x1b[31m", "\"\\u001b[31m\"");
	ESC("\x1f", "\"\\u001f\"");
	ESC(" ", "\" \"");
	ESC("~", "\"~\"");
	ESC("\x7f", "\"\\u007f\"");
	ESC("a\0b", "\"a\\u0000b\"");
	ESC("line1\nline2\r\n", "\"line1\\nline2\\r\\n\"");

	/* Valid multibyte UTF-8 is kept as it is. */
	ESC("\xc2\xa0", "\"\xc2\xa0\""); /* U+00A0, the first past C1 */
	ESC("\xc3\xa9t\xc3\xa9", "\"\xc3\xa9t\xc3\xa9\""); /* été */
	ESC("\xdf\xbf", "\"\xdf\xbf\""); /* U+07FF */
	ESC("\xe0\xa0\x80", "\"\xe0\xa0\x80\""); /* U+0800 */
	ESC("\xe2\x82\xac", "\"\xe2\x82\xac\""); /* € */
	ESC("\xed\x9f\xbf", "\"\xed\x9f\xbf\""); /* U+D7FF */
	ESC("\xee\x80\x80", "\"\xee\x80\x80\""); /* U+E000 */
	ESC("\xef\xbf\xbf", "\"\xef\xbf\xbf\""); /* U+FFFF */
	ESC("\xef\xbb\xbf", "\"\xef\xbb\xbf\""); /* BOM, U+FEFF */
	ESC("\xe2\x80\xa7", "\"\xe2\x80\xa7\""); /* U+2027, before the separators */
	ESC("\xe2\x80\xaf", "\"\xe2\x80\xaf\""); /* U+202F, past the overrides */
	ESC("\xe2\x81\xa5", "\"\xe2\x81\xa5\""); /* U+2065, before the isolates */
	ESC("\xe2\x81\xaa", "\"\xe2\x81\xaa\""); /* U+206A, past them */
	ESC("\xf0\x90\x80\x80", "\"\xf0\x90\x80\x80\""); /* U+10000 */
	ESC("\xf0\x9f\x98\x80", "\"\xf0\x9f\x98\x80\""); /* 😀 */
	ESC("\xf4\x8f\xbf\xbf", "\"\xf4\x8f\xbf\xbf\""); /* U+10FFFF */

	/* C1 controls (UTF-8 C2 80..C2 9F) drive terminals as the C0 ones do
	 * (U+009B is a CSI, U+009D an OSC, U+009C an ST), and the separators
	 * and bidi controls reorder a line on screen: escaped, the same
	 * string to a parser. */
	ESC("\xc2\x80", "\"\\u0080\""); /* U+0080 */
	ESC("\xc2\x9b"
	    "2J",
	    "\"\\u009b2J\""); /* CSI */
	ESC("X\xc2\x9d"
	    "0;title\xc2\x9c",
	    "\"X\\u009d0;title\\u009c\""); /* OSC .. ST */
	ESC("\xc2\x9f", "\"\\u009f\""); /* U+009F */
	ESC("\xe2\x80\xa8", "\"\\u2028\""); /* line separator */
	ESC("\xe2\x80\xa9", "\"\\u2029\""); /* paragraph separator */
	ESC("a\xe2\x80\xae"
	    "b",
	    "\"a\\u202eb\""); /* right-to-left override */
	ESC("\xe2\x80\xaa", "\"\\u202a\""); /* left-to-right embedding */
	ESC("\xe2\x81\xa6", "\"\\u2066\""); /* left-to-right isolate */
	ESC("\xe2\x81\xa9", "\"\\u2069\""); /* pop directional isolate */

	/* Invalid UTF-8: each bad byte becomes U+FFFD, the rest is kept. */
	ESC("\x80", "\"\\ufffd\"");
	ESC("\xbf", "\"\\ufffd\"");
	ESC("a\x80z", "\"a\\ufffdz\"");
	ESC("\xc0\x80", "\"\\ufffd\\ufffd\""); /* overlong NUL */
	ESC("\xc1\xbf", "\"\\ufffd\\ufffd\""); /* overlong 2-byte */
	ESC("\xe0\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\""); /* overlong '/' */
	ESC("\xe0\x9f\xbf", "\"\\ufffd\\ufffd\\ufffd\""); /* overlong U+07FF */
	ESC("\xf0\x80\x80\xaf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* overlong 4-byte */
	ESC("\xf0\x8f\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* overlong U+FFFF */
	ESC("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate U+D800 */
	ESC("\xed\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate U+DFFF */
	ESC("\xed\xa0\xbd\xed\xb8\x80",
	    "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""); /* CESU-8 */
	ESC("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\""); /* U+110000 */
	ESC("\xf5\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	ESC("\xf7\xbf\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");
	ESC("\xf8\x88\x80\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\"");
	ESC("\xfe", "\"\\ufffd\"");
	ESC("\xff", "\"\\ufffd\"");
	ESC("\xc3", "\"\\ufffd\""); /* truncated at the end */
	ESC("\xe2\x82", "\"\\ufffd\\ufffd\"");
	ESC("\xf0\x9f\x98", "\"\\ufffd\\ufffd\\ufffd\"");
	ESC("\xe2\x82x", "\"\\ufffd\\ufffdx\""); /* truncated before ASCII */
	ESC("\xc3\"", "\"\\ufffd\\\"\""); /* truncated before a quote */
	ESC("\xe2\x82\n", "\"\\ufffd\\ufffd\\n\""); /* ... before a control char */
	ESC("\xc3\xc3\xa9", "\"\\ufffd\xc3\xa9\""); /* a lead byte then a valid one */

	/* n bytes, not up to a NUL; a NULL string is null. */
	{
		struct sbx_json j = { 0 };
		char *out;

		sbx_json_arr_begin(&j);
		sbx_json_strn(&j, "abcdef", 3);
		sbx_json_strn(&j, "\xe2\x82\xac", 2);
		sbx_json_str(&j, NULL);
		sbx_json_arr_end(&j);
		out = sbx_json_steal(&j);
		is_str(out, "[\"abc\",\"\\ufffd\\ufffd\",null]",
		    "strn takes n bytes (a cut sequence is invalid); NULL is null");
		free(out);
	}
}

/* Random byte strings: the output is always one valid JSON string, and a
 * valid UTF-8 input decodes back to itself. */
static void
test_escape_random(void)
{
	static const unsigned char pieces[][4] = {
		{ 'a' },
		{ '"' },
		{ '\\' },
		{ '\n' },
		{ 0x01 },
		{ 0x1f },
		{ 0x7f },
		{ 0x80 },
		{ 0xbf },
		{ 0xc0 },
		{ 0xc2 },
		{ 0xdf },
		{ 0xe0 },
		{ 0xed },
		{ 0xef },
		{ 0xf0 },
		{ 0xf4 },
		{ 0xf5 },
		{ 0xff },
		{ 0xa0 },
		{ 0x9f },
		{ 0x8f },
		{ 0x90 },
		{ 0 },
		{ 0xc3, 0xa9 },
		{ 0xe2, 0x82, 0xac },
		{ 0xf0, 0x9f, 0x98, 0x80 },
	};
	uint64_t seed = 0x9e3779b97f4a7c15ULL;
	int invalid = 0, changed = 0, valid_inputs = 0;

	for (int iter = 0; iter < 20000; iter++) {
		unsigned char in[64];
		size_t n = 0;
		struct sbx_buf b = { 0 };
		struct jv v;

		seed ^= seed << 13, seed ^= seed >> 7, seed ^= seed << 17;
		for (uint64_t k = seed % 12, r = seed >> 8; k > 0;
		     k--, r = r * 6364136223846793005ULL + 1) {
			const unsigned char *pc = pieces[(r >> 33) % SBX_ARRAY_LEN(pieces)];
			size_t len = pc[0] >= 0xf0 && pc[1] ? 4
			    : pc[0] >= 0xe0 && pc[1]        ? 3
			    : pc[0] >= 0xc0 && pc[1]        ? 2
							    : 1;

			memcpy(in + n, pc, len);
			n += len;
		}
		sbx_json_escape(&b, (const char *)in, n);
		if (!json_parse(b.data, &v)) {
			if (invalid++ < 3)
				diag(
				    "escaped output of %zu random bytes is invalid: %s", n, b.data);
		} else if (utf8_valid((const char *)in, n)) {
			valid_inputs++;
			if ((v.n != n || memcmp(v.s, in, n) != 0) && changed++ < 3)
				diag("valid input changed: %s", b.data);
		}
		jv_free(&v);
		sbx_buf_free(&b);
	}
	is_int(invalid, 0, "20000 random byte strings: every output is a valid JSON string");
	is_int(changed, 0, "... and the %d valid UTF-8 ones decode to themselves", valid_inputs);
	ok(valid_inputs > 1000 && valid_inputs < 19000,
	    "(the random inputs mix valid and invalid)");
}

static void
test_writer(void)
{
	struct sbx_json j = { 0 };
	struct jv v;
	char *out;

	sbx_json_obj_begin(&j);
	sbx_json_key(&j, "a");
	sbx_json_int(&j, 1);
	sbx_json_key(&j, "b");
	sbx_json_arr_begin(&j);
	sbx_json_str(&j, "x");
	sbx_json_str(&j, "y");
	sbx_json_obj_begin(&j);
	sbx_json_obj_end(&j);
	sbx_json_arr_begin(&j);
	sbx_json_arr_end(&j);
	sbx_json_arr_begin(&j);
	sbx_json_int(&j, -5);
	sbx_json_arr_end(&j);
	sbx_json_arr_end(&j);
	sbx_json_key(&j, "c");
	sbx_json_null(&j);
	sbx_json_key(&j, "d\"\n");
	sbx_json_bool(&j, true);
	sbx_json_key(&j, "e");
	sbx_json_bool(&j, false);
	sbx_json_key(&j, "f");
	sbx_json_uint(&j, UINT64_MAX);
	sbx_json_key(&j, "g");
	sbx_json_int(&j, INT64_MIN);
	sbx_json_key(&j, "h");
	sbx_json_obj_begin(&j);
	sbx_json_key(&j, "i");
	sbx_json_obj_begin(&j);
	sbx_json_obj_end(&j);
	sbx_json_key(&j, "j");
	sbx_json_str(&j, "");
	sbx_json_obj_end(&j);
	sbx_json_obj_end(&j);
	out = sbx_json_steal(&j);
	is_str(out,
	    "{\"a\":1,\"b\":[\"x\",\"y\",{},[],[-5]],\"c\":null,\"d\\\"\\n\":true,\"e\":false,"
	    "\"f\":18446744073709551615,\"g\":-9223372036854775808,\"h\":{\"i\":{},\"j\":\"\"}}",
	    "nesting, commas, every value kind, an escaped key");
	ok(json_parse(out, &v), "... valid JSON");
	jv_free(&v);
	free(out);
	ok(j.buf.data == NULL && j.depth == 0, "steal resets the writer");

	/* The writer is reusable after steal. */
	sbx_json_arr_begin(&j);
	sbx_json_int(&j, 1);
	sbx_json_int(&j, 2);
	sbx_json_arr_end(&j);
	out = sbx_json_steal(&j);
	is_str(out, "[1,2]", "a top-level array after a steal");
	free(out);

	{
		struct sbx_strv sv = { 0 };

		sbx_strv_push(&sv, "one");
		sbx_strv_push(&sv, "t\two");
		sbx_json_obj_begin(&j);
		sbx_json_key(&j, "empty");
		sbx_json_strv(&j, &(struct sbx_strv){ 0 });
		sbx_json_key(&j, "list");
		sbx_json_strv(&j, &sv);
		sbx_json_obj_end(&j);
		out = sbx_json_steal(&j);
		is_str(out, "{\"empty\":[],\"list\":[\"one\",\"t\\two\"]}", "string vectors");
		free(out);
		sbx_strv_free(&sv);
	}

	/* As deep as the writer tracks, with siblings at every level. */
	for (int depth = 1; depth <= 15; depth++) {
		for (int i = 0; i < depth; i++) {
			sbx_json_arr_begin(&j);
			sbx_json_int(&j, i);
		}
		for (int i = 0; i < depth; i++) {
			sbx_json_str(&j, "s");
			sbx_json_arr_end(&j);
		}
		out = sbx_json_steal(&j);
		if (!ok(json_parse(out, &v), "arrays nested %d deep with siblings: valid", depth))
			diag("%s", out);
		jv_free(&v);
		free(out);
	}
	/* Deeper than SBX_JSON_MAX_DEPTH: still valid JSON, never a broken
	 * line (the writer may not know better, but must not corrupt). */
	for (int i = 0; i < 20; i++) {
		sbx_json_obj_begin(&j);
		sbx_json_key(&j, "k");
		sbx_json_arr_begin(&j);
		sbx_json_int(&j, i);
	}
	for (int i = 0; i < 20; i++) {
		sbx_json_int(&j, 7);
		sbx_json_arr_end(&j);
		sbx_json_key(&j, "after");
		sbx_json_int(&j, i);
		sbx_json_obj_end(&j);
	}
	out = sbx_json_steal(&j);
	if (!ok(json_parse(out, &v), "objects and arrays nested 40 deep with siblings: valid"))
		diag("%.200s", out);
	jv_free(&v);
	free(out);
}

/* Checks the sbxrun(1) DIAGNOSTICS members and their types; returns the parsed
 * document for further checks (or J_NULL). */
static bool
diag_valid(const char *line, struct jv *v, const char *what)
{
	static const struct {
		const char *name;
		unsigned types; /* bit per enum jtype */
	} members[] = {
#define T(x) (1u << (x))
		{ "version", T(J_STR) },
		{ "backend", T(J_STR) },
		{ "isolation", T(J_STR) },
		{ "unenforced", T(J_ARR) },
		{ "fs", T(J_STR) | T(J_NULL) },
		{ "network", T(J_STR) | T(J_NULL) },
		{ "ports", T(J_OBJ) },
		{ "proxy", T(J_OBJ) | T(J_NULL) },
		{ "workdir", T(J_STR) | T(J_NULL) },
		{ "status", T(J_INT) },
		{ "exit_code", T(J_INT) | T(J_NULL) },
		{ "signal", T(J_STR) | T(J_NULL) },
		{ "timed_out", T(J_BOOL) },
		{ "oom_killed", T(J_BOOL) },
		{ "wall_ms", T(J_INT) },
		{ "cpu_user_ms", T(J_INT) },
		{ "cpu_sys_ms", T(J_INT) },
		{ "max_rss_kb", T(J_INT) },
		{ "limits", T(J_OBJ) },
		{ "warnings", T(J_ARR) },
		{ "error", T(J_STR) | T(J_NULL) },
		{ "trace", T(J_OBJ) | T(J_NULL) },
		{ "layers", T(J_OBJ) },
		{ "denials", T(J_INT) },
		{ "denied", T(J_ARR) },
	};
	static const char *const layer_bools[] = { "userns", "netns", "seccomp", "cgroup" };
	int bad = 0;
	const struct jv *m;

	ok(strchr(line, '\n') == NULL, "%s: one line", what);
	if (!ok(json_parse(line, v) && v->t == J_OBJ, "%s: one valid JSON object", what)) {
		diag("%s", line);
		return false;
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(members); i++) {
		m = jv_get(v, members[i].name);
		if (m == NULL || !(members[i].types & T(m->t))) {
			if (bad++ < 5)
				diag(
				    "member %s: %s", members[i].name, m ? "wrong type" : "missing");
		}
	}
	is_int(bad, 0, "%s: every sbxrun(1) DIAGNOSTICS member, with its type", what);
	m = jv_get(v, "isolation");
	ok(m && m->t == J_STR &&
		(!strcmp(m->s, "full") || !strcmp(m->s, "partial") || !strcmp(m->s, "none")),
	    "%s: isolation is full, partial or none", what);
	m = jv_get(v, "backend");
	ok(m && m->t == J_STR &&
		(!strcmp(m->s, "namespaces") || !strcmp(m->s, "landlock") ||
		    !strcmp(m->s, "seatbelt") || !strcmp(m->s, "docker") || !strcmp(m->s, "none")),
	    "%s: backend is one the man page names", what);
	m = jv_get(v, "ports");
	ok(m && jv_get(m, "listen") && jv_get(m, "listen")->t == J_ARR && jv_get(m, "connect") &&
		jv_get(m, "connect")->t == J_ARR && jv_get(m, "loopback") &&
		jv_get(m, "loopback")->t == J_ARR,
	    "%s: ports has listen, connect, loopback arrays", what);
	m = jv_get(v, "layers");
	bad = 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(layer_bools); i++)
		if (!jv_get(m, layer_bools[i]) || jv_get(m, layer_bools[i])->t != J_BOOL)
			bad++;
	ok(bad == 0 && jv_get(m, "landlock_abi") && jv_get(m, "landlock_abi")->t == J_INT,
	    "%s: layers has userns, netns, seccomp, cgroup (bool) and landlock_abi (number)", what);
	m = jv_get(v, "unenforced");
	bad = 0;
	for (size_t i = 0; m && i < m->n; i++)
		bad += m->items[i].t != J_STR;
	m = jv_get(v, "warnings");
	for (size_t i = 0; m && i < m->n; i++)
		bad += m->items[i].t != J_STR;
	is_int(bad, 0, "%s: unenforced and warnings hold strings", what);
	return true;
#undef T
}

static void
test_diag_error(void)
{
	struct sbx_report r;
	struct jv v;
	char *line;

	/* A failure before any policy existed (a bad flag). */
	sbx_report_init(&r);
	r.error = sbx_xstrdup("--listen: port 70000 is out of range (1-65535)");
	line = sbx_diag_render(&r, NULL);
	if (diag_valid(line, &v, "a 125 before a policy")) {
		ok(jv_get(&v, "status")->i == 125, "status 125");
		is_str(jv_get(&v, "error")->s, "--listen: port 70000 is out of range (1-65535)",
		    "error is the message");
		ok(jv_get(&v, "exit_code")->t == J_NULL && jv_get(&v, "signal")->t == J_NULL,
		    "no exit code, no signal");
		is_str(jv_get(&v, "isolation")->s, "none", "isolation none");
		ok(jv_get(&v, "proxy")->t == J_NULL && jv_get(&v, "trace")->t == J_NULL,
		    "proxy and trace are null");
		is_str(jv_get(&v, "version")->s, PACKAGE_VERSION, "version");
	}
	jv_free(&v);
	free(line);
	sbx_report_free(&r);

	/* An error message holding anything a file name can hold. */
	sbx_report_init(&r);
	r.error = sbx_xstrdup("/tmp/a\"b\\c\nd\x01\x7f\xff\xc3\xa9.ini:3: bad");
	line = sbx_diag_render(&r, NULL);
	if (diag_valid(line, &v, "a 125 with control bytes and bad UTF-8 in the message"))
		is_str(jv_get(&v, "error")->s,
		    "/tmp/a\"b\\c\nd\x01\x7f\xef\xbf\xbd\xc3\xa9.ini:3: bad",
		    "the message decodes back (the bad byte as U+FFFD)");
	jv_free(&v);
	free(line);
	sbx_report_free(&r);
}

static void
test_diag_run(void)
{
	struct sbx_policy p;
	struct sbx_report r;
	struct jv v;
	const struct jv *m;
	char *line;

	sbx_policy_init(&p, "/home/u");
	p.fs = SBX_FS_ALLOWLIST;
	p.network = true;
	sbx_ports_add(&p.listen, 8080);
	sbx_ports_add(&p.connect, 443);
	sbx_ports_add(&p.connect, 80);
	sbx_ports_add(&p.loopback, 8899);
	sbx_strv_push(&p.proxy_allow, "api.example.com");
	sbx_strv_push(&p.proxy_allow, "*.example.org");
	p.timeout_ms = 30000;
	p.limits[SBX_LIMIT_MEMORY] = (struct sbx_limit){ .set = true, .value = 536870912 };
	p.limits[SBX_LIMIT_PIDS] = (struct sbx_limit){ .set = true, .value = 256 };
	sbx_strv_push(&p.warnings, "unknown fs value 'x\ty' replaced by strict");

	sbx_report_init(&r);
	r.backend = "namespaces";
	r.requested = sbx_rules_requested(&p);
	r.enforced = r.requested;
	r.status = 137;
	r.signal = SIGKILL;
	r.wall_ms = 1234;
	r.cpu_user_ms = 10;
	r.cpu_sys_ms = 5;
	r.max_rss_kb = 51200;
	r.workdir = sbx_xstrdup("/tmp/sbxrun.abc");
	r.limits[SBX_LIMIT_MEMORY].by = "cgroup";
	r.limits[SBX_LIMIT_PIDS].by = "rlimit";
	r.proxy_port = 40123;
	r.trace_path = sbx_xstrdup("/tmp/t.jsonl");
	r.trace_events = 42;
	r.denials = 3;
	r.layers.userns = r.layers.netns = r.layers.seccomp = true;
	r.layers.landlock_abi = 6;
	sbx_strv_push(&r.warnings, "stopped by SIGTERM");
	line = sbx_diag_render(&r, &p);
	if (diag_valid(line, &v, "a full run")) {
		is_str(jv_get(&v, "isolation")->s, "full", "every rule enforced: isolation full");
		is_u64(jv_get(&v, "unenforced")->n, 0, "nothing unenforced");
		is_str(jv_get(&v, "fs")->s, "allowlist", "fs");
		is_str(jv_get(&v, "network")->s, "on", "network");
		is_str(jv_get(&v, "signal")->s, "SIGKILL", "signal name");
		ok(jv_get(&v, "exit_code")->t == J_NULL, "killed: exit_code null");
		ok(jv_get(&v, "status")->i == 137 && jv_get(&v, "wall_ms")->i == 1234 &&
			jv_get(&v, "max_rss_kb")->i == 51200 && jv_get(&v, "denials")->i == 3,
		    "status, wall_ms, max_rss_kb, denials");
		m = jv_get(&v, "ports");
		ok(jv_get(m, "connect")->n == 2 && jv_get(m, "connect")->items[0].i == 80 &&
			jv_get(m, "listen")->items[0].i == 8080 &&
			jv_get(m, "loopback")->items[0].i == 8899,
		    "ports");
		m = jv_get(&v, "proxy");
		ok(m->t == J_OBJ && jv_get(m, "port")->i == 40123 && jv_get(m, "allow")->n == 2 &&
			!strcmp(jv_get(m, "allow")->items[1].s, "*.example.org"),
		    "proxy port and allow");
		m = jv_get(&v, "trace");
		ok(m->t == J_OBJ && !strcmp(jv_get(m, "path")->s, "/tmp/t.jsonl") &&
			jv_get(m, "events")->i == 42,
		    "trace path and events");
		m = jv_get(&v, "warnings");
		ok(m->n == 2 &&
			!strcmp(m->items[0].s, "unknown fs value 'x\ty' replaced by strict") &&
			!strcmp(m->items[1].s, "stopped by SIGTERM"),
		    "warnings: the policy's, then the run's");
		m = jv_get(&v, "layers");
		ok(jv_get(m, "userns")->b && jv_get(m, "netns")->b && !jv_get(m, "cgroup")->b &&
			jv_get(m, "landlock_abi")->i == 6,
		    "layers as set");
		like(line, "\"memory\":{\"bytes\":536870912,\"by\":\"cgroup\"}",
		    "limits.memory as documented: {\"bytes\":N,\"by\":\"cgroup\"}");
		like(line, "\"pids\":{\"count\":256,\"by\":\"rlimit\"}", "limits.pids");
		like(line, "\"timeout\":{\"ms\":30000,\"by\":\"supervisor\"}", "limits.timeout");
	}
	jv_free(&v);
	free(line);

	/* Partly enforced: isolation partial, unenforced names the rules. */
	r.enforced &= ~(SBX_RULE_BIT(SBX_RULE_LOOPBACK) | SBX_RULE_BIT(SBX_RULE_MEMORY));
	r.limits[SBX_LIMIT_MEMORY].by = NULL;
	r.signal = 0;
	r.exited = true;
	r.exit_code = 3;
	r.status = 3;
	line = sbx_diag_render(&r, &p);
	if (diag_valid(line, &v, "a partial run")) {
		is_str(jv_get(&v, "isolation")->s, "partial", "isolation partial");
		m = jv_get(&v, "unenforced");
		ok(m->n == 2 && !strcmp(m->items[0].s, "loopback") &&
			!strcmp(m->items[1].s, "memory"),
		    "unenforced: [\"loopback\",\"memory\"]");
		ok(jv_get(&v, "exit_code")->i == 3 && jv_get(&v, "signal")->t == J_NULL,
		    "exit_code 3, signal null");
		like(line, "\"memory\":{\"bytes\":536870912,\"by\":null}",
		    "an unenforced limit: by null");
	}
	jv_free(&v);
	free(line);

	/* Refused before anything ran: nothing was in force. */
	r.exited = false;
	r.status = 125;
	line = sbx_diag_render(&r, &p);
	if (diag_valid(line, &v, "a refused run")) {
		is_str(jv_get(&v, "isolation")->s, "none", "refused with 125: isolation none");
		ok(jv_get(&v, "unenforced")->n == 2, "... and unenforced still names the rules");
	}
	jv_free(&v);
	free(line);
	/* The payload's own 125 ran in the jail. */
	r.exited = true;
	r.exit_code = 125;
	line = sbx_diag_render(&r, &p);
	if (diag_valid(line, &v, "a run whose payload exited 125"))
		is_str(jv_get(&v, "isolation")->s, "partial",
		    "the payload's own 125: isolation as enforced");
	jv_free(&v);
	free(line);

	/* The none backend: isolation none whatever it enforces. */
	r.backend = "none";
	r.enforced = SBX_RULE_BIT(SBX_RULE_TIMEOUT);
	line = sbx_diag_render(&r, &p);
	if (diag_valid(line, &v, "a run without a jail"))
		is_str(jv_get(&v, "isolation")->s, "none", "backend none: isolation none");
	jv_free(&v);
	free(line);
	r.backend = "landlock";
	r.enforced = 0;
	line = sbx_diag_render(&r, &p);
	if (diag_valid(line, &v, "a backend that enforced nothing"))
		is_str(jv_get(&v, "isolation")->s, "none", "nothing enforced: isolation none");
	jv_free(&v);
	free(line);

	/* No proxy: null. */
	sbx_strv_free(&p.proxy_allow);
	line = sbx_diag_render(&r, &p);
	if (diag_valid(line, &v, "a run without a proxy"))
		ok(jv_get(&v, "proxy")->t == J_NULL, "proxy null without allowed hosts");
	jv_free(&v);
	free(line);
	sbx_report_free(&r);
	sbx_policy_free(&p);

	is_str(sbx_signal_name(SIGKILL), "SIGKILL", "signal 9 is SIGKILL");
	is_str(sbx_signal_name(SIGTERM), "SIGTERM", "signal 15 is SIGTERM");
	is_str(sbx_signal_name(SIGSEGV), "SIGSEGV", "signal 11 is SIGSEGV");
	is_str(sbx_signal_name(200), "SIG200", "an unknown signal is SIG<n>");
}

/* The refusals' list: the first 20 only, each target bounded and cut on a
 * UTF-8 boundary, anything the sandbox put in it escaped, and the -v form
 * printable ASCII. */
static void
test_diag_denied(void)
{
	struct sbx_report r;
	struct jv v = { 0 };
	char *line, out[64], *huge;
	const struct jv *m;

	sbx_report_init(&r);
	line = sbx_diag_render(&r, NULL);
	if (diag_valid(line, &v, "no refusal")) {
		m = jv_get(&v, "denied");
		ok(m != NULL && m->t == J_ARR && m->n == 0, "no refusal: denied is []");
	}
	jv_free(&v);
	free(line);

	sbx_denied_add(&r.denied, "connect", "127.0.0.1:5432");
	sbx_denied_add(&r.denied, "metadata", "chmod .git/hooks\n\x1b[31m\"\\\xff\xc3");
	huge = malloc(1000);
	memset(huge, 'a', 1000);
	/* a three-byte character across the cut */
	memcpy(huge + SBX_DENIED_WHAT_MAX - 1, "\xe2\x82\xac", 3);
	huge[999] = '\0';
	sbx_denied_add(&r.denied, "proxy", huge);
	free(huge);
	for (int i = 0; i < 30; i++)
		sbx_denied_add(&r.denied, "send", "10.0.0.1:53");
	r.denials = 33;
	is_int((long long)r.denied.n, SBX_DENIED_MAX, "the list keeps the first 20 only");
	line = sbx_diag_render(&r, NULL);
	if (diag_valid(line, &v, "refusals")) {
		m = jv_get(&v, "denied");
		ok(m->t == J_ARR && m->n == SBX_DENIED_MAX, "denied: 20 entries for 33 denials");
		ok(m->items[0].t == J_OBJ && !strcmp(jv_get(&m->items[0], "kind")->s, "connect") &&
			!strcmp(jv_get(&m->items[0], "what")->s, "127.0.0.1:5432"),
		    "denied[0]: {kind, what} in order");
		is_str(jv_get(&m->items[1], "what")->s,
		    "chmod .git/hooks\n\x1b[31m\"\\\xef\xbf\xbd\xef\xbf\xbd",
		    "control bytes, quotes and invalid UTF-8 in what are escaped, not passed");
		is_int((long long)jv_get(&m->items[2], "what")->n, SBX_DENIED_WHAT_MAX - 1 + 3,
		    "a long target is cut before a character that does not fit, then ...");
		ok(!strcmp(jv_get(&m->items[2], "what")->s + SBX_DENIED_WHAT_MAX - 1, "..."),
		    "the cut is marked");
		is_str(jv_get(&m->items[19], "kind")->s, "send", "the 20th is kept");
	}
	jv_free(&v);
	free(line);

	sbx_denied_printable(out, sizeof(out), "a\x1b[2J\\b\xc3\xa9\n");
	is_str(out, "a\\x1b[2J\\x5cb\\xc3\\xa9\\x0a",
	    "-v form: escape, backslash and non-ASCII bytes as \\xHH");
	sbx_denied_printable(out, 12, "0123456789abcdef");
	is_str(out, "01234567...", "-v form: bounded, the cut marked");
	sbx_denied_printable(out, sizeof(out), NULL);
	is_str(out, "", "-v form: nothing for NULL");
	sbx_report_free(&r);

	/* A refused path call: whole when it fits; else the path's end, the
	 * place the call aimed at, kept behind a visible "...". */
	{
		char what[SBX_DENIED_WHAT_MAX + 1], *pad = malloc(300);

		sbx_denied_call(what, sizeof(what), "chmod", ".git/hooks");
		is_str(what, "chmod .git/hooks", "a path call that fits is whole");
		for (int i = 0; i < 100; i++)
			memcpy(pad + 2 * i, "./", 2);
		strcpy(pad + 200, "../../../etc/passwd");
		sbx_denied_call(what, sizeof(what), "setxattr", pad);
		is_int((long long)strlen(what), SBX_DENIED_WHAT_MAX, "a long one fills the room");
		ok(!strncmp(what, "setxattr ...", 12), "... the cut marked after the call's name");
		ok(strlen(what) > 19 && !strcmp(what + strlen(what) - 19, "../../../etc/passwd"),
		    "... and the path's end, where it aimed, kept");
		/* "chmod ..." is 9 bytes, the tail 151: a character that
		 * starts one byte before the tail is left out. */
		memset(pad, 'a', 200);
		memcpy(pad + 200 - (SBX_DENIED_WHAT_MAX - 9) - 1, "\xe2\x82\xac", 3);
		pad[200] = '\0';
		sbx_denied_call(what, sizeof(what), "chmod", pad);
		ok(!strncmp(what, "chmod ...aa", 11) && strlen(what) == SBX_DENIED_WHAT_MAX - 2,
		    "a character across the cut is left out whole");
		free(pad);
	}
}

/* The line stays within SBX_DIAG_LINE_MAX whatever the warnings quote:
 * names cut to SBX_DIAG_NAME_MAX in their middle, each warning to
 * SBX_DIAG_WARNING_MAX, and those that do not fit left out and counted. */
#define BIG_NAME 6000 /* longer than PATH_MAX and than a warning may be */

static void
test_diag_bounded(void)
{
	struct sbx_report r;
	struct jv v = { 0 };
	const struct jv *w;
	char *line, *name, *big = malloc(BIG_NAME + 1);
	size_t len;

	name = sbx_diag_name("d0/.git", 7);
	is_str(name, "d0/.git", "a short name is quoted whole");
	free(name);
	memset(big, '\x01', BIG_NAME);
	memcpy(big, "d0/", 3);
	/* a two-byte character across each cut */
	memcpy(big + 127, "\xc3\xa9", 2);
	memcpy(big + BIG_NAME - 126, "\xc3\xa9", 2);
	big[BIG_NAME] = '\0';
	name = sbx_diag_name(big, BIG_NAME);
	len = strlen(name);
	ok(len <= SBX_DIAG_NAME_MAX, "a long name is cut to %d bytes (%zu)", SBX_DIAG_NAME_MAX,
	    len);
	ok(!strncmp(name, "d0/", 3) && strstr(name, "...") == name + 127,
	    "... keeping its start, then ... (the character across the cut left out)");
	ok(len > 3 && (unsigned char)name[len - 1] == 0x01 && (unsigned char)name[130] == 0x01,
	    "... and its end, from a character's first byte");
	free(name);

	/* 200 warnings of BIG_NAME control bytes: 7 MB escaped. */
	sbx_report_init(&r);
	sbx_strv_push(&r.warnings, "a short one first");
	for (int i = 0; i < 200; i++)
		sbx_strv_push(&r.warnings, big);
	sbx_strv_push(&r.warnings, "a short one last");
	line = sbx_diag_render(&r, NULL);
	len = strlen(line);
	ok(len <= SBX_DIAG_LINE_MAX, "hostile warnings: the line is %zu bytes, at most %u", len,
	    SBX_DIAG_LINE_MAX);
	if (diag_valid(line, &v, "hostile warnings")) {
		w = jv_get(&v, "warnings");
		ok(w->n > 3 && !strcmp(w->items[0].s, "a short one first"),
		    "the first warnings are kept, in order");
		ok(w->items[1].n == SBX_DIAG_WARNING_MAX && !memcmp(w->items[1].s, "d0/", 3) &&
			!strcmp(w->items[1].s + SBX_DIAG_WARNING_MAX - 3, "..."),
		    "a warning is cut to %d bytes, the cut marked", SBX_DIAG_WARNING_MAX);
		ok(!strcmp(w->items[w->n - 2].s, "a short one last"),
		    "a later one that fits is still kept");
		like(w->items[w->n - 1].s, " more warnings were left out: the diagnostics line",
		    "the last says how many were left out");
	}
	jv_free(&v);
	free(line);
	sbx_report_free(&r);
	free(big);
}

int
main(void)
{
	test_checker();
	test_escape();
	test_escape_random();
	test_writer();
	test_diag_error();
	test_diag_run();
	test_diag_denied();
	test_diag_bounded();
	return done_testing();
}
