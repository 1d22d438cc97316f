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

/* The three below are macros around the functions that do the work, so
 * that their value, always -1, is visible where they are used: callers
 * write "return sbx_err_set(err, ...)", and the static analyzer (make
 * check-analyzer) then knows that such a path fails, instead of guessing
 * that it might return 0 with the outputs unset. A NULL err is allowed. */

/* Fills err with a formatted message and errnum; evaluates to -1. */
#define sbx_err_set(...) \
	({ \
		sbx_err_setf(__VA_ARGS__); \
		-1; \
	})

/* Same as sbx_err_set, appending ": strerror(errno)" for the current
 * errno; evaluates to -1. */
#define sbx_err_sys(...) \
	({ \
		sbx_err_sysf(__VA_ARGS__); \
		-1; \
	})

/* Prefixes the message already in err with a formatted context string;
 * evaluates to -1. */
#define sbx_err_wrap(...) \
	({ \
		sbx_err_wrapf(__VA_ARGS__); \
		-1; \
	})

/* The functions behind sbx_err_set, sbx_err_sys and sbx_err_wrap. */
void sbx_err_setf(struct sbx_err *err, int errnum, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void sbx_err_sysf(struct sbx_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void sbx_err_wrapf(struct sbx_err *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
