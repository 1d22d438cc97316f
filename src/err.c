#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

void
sbx_err_setf(struct sbx_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return;
	err->errnum = errnum;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
}

void
sbx_err_sysf(struct sbx_err *err, const char *fmt, ...)
{
	int saved = errno;
	size_t len;
	va_list ap;

	if (err == NULL)
		return;
	err->errnum = saved;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(saved));
	errno = saved;
}

void
sbx_err_wrapf(struct sbx_err *err, const char *fmt, ...)
{
	char prefix[SBX_ERR_MSG], old[SBX_ERR_MSG];
	va_list ap;

	if (err == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old);
}
