#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "err.h"

int
sbx_err_set(struct sbx_err *err, int errnum, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	err->errnum = errnum;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int
sbx_err_sys(struct sbx_err *err, const char *fmt, ...)
{
	int saved = errno;
	size_t len;
	va_list ap;

	if (err == NULL)
		return -1;
	err->errnum = saved;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	len = strlen(err->msg);
	snprintf(err->msg + len, sizeof(err->msg) - len, ": %s", strerror(saved));
	errno = saved;
	return -1;
}

int
sbx_err_wrap(struct sbx_err *err, const char *fmt, ...)
{
	char prefix[SBX_ERR_MSG], old[SBX_ERR_MSG];
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old);
	return -1;
}
