#include "config.h"

#include <stdarg.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "util.h"

void *
sbx_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (p == NULL)
		abort();
	return p;
}

void *
sbx_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);

	if (p == NULL)
		abort();
	return p;
}

void *
sbx_xreallocarray(void *p, size_t n, size_t size)
{
	void *q;

#ifndef HAVE_REALLOCARRAY
	if (size && n > SIZE_MAX / size)
		abort();
	q = realloc(p, (n ? n : 1) * (size ? size : 1));
#else
	q = reallocarray(p, n ? n : 1, size ? size : 1);
#endif

	if (q == NULL)
		abort();
	return q;
}

char *
sbx_xstrdup(const char *s)
{
	char *p = strdup(s);

	if (p == NULL)
		abort();
	return p;
}

char *
sbx_xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);

	if (p == NULL)
		abort();
	return p;
}

char *
sbx_xasprintf(const char *fmt, ...)
{
	char *p;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&p, fmt, ap) < 0)
		abort();
	va_end(ap);
	return p;
}

/* The array holds n entries and a NULL in strv_cap(n) slots: a power of
 * two, at least 4, so a list of n entries costs log2(n) reallocations
 * instead of n. Growing one slot at a time moved the array at almost
 * every push (the strings pushed in between take the space after it)
 * and left a trail of freed copies on the heap: ~30 KB of a run's peak
 * (doc/design/startup.md, "Memory"). Only this file allocates the
 * array, and a list only ever shrinks below that size, never grows past
 * it, elsewhere. */
static size_t
strv_cap(size_t n)
{
	size_t cap = 4;

	while (cap < n + 1)
		cap *= 2;
	return cap;
}

void
sbx_strv_push_take(struct sbx_strv *sv, char *s)
{
	size_t cap = strv_cap(sv->n);

	if (sv->v == NULL)
		sv->v = sbx_xreallocarray(NULL, strv_cap(sv->n + 1), sizeof(*sv->v));
	else if (sv->n + 2 > cap)
		sv->v = sbx_xreallocarray(sv->v, cap * 2, sizeof(*sv->v));
	sv->v[sv->n++] = s;
	sv->v[sv->n] = NULL;
}

void
sbx_strv_push(struct sbx_strv *sv, const char *s)
{
	sbx_strv_push_take(sv, sbx_xstrdup(s));
}

bool
sbx_strv_contains(const struct sbx_strv *sv, const char *s)
{
	for (size_t i = 0; i < sv->n; i++)
		if (strcmp(sv->v[i], s) == 0)
			return true;
	return false;
}

void
sbx_strv_copy(struct sbx_strv *dst, const struct sbx_strv *src)
{
	for (size_t i = 0; i < src->n; i++)
		sbx_strv_push(dst, src->v[i]);
}

void
sbx_strv_free(struct sbx_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

void
sbx_buf_add(struct sbx_buf *b, const void *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;

		while (cap < b->len + n + 1)
			cap *= 2;
		b->data = sbx_xreallocarray(b->data, cap, 1);
		b->cap = cap;
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
sbx_buf_puts(struct sbx_buf *b, const char *s)
{
	sbx_buf_add(b, s, strlen(s));
}

void
sbx_buf_putc(struct sbx_buf *b, char c)
{
	sbx_buf_add(b, &c, 1);
}

void
sbx_buf_printf(struct sbx_buf *b, const char *fmt, ...)
{
	char *s;
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		abort();
	sbx_buf_add(b, s, (size_t)n);
	free(s);
}

char *
sbx_str_escaped(const char *s)
{
	struct sbx_buf b = { 0 };

	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			sbx_buf_printf(&b, "\\x%02x", *c);
		else
			sbx_buf_putc(&b, (char)*c);
	return sbx_buf_steal(&b);
}

char *
sbx_buf_steal(struct sbx_buf *b)
{
	char *p = b->data ? b->data : sbx_xstrdup("");

	b->data = NULL;
	b->len = b->cap = 0;
	return p;
}

void
sbx_buf_free(struct sbx_buf *b)
{
	free(b->data);
	b->data = NULL;
	b->len = b->cap = 0;
}

bool
sbx_path_is_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return path[0] == '/';
	while (n > 1 && dir[n - 1] == '/')
		n--;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

char *
sbx_path_join(const char *a, const char *b)
{
	size_t n = strlen(a);

	while (*b == '/')
		b++;
	if (n > 0 && a[n - 1] == '/')
		return sbx_xasprintf("%s%s", a, b);
	return sbx_xasprintf("%s/%s", a, b);
}

bool
sbx_str_has_prefix(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

bool
sbx_str_has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && strcmp(s + n - m, suffix) == 0;
}

int
sbx_poll_timeout(uint64_t now, const uint64_t *at, size_t n)
{
	uint64_t next = 0;

	for (size_t i = 0; i < n; i++)
		if (at[i] && (next == 0 || at[i] < next))
			next = at[i];
	if (next == 0)
		return -1;
	if (next <= now)
		return 0;
	return next - now > INT_MAX ? INT_MAX : (int)(next - now);
}
