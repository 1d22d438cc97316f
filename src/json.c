#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "json.h"

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when the
 * bytes there are not one: overlong forms, surrogates and code points past
 * U+10FFFF are invalid too. */
static size_t
utf8_seq_len(const unsigned char *s, size_t n)
{
	uint32_t cp;
	size_t len;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, cp = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, cp = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, cp = s[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) || cp > 0x10ffff ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

/* The code point of the valid sequence of len bytes at s. */
static uint32_t
utf8_code_point(const unsigned char *s, size_t len)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead_mask[len];

	for (size_t i = 1; i < len; i++)
		cp = (cp << 6) | (s[i] & 0x3f);
	return cp;
}

/* Whether the valid sequence at s is a code point that acts on a display
 * rather than showing: the C1 controls U+0080-U+009F (xterm and others
 * take UTF-8 C1 as controls: U+009B is a CSI, U+009D an OSC, so a name the
 * sandbox chose could drive the terminal of whoever reads the line or the
 * trace), the line and paragraph separators U+2028-U+2029 and the bidi
 * embeddings, overrides and isolates U+202A-U+202E, U+2066-U+2069 (which
 * reorder the text around them on screen). They are written as \uXXXX:
 * the same string to a parser, inert on a terminal. */
static bool
display_control(const unsigned char *s, size_t len)
{
	uint32_t cp;

	if (len == 1)
		return false;
	cp = utf8_code_point(s, len);
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x2028 && cp <= 0x202e) ||
	    (cp >= 0x2066 && cp <= 0x2069);
}

void
sbx_json_escape(struct sbx_buf *b, const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;

	sbx_buf_putc(b, '"');
	while (i < n) {
		unsigned char c = s[i];
		size_t len;

		switch (c) {
		case '"':
			sbx_buf_puts(b, "\\\"");
			i++;
			continue;
		case '\\':
			sbx_buf_puts(b, "\\\\");
			i++;
			continue;
		case '\n':
			sbx_buf_puts(b, "\\n");
			i++;
			continue;
		case '\r':
			sbx_buf_puts(b, "\\r");
			i++;
			continue;
		case '\t':
			sbx_buf_puts(b, "\\t");
			i++;
			continue;
		default: break;
		}
		if (c < 0x20 || c == 0x7f) {
			sbx_buf_printf(b, "\\u%04x", c);
			i++;
			continue;
		}
		len = utf8_seq_len(s + i, n - i);
		if (len == 0) {
			sbx_buf_puts(b, "\\ufffd");
			i++;
			continue;
		}
		if (display_control(s + i, len)) {
			sbx_buf_printf(b, "\\u%04x", utf8_code_point(s + i, len));
			i += len;
			continue;
		}
		sbx_buf_add(b, s + i, len);
		i += len;
	}
	sbx_buf_putc(b, '"');
}

static void
before_value(struct sbx_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->depth > 0 && j->need_comma[j->depth])
		sbx_buf_putc(&j->buf, ',');
	j->need_comma[j->depth] = true;
}

static void
open_container(struct sbx_json *j, char c)
{
	before_value(j);
	sbx_buf_putc(&j->buf, c);
	/* Deeper documents are a programming error, not input. */
	if (j->depth + 1 >= SBX_JSON_MAX_DEPTH)
		abort();
	j->depth++;
	j->need_comma[j->depth] = false;
}

static void
close_container(struct sbx_json *j, char c)
{
	sbx_buf_putc(&j->buf, c);
	if (j->depth > 0)
		j->depth--;
}

void
sbx_json_obj_begin(struct sbx_json *j)
{
	open_container(j, '{');
}

void
sbx_json_obj_end(struct sbx_json *j)
{
	close_container(j, '}');
}

void
sbx_json_arr_begin(struct sbx_json *j)
{
	open_container(j, '[');
}

void
sbx_json_arr_end(struct sbx_json *j)
{
	close_container(j, ']');
}

void
sbx_json_key(struct sbx_json *j, const char *key)
{
	before_value(j);
	sbx_json_escape(&j->buf, key, strlen(key));
	sbx_buf_putc(&j->buf, ':');
	j->after_key = true;
}

void
sbx_json_strn(struct sbx_json *j, const char *s, size_t n)
{
	before_value(j);
	sbx_json_escape(&j->buf, s, n);
}

void
sbx_json_str(struct sbx_json *j, const char *s)
{
	if (s == NULL)
		sbx_json_null(j);
	else
		sbx_json_strn(j, s, strlen(s));
}

void
sbx_json_int(struct sbx_json *j, int64_t v)
{
	before_value(j);
	sbx_buf_printf(&j->buf, "%" PRId64, v);
}

void
sbx_json_uint(struct sbx_json *j, uint64_t v)
{
	before_value(j);
	sbx_buf_printf(&j->buf, "%" PRIu64, v);
}

void
sbx_json_bool(struct sbx_json *j, bool v)
{
	before_value(j);
	sbx_buf_puts(&j->buf, v ? "true" : "false");
}

void
sbx_json_null(struct sbx_json *j)
{
	before_value(j);
	sbx_buf_puts(&j->buf, "null");
}

void
sbx_json_strv(struct sbx_json *j, const struct sbx_strv *sv)
{
	sbx_json_arr_begin(j);
	for (size_t i = 0; i < sv->n; i++)
		sbx_json_str(j, sv->v[i]);
	sbx_json_arr_end(j);
}

char *
sbx_json_steal(struct sbx_json *j)
{
	char *s = sbx_buf_steal(&j->buf);

	memset(j, 0, sizeof(*j));
	return s;
}
