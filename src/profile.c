#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "profile.h"

struct profile_ctx {
	struct sbx_policy *policy;
	const char *name;
	FILE *file; /* file input, or */
	const char *text; /* string input, advanced line by line */
	int line; /* the line just handed to inih */
	bool failed;
	struct sbx_err *err;
	struct sbx_strv seen; /* "section.key" of scalars already set */
	char section[64];
};

static int ctx_fail(struct profile_ctx *ctx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Records the first error as "FILE:LINE: message"; returns 0 for inih. */
static int
ctx_fail(struct profile_ctx *ctx, const char *fmt, ...)
{
	char msg[SBX_ERR_MSG];
	va_list ap;

	if (ctx->failed)
		return 0;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sbx_err_set(ctx->err, EINVAL, "%s:%d: %s", ctx->name, ctx->line, msg);
	ctx->failed = true;
	return 0;
}

/* Pulls the next line from the input into a malloc'd string; *len is its
 * length, which may include NUL bytes. NULL at the end. */
static char *
next_line(struct profile_ctx *ctx, size_t *len)
{
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (ctx->file) {
		n = getline(&line, &cap, ctx->file);
		if (n < 0) {
			free(line);
			return NULL;
		}
		*len = (size_t)n;
		return line;
	}
	if (*ctx->text == '\0')
		return NULL;
	n = (ssize_t)strcspn(ctx->text, "\n");
	if (ctx->text[n] == '\n')
		n++;
	line = sbx_xstrndup(ctx->text, (size_t)n);
	ctx->text += n;
	*len = (size_t)n;
	return line;
}

static int handler(void *user, const char *section, const char *key, const char *value);

/* Finds where inih ends a key or a value: at the first of chars, or at a
 * ';' that follows a blank (an inline comment). Scanning starts with no
 * blank seen, so a ';' right at s is part of the text. */
static char *
find_chars_or_comment(char *s, const char *chars)
{
	bool was_space = false;

	for (; *s; s++) {
		if (chars && strchr(chars, *s))
			break;
		if (was_space && *s == ';')
			break;
		was_space = isspace((unsigned char)*s);
	}
	return s;
}

static void
rstrip(char *s)
{
	char *end = s + strlen(s);

	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
}

/* Splits a "key = value" line exactly the way inih does and hands it to
 * the handler. Every such line goes through here, whatever its length, so
 * that a line longer than inih's buffer cannot be read differently from a
 * short one: the key ends at the first '=' or ':' (a comment before it is
 * a syntax error), the value's inline comment is cut before its leading
 * blanks are skipped (so "k =;v" is ";v" and "k = ;v" is empty), and both
 * lose their trailing blanks. */
static bool
key_value_line(struct profile_ctx *ctx, char *s)
{
	char *end = find_chars_or_comment(s, "=:"), *value;

	if (*end != '=' && *end != ':') {
		ctx_fail(ctx, "syntax error (want 'key = value' or '[section]')");
		return false;
	}
	*end = '\0';
	rstrip(s);
	value = end + 1;
	*find_chars_or_comment(value, NULL) = '\0';
	while (isspace((unsigned char)*value))
		value++;
	rstrip(value);
	handler(ctx, ctx->section, s, value);
	return !ctx->failed;
}

/* The inih reader: hands over one line at a time so that ctx->line is the
 * line number of whatever the handler sees, and refuses what inih would
 * take silently in a way the author did not mean: an indented line (inih
 * reads it as the continuation of the previous value), text after a
 * section header, a line that is neither a comment, a header nor
 * "key = value", a NUL byte. Lines are passed on without their
 * indentation, so inih never continues a value; "key = value" lines are
 * split here (key_value_line) and inih gets an empty line in their place,
 * so inih itself only sees section headers. Returning NULL ends the
 * parse. */
static char *
reader(char *buf, int size, void *stream)
{
	struct profile_ctx *ctx = stream;
	_cleanup_free_ char *line = NULL;
	char *s, *end;
	size_t len;

	if (ctx->failed)
		return NULL;
	line = next_line(ctx, &len);
	if (line == NULL)
		return NULL;
	ctx->line++;
	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	line[len] = '\0';
	if (strlen(line) != len) {
		ctx_fail(ctx, "NUL byte in line");
		return NULL;
	}
	s = line;
	if (ctx->line == 1 && sbx_str_has_prefix(s, "\xef\xbb\xbf"))
		s += 3; /* a UTF-8 byte order mark */
	if (isspace((unsigned char)*s)) {
		while (isspace((unsigned char)*s))
			s++;
		if (*s != '\0' && *s != ';' && *s != '#' && *s != '[') {
			ctx_fail(ctx, "indented line '%s' (continuation lines are not allowed)", s);
			return NULL;
		}
	}
	if (*s == '[') {
		_cleanup_free_ char *sec = NULL;
		const char *rest;

		end = strchr(s, ']');
		if (end == NULL) {
			ctx_fail(ctx, "unterminated section header");
			return NULL;
		}
		for (rest = end + 1; isspace((unsigned char)*rest); rest++)
			;
		if (*rest != '\0' && *rest != ';' && *rest != '#') {
			ctx_fail(ctx, "text after the section header: '%s'", rest);
			return NULL;
		}
		sec = sbx_xstrndup(s + 1, (size_t)(end - s - 1));
		if (!sbx_policy_section_known(sec)) {
			_cleanup_free_ char *msg = sbx_policy_unknown_msg(sec, NULL);

			ctx_fail(ctx, "%s", msg);
			return NULL;
		}
		strlcpy(ctx->section, sec, sizeof(ctx->section));
		*end = '\0';
		s[1 + strlen(sec)] = ']'; /* inih gets just "[name]" */
		s[2 + strlen(sec)] = '\0';
	} else if (*s == ';' || *s == '#') {
		*s = '\0'; /* comments stay here, whatever their length */
	} else if (*s != '\0') {
		if (!key_value_line(ctx, s))
			return NULL;
		s += strlen(s); /* inih gets an empty line in its place */
	}
	len = strlen(s);
	memcpy(buf, s, len);
	buf[len] = '\n';
	buf[len + 1] = '\0';
	return buf;
}

static int
handler(void *user, const char *section, const char *key, const char *value)
{
	struct profile_ctx *ctx = user;
	struct sbx_err verr = { 0 };
	_cleanup_free_ char *id = NULL, *from = NULL;
	bool is_list;

	if (ctx->failed)
		return 0;
	if (*section == '\0')
		return ctx_fail(ctx, "key '%s' outside of any section", key);
	if (!sbx_policy_section_known(section) || sbx_policy_key_kind(section, key, &is_list) < 0) {
		_cleanup_free_ char *msg =
		    sbx_policy_unknown_msg(section, sbx_policy_section_known(section) ? key : NULL);

		return ctx_fail(ctx, "%s", msg);
	}
	id = sbx_xasprintf("%s.%s", section, key);
	if (!is_list) {
		if (sbx_strv_contains(&ctx->seen, id))
			return ctx_fail(ctx, "duplicated key '%s' in [%s]", key, section);
		sbx_strv_push(&ctx->seen, id);
	}
	from = sbx_xasprintf("%s:%d", ctx->name, ctx->line);
	if (sbx_policy_set_from(ctx->policy, section, key, value, from, &verr) < 0)
		return ctx_fail(ctx, "%s: %s", key, verr.msg);
	return 1;
}

static int
parse(struct profile_ctx *ctx)
{
	int r = ini_parse_stream(reader, ctx, handler, ctx);

	sbx_strv_free(&ctx->seen);
	if (ctx->failed)
		return -1;
	if (r > 0)
		return sbx_err_set(ctx->err, EINVAL,
		    "%s:%d: syntax error (want 'key = value' or '[section]')", ctx->name, r);
	if (r < 0)
		return sbx_err_set(ctx->err, ENOMEM, "%s: cannot parse", ctx->name);
	return 0;
}

int
sbx_profile_load_string(
    struct sbx_policy *p, const char *name, const char *text, struct sbx_err *err)
{
	struct profile_ctx ctx = {
		.policy = p,
		.name = name,
		.text = text,
		.err = err,
	};

	return parse(&ctx);
}

int
sbx_profile_load_file(struct sbx_policy *p, const char *path, struct sbx_err *err)
{
	struct profile_ctx ctx = { .policy = p, .name = path, .err = err };
	int r;

	ctx.file = fopen(path, "re");
	if (ctx.file == NULL)
		return sbx_err_sys(err, "%s", path);
	r = parse(&ctx);
	if (r == 0 && ferror(ctx.file))
		r = sbx_err_sys(err, "%s: read error", path);
	fclose(ctx.file);
	return r;
}

bool
sbx_profile_arg_is_file(const char *arg)
{
	return strchr(arg, '/') != NULL || sbx_str_has_suffix(arg, ".ini");
}

int
sbx_profile_find(const char *name, const char *const *dirs, char **path, struct sbx_err *err)
{
	for (const char *c = name; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.'))
			return sbx_err_set(err, EINVAL, "bad profile name '%s'", name);
	if (*name == '\0' || *name == '.')
		return sbx_err_set(err, EINVAL, "bad profile name '%s'", name);
	for (size_t i = 0; dirs[i]; i++) {
		char *candidate = sbx_xasprintf("%s/%s.ini", dirs[i], name);

		if (access(candidate, R_OK) == 0) {
			*path = candidate;
			return 0;
		}
		free(candidate);
	}
	{
		struct sbx_buf where = { 0 };
		int r;

		for (size_t i = 0; dirs[i]; i++)
			sbx_buf_printf(&where, "%s%s", i ? ", " : "", dirs[i]);
		r = sbx_err_set(err, ENOENT, "profile '%s' not found (looked for %s.ini in %s)",
		    name, name, where.data ? where.data : "no directory");
		sbx_buf_free(&where);
		return r;
	}
}
