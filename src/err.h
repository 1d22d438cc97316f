/* Caller-owned error record: every fallible function returns 0 or -1 and
 * fills one of these; only main.c turns it into a message and a status. */
#ifndef SBX_ERR_H
#define SBX_ERR_H

#include <errno.h>
#include <stdarg.h>

#define SBX_ERR_MSG 512

struct sbx_err {
	int errnum; /* errno at the failure, or 0 */
	char msg[SBX_ERR_MSG]; /* one line, no trailing newline */
};

/* Fills err with a formatted message and errnum; returns -1 so callers
 * can write "return sbx_err_set(err, ...)". A NULL err is allowed. */
int sbx_err_set(struct sbx_err *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Same as sbx_err_set, appending ": strerror(errno)" for the current errno. */
int sbx_err_sys(struct sbx_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Prefixes the message already in err with a formatted context string. */
int sbx_err_wrap(struct sbx_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
