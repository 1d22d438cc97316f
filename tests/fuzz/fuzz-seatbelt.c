/* A libFuzzer target for the SBPL generator (src/seatbelt.c). The input
 * is a profile's text, then optionally a NUL and the filesystem view, one
 * path a line: the workdir, then the hidden paths. When the generator
 * accepts them, its text must read as SBPL made only of version, allow and
 * deny forms, every string literal closed on its line and free of control
 * characters (a path must never end a literal early and add a rule), and
 * every hidden path must be named in a "deny file-read* file-write*" form
 * that comes after every "allow file-..." form (the last match wins). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "profile.h"
#include "seatbelt.h"

FUZZ_TARGET(seatbelt);

struct form {
	char head[2][32]; /* the first two atoms */
	struct sbx_strv strings; /* every string literal in it, decoded */
};

static void __attribute__((noreturn)) bad(const char *why, const char *text, size_t at)
{
	fprintf(stderr, "sbpl: %s at offset %zu of:\n%s\n", why, at, text);
	abort();
}

/* Splits text into its top-level forms; aborts on anything malformed. */
static struct form *
forms(const char *text, size_t *nforms)
{
	struct form *v = NULL;
	size_t n = 0;
	int depth = 0, atoms = 0;

	for (const char *s = text; *s;) {
		if (*s == ';') {
			s += strcspn(s, "\n");
		} else if (*s == ' ' || *s == '\n' || *s == '\t') {
			s++;
		} else if (*s == '(') {
			if (depth == 0) {
				v = realloc(v, (n + 1) * sizeof(*v));
				memset(&v[n++], 0, sizeof(*v));
				atoms = 0;
			}
			depth++;
			s++;
		} else if (*s == ')') {
			if (depth == 0)
				bad("unbalanced ')'", text, (size_t)(s - text));
			depth--;
			s++;
		} else if (*s == '"' || (s[0] == '#' && s[1] == '"')) {
			struct sbx_buf b = { 0 };

			if (depth == 0)
				bad("a string outside a form", text, (size_t)(s - text));
			s += *s == '#' ? 2 : 1;
			for (; *s != '"'; s++) {
				if (*s == '\0' || (unsigned char)*s < 0x20 || *s == 0x7f)
					bad("an unclosed string or a control character", text,
					    (size_t)(s - text));
				if (*s == '\\')
					s++;
				if (*s == '\0' || (unsigned char)*s < 0x20)
					bad("a bad escape", text, (size_t)(s - text));
				sbx_buf_putc(&b, *s);
			}
			s++;
			sbx_buf_putc(&b, '\0');
			sbx_strv_push(&v[n - 1].strings, b.data);
			sbx_buf_free(&b);
		} else {
			size_t len = strcspn(s, " \t\n();\"");

			if (depth == 0)
				bad("an atom outside a form", text, (size_t)(s - text));
			if (depth == 1 && atoms < 2) {
				snprintf(v[n - 1].head[atoms], sizeof(v[n - 1].head[atoms]), "%.*s",
				    (int)len, s);
				atoms++;
			}
			s += len;
		}
	}
	if (depth != 0)
		bad("unbalanced '('", text, strlen(text));
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].head[0], "version") != 0 && strcmp(v[i].head[0], "allow") != 0 &&
		    strcmp(v[i].head[0], "deny") != 0)
			bad("a top-level form that is not version, allow or deny", text, 0);
	*nforms = n;
	return v;
}

static void
check(const char *text, const struct sbx_fsview *fs)
{
	size_t n, last_allow = 0;
	struct form *v = forms(text, &n);

	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i].head[0], "allow") == 0 && strncmp(v[i].head[1], "file-", 5) == 0)
			last_allow = i;
	for (size_t h = 0; h < fs->hidden.n; h++) {
		char *c = sbx_seatbelt_canon(fs->hidden.v[h]);
		bool found = false;

		for (size_t i = last_allow + 1; c && i < n && !found; i++) {
			if (strcmp(v[i].head[0], "deny") != 0 ||
			    strcmp(v[i].head[1], "file-read*") != 0)
				continue;
			for (size_t k = 0; k < v[i].strings.n && !found; k++)
				found = strcmp(v[i].strings.v[k], c) == 0;
		}
		if (c && !found) {
			fprintf(stderr, "hidden path %s (%s) is not denied after the allows\n",
			    fs->hidden.v[h], c);
			bad("a hidden path not denied last", text, 0);
		}
		free(c);
	}
	for (size_t i = 0; i < n; i++)
		sbx_strv_free(&v[i].strings);
	free(v);
}

FUZZ_TARGET(seatbelt)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	char *text = fuzz_strndup(data, tlen), *view = NULL, *line, *save = NULL;
	struct sbx_seatbelt_opts opts = { .proxy_port = tlen % 2 ? 3128 : 0 };
	struct sbx_fsview fs = { 0 };
	struct sbx_buf out = { 0 };
	struct sbx_err err = { 0 };
	struct sbx_policy p;

	sbx_policy_init(&p, FUZZ_HOME);
	if (sbx_profile_load_string(&p, "fuzz.ini", text, &err) < 0)
		goto out;
	view = nul ? fuzz_strndup(nul + 1, size - tlen - 1) : fuzz_strndup(NULL, 0);
	for (line = strtok_r(view, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		if (fs.workdir == NULL)
			fs.workdir = sbx_xstrdup(line);
		else
			sbx_strv_push(&fs.hidden, line);
	}
	if (fs.workdir == NULL)
		fs.workdir = sbx_xstrdup(FUZZ_HOME "/proj");
	sbx_strv_push(&fs.homes, FUZZ_HOME);
	sbx_strv_copy(&fs.read, &p.read);
	if (sbx_seatbelt_profile(&p, &fs, &opts, &out, &err) == 0)
		check(out.data, &fs);
out:
	sbx_buf_free(&out);
	sbx_fsview_free(&fs);
	sbx_policy_free(&p);
	free(view);
	free(text);
	return 0;
}
