#include "config.h"

#include <ctype.h>
#include <dirent.h>
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
	if (size < 0 || len + 2 > (size_t)size) {
		ctx_fail(ctx, "line too long for the parser");
		return NULL; /* only "[section]" reaches here, a known short name */
	}
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

static bool
name_ok(const char *name)
{
	for (const char *c = name; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '-' || *c == '_' || *c == '.'))
			return false;
	return *name != '\0' && *name != '.';
}

char *
sbx_profile_user_dir(const char *xdg, const char *home)
{
	if (xdg && xdg[0] == '/')
		return sbx_xasprintf("%s/sbxrun/profiles", xdg);
	return sbx_xasprintf("%s/.config/sbxrun/profiles", home);
}

int
sbx_profile_find(const char *name, const char *const *dirs, char **path, struct sbx_err *err)
{
	if (!name_ok(name))
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

/* The first non-empty comment line before anything else, without its ';'
 * or '#' and blanks; the shipped profiles' 'sbxrun profile "NAME": ' is
 * dropped, since the name is shown anyway. */
static char *
read_summary(const char *path, const char *name)
{
	_cleanup_free_ char *line = NULL, *lead = NULL;
	size_t cap = 0;
	FILE *f = fopen(path, "re");
	char *s = NULL;

	if (f == NULL)
		return sbx_xstrdup("");
	lead = sbx_xasprintf("sbxrun profile \"%s\": ", name);
	while (getline(&line, &cap, f) > 0) {
		char *t = line;

		while (isspace((unsigned char)*t))
			t++;
		if (*t == '\0')
			continue;
		if (*t != ';' && *t != '#')
			break;
		while (*t == ';' || *t == '#' || isspace((unsigned char)*t))
			t++;
		if (*t == '\0')
			continue;
		if (sbx_str_has_prefix(t, lead))
			t += strlen(lead);
		s = sbx_xstrdup(t);
		rstrip(s);
		break;
	}
	fclose(f);
	return s ? s : sbx_xstrdup("");
}

static int
entry_cmp(const void *a, const void *b)
{
	const struct sbx_profile_entry *x = a, *y = b;
	int r = strcmp(x->name, y->name);

	if (r != 0)
		return r;
	/* For one name, the one that wins first. */
	return (int)x->shadowed - (int)y->shadowed;
}

void
sbx_profile_list(const char *const *dirs, struct sbx_profile_list *out)
{
	struct sbx_strv seen = { 0 };

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; dirs[i]; i++) {
		DIR *d = opendir(dirs[i]);
		struct dirent *e;
		struct sbx_strv names = { 0 };

		if (d == NULL)
			continue;
		while ((e = readdir(d)) != NULL) {
			size_t len = strlen(e->d_name);

			if (len > 4 && sbx_str_has_suffix(e->d_name, ".ini"))
				sbx_strv_push_take(&names, sbx_xstrndup(e->d_name, len - 4));
		}
		closedir(d);
		for (size_t k = 0; k < names.n; k++) {
			char *path;

			if (!name_ok(names.v[k]))
				continue;
			/* What sbx_profile_find() asks of a candidate. */
			path = sbx_xasprintf("%s/%s.ini", dirs[i], names.v[k]);
			if (access(path, R_OK) != 0) {
				free(path);
				continue;
			}
			out->v = sbx_xreallocarray(out->v, out->n + 1, sizeof(*out->v));
			out->v[out->n++] = (struct sbx_profile_entry){
				.name = sbx_xstrdup(names.v[k]),
				.path = path,
				.summary = read_summary(path, names.v[k]),
				.shadowed = sbx_strv_contains(&seen, names.v[k]),
			};
			if (!out->v[out->n - 1].shadowed)
				sbx_strv_push(&seen, names.v[k]);
		}
		sbx_strv_free(&names);
	}
	sbx_strv_free(&seen);
	/* A stable sort, by hand (the lists are short), so that the shadowed
	 * entries of one name stay in the lookup order. */
	for (size_t i = 1; i < out->n; i++)
		for (size_t j = i; j > 0 && entry_cmp(&out->v[j - 1], &out->v[j]) > 0; j--) {
			struct sbx_profile_entry t = out->v[j];

			out->v[j] = out->v[j - 1];
			out->v[j - 1] = t;
		}
}

void
sbx_profile_list_free(struct sbx_profile_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].name);
		free(l->v[i].path);
		free(l->v[i].summary);
	}
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* s with control bytes as '?', so a file name cannot move the cursor. */
static char *
shown(const char *s)
{
	char *t = sbx_xstrdup(s);

	for (char *c = t; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f)
			*c = '?';
	return t;
}

char *
sbx_profile_list_render(const struct sbx_profile_list *l, const char *const *dirs)
{
	struct sbx_buf b = { 0 };
	int wname = 4, wpath = 4;

	if (l->n == 0) {
		sbx_buf_puts(&b, "no profiles in");
		for (size_t i = 0; dirs[i]; i++)
			sbx_buf_printf(&b, "%s %s", i ? "," : "", dirs[i]);
		sbx_buf_putc(&b, '\n');
		return sbx_buf_steal(&b);
	}
	for (size_t i = 0; i < l->n; i++) {
		if ((int)strlen(l->v[i].name) > wname)
			wname = (int)strlen(l->v[i].name);
		if ((int)strlen(l->v[i].path) > wpath)
			wpath = (int)strlen(l->v[i].path);
	}
	sbx_buf_printf(&b, "%-*s  %-*s  %s\n", wname, "NAME", wpath, "FILE", "DESCRIPTION");
	for (size_t i = 0; i < l->n; i++) {
		_cleanup_free_ char *name = shown(l->v[i].name), *path = shown(l->v[i].path),
				    *summary = shown(l->v[i].summary);

		if (l->v[i].shadowed)
			sbx_buf_printf(&b, "%-*s  %-*s  (shadowed by the file above)\n", wname, "",
			    wpath, path);
		else
			sbx_buf_printf(&b, "%-*s  %-*s  %s\n", wname, name, wpath, path, summary);
	}
	/* No trailing blanks on a line without a summary. */
	{
		char *src = b.data, *dst = b.data;

		for (; *src; src++) {
			if (*src == '\n')
				while (dst > b.data && dst[-1] == ' ')
					dst--;
			*dst++ = *src;
		}
		*dst = '\0';
		b.len = (size_t)(dst - b.data);
	}
	return sbx_buf_steal(&b);
}
