/* The primitives every supervisor of seccomp notifications uses to reach
 * the process a notification names: its memory and its descriptors
 * (linux-notify.h). Each runs with the calling thread's rights; the
 * callers drop before they use them (doc/design/supervisor.md). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "linux-notify.h"

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL /* Linux 6.9 */
#endif

/* How the sandbox's memory is reached: process_vm_readv/writev until they
 * are refused once (Docker's default seccomp profile answers EPERM to
 * both), then /proc/PID/mem for the rest of the run. Opening that file is
 * checked against the thread's filesystem ids (the metadata supervisor
 * takes the sandbox's around its work), the calls are not. */
static _Atomic bool use_proc_mem;

static bool
vm_refused(void)
{
	return errno == EPERM || errno == ENOSYS;
}

static int
proc_mem_rw(int pid, uint64_t addr, void *buf, size_t len, bool write)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	fd = open(path, (write ? O_WRONLY : O_RDONLY) | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = write ? pwrite(fd, buf, len, (off_t)addr) : pread(fd, buf, len, (off_t)addr);
	close(fd);
	return n == (ssize_t)len ? 0 : -1;
}

int
sbx_notify_mem_open(int pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/mem", pid);
	return open(path, O_WRONLY | O_CLOEXEC);
}

int
sbx_notify_poke(int mem, uint64_t addr, const void *buf, size_t len)
{
	if (mem < 0 || addr > (uint64_t)INT64_MAX)
		return -1;
	return pwrite(mem, buf, len, (off_t)addr) == (ssize_t)len ? 0 : -1;
}

int
sbx_notify_peek(int pid, uint64_t addr, void *buf, size_t len)
{
	struct iovec local = { .iov_base = buf, .iov_len = len };
	struct iovec remote = { .iov_base = (void *)(uintptr_t)addr, .iov_len = len };

	if (len == 0)
		return 0;
	if (!use_proc_mem) {
		if (process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len)
			return 0;
		if (!vm_refused())
			return -1;
		use_proc_mem = true;
	}
	return proc_mem_rw(pid, addr, buf, len, false);
}

int
sbx_notify_tgid(int pid)
{
	char path[64], line[128];
	FILE *f;
	int tgid = -1;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "Tgid: %d", &tgid) == 1)
			break;
	if (f)
		fclose(f);
	return tgid;
}

/* The pidfd of the last thread whose descriptor this thread took: the
 * trapped calls of a run come in bursts from one thread (chmod -R, tar),
 * and a pidfd per call was two of the twenty system calls a metadata call
 * costs the supervisor. A pidfd names one task, never a number: once
 * that task has exited, pidfd_getfd() on it fails (ESRCH) even when its
 * thread id was given to another, so a stale one cannot reach the wrong
 * process; any failure is retried with a fresh pidfd, whose answer is the
 * one the caller gets. */
static _Thread_local int cached_pidfd = -1;
static _Thread_local int cached_pid = -1;

static int
pidfd_of(int pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD);

	if (pidfd < 0 && errno == EINVAL) {
		int tgid = sbx_notify_tgid(pid);

		if (tgid > 0)
			pidfd = (int)syscall(SYS_pidfd_open, tgid, 0);
	}
	return pidfd;
}

void
sbx_notify_forget(void)
{
	if (cached_pidfd >= 0)
		close(cached_pidfd);
	cached_pidfd = cached_pid = -1;
}

/* The caller's socket, through a pidfd of the calling thread (a thread
 * with its own fd table needs PIDFD_THREAD, Linux 6.9; before that the
 * thread group leader's table is the one there is). */
int
sbx_notify_take_fd(int pid, int fd)
{
	int pidfd, sock;

	if (cached_pid == pid && cached_pidfd >= 0) {
		sock = (int)syscall(SYS_pidfd_getfd, cached_pidfd, fd, 0);
		if (sock >= 0)
			return sock;
	}
	sbx_notify_forget();
	pidfd = pidfd_of(pid);
	if (pidfd < 0)
		return -1;
	sock = (int)syscall(SYS_pidfd_getfd, pidfd, fd, 0);
	cached_pidfd = pidfd;
	cached_pid = pid;
	return sock;
}

int
sbx_notify_reopen_fd(int pid, int fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
	return open(path, O_PATH | O_CLOEXEC);
}

int
sbx_notify_alloc(struct seccomp_notif **req, struct seccomp_notif_resp **resp)
{
	struct seccomp_notif_sizes sizes;
	size_t rq, rs;

	if (syscall(SYS_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sizes) < 0)
		return -1;
	/* At least our own structures: the handlers fill them. */
	rq = sizes.seccomp_notif > sizeof(**req) ? sizes.seccomp_notif : sizeof(**req);
	rs = sizes.seccomp_notif_resp > sizeof(**resp) ? sizes.seccomp_notif_resp : sizeof(**resp);
	*req = calloc(1, rq);
	*resp = calloc(1, rs);
	if (*req == NULL || *resp == NULL) {
		free(*req);
		free(*resp);
		*req = NULL;
		*resp = NULL;
		errno = ENOMEM;
		return -1;
	}
	return 0;
}
