/* The parts of the launcher that are the same on every OS: how a child
 * reports a failure before exec, and how sbxrun reads it. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "launch.h"

void
sbx_write_all(int fd, const void *p, size_t n)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		c += w;
		n -= (size_t)w;
	}
}

noreturn void
sbx_child_fail(int fd, int kind, const struct sbx_err *err)
{
	struct sbx_child_msg m = { .kind = kind, .errnum = err->errnum };

	snprintf(m.msg, sizeof(m.msg), "%s", err->msg);
	sbx_write_all(fd, &m, sizeof(m));
	_exit(kind == SBX_FAIL_EXEC ? (err->errnum == ENOENT ? 127 : 126) : 125);
}

int
sbx_launch_wait_exec(int err_fd, int *status, struct sbx_err *err)
{
	struct sbx_child_msg m;
	ssize_t n;

	do
		n = read(err_fd, &m, sizeof(m));
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return 0;
	if ((size_t)n != sizeof(m))
		return sbx_err_set(err, EIO, "the jail failed to start (short message)");
	m.msg[sizeof(m.msg) - 1] = '\0';
	if (m.kind == SBX_FAIL_EXEC) {
		*status = m.errnum == ENOENT ? 127 : 126;
		sbx_err_set(err, m.errnum, "%s", m.msg);
		return 1;
	}
	return sbx_err_set(err, m.errnum, "%s", m.msg);
}
