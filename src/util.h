/* Small pure helpers shared by the core and the system layer: allocation,
 * cleanup attributes, growable string vectors and buffers. */
#ifndef SBX_UTIL_H
#define SBX_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>

#define SBX_ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

/* Marks one parameter that an implementation of an interface does not
 * need (a backend's hook, a table-driven setter, a callback), or a local
 * that exists only for its cleanup; the warnings build (configure
 * --enable-werror) reports every other one. */
#define SBX_UNUSED __attribute__((unused))

/* Allocation never fails from the caller's point of view: running out of
 * memory while building a jail is not recoverable, so these abort(). */
void *sbx_xmalloc(size_t n);
void *sbx_xcalloc(size_t n, size_t size);
void *sbx_xreallocarray(void *p, size_t n, size_t size);
char *sbx_xstrdup(const char *s);
char *sbx_xstrndup(const char *s, size_t n);
char *sbx_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline void
sbx_freep(void *p)
{
	free(*(void **)p);
}

static inline void
sbx_closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

#define _cleanup_free_ __attribute__((cleanup(sbx_freep)))
#define _cleanup_close_ __attribute__((cleanup(sbx_closep)))

/* Hands ownership of a cleanup-managed pointer or fd to the caller. */
#define steal_ptr(pp) \
	({ \
		__typeof__(*(pp)) _p = *(pp); \
		*(pp) = NULL; \
		_p; \
	})
#define steal_fd(fdp) \
	({ \
		int _fd = *(fdp); \
		*(fdp) = -1; \
		_fd; \
	})

/* A growable, owned vector of strings; v is NULL-terminated when n > 0. */
struct sbx_strv {
	char **v;
	size_t n;
};

void sbx_strv_push(struct sbx_strv *sv, const char *s);
void sbx_strv_push_take(struct sbx_strv *sv, char *s);
bool sbx_strv_contains(const struct sbx_strv *sv, const char *s);
void sbx_strv_copy(struct sbx_strv *dst, const struct sbx_strv *src);
void sbx_strv_free(struct sbx_strv *sv);

/* A growable byte buffer, always NUL-terminated. */
struct sbx_buf {
	char *data;
	size_t len;
	size_t cap;
};

void sbx_buf_add(struct sbx_buf *b, const void *p, size_t n);
void sbx_buf_puts(struct sbx_buf *b, const char *s);
void sbx_buf_putc(struct sbx_buf *b, char c);
void sbx_buf_printf(struct sbx_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *sbx_buf_steal(struct sbx_buf *b);
void sbx_buf_free(struct sbx_buf *b);

/* Path helpers (pure string operations, no filesystem access). */
bool sbx_path_is_under(const char *path, const char *dir); /* path == dir or below it */
char *sbx_path_join(const char *a, const char *b);
bool sbx_str_has_prefix(const char *s, const char *prefix);
bool sbx_str_has_suffix(const char *s, const char *suffix);
/* s with each control byte written as \xNN, for a one-line message. */
char *sbx_str_escaped(const char *s);

/* The poll(2) timeout in ms from now until the earliest of n instants (0:
 * not set), 0 when one has passed, or -1 when none is set; capped at
 * INT_MAX. */
int sbx_poll_timeout(uint64_t now, const uint64_t *at, size_t n);

#endif
