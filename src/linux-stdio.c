/* The copier: one thread of sbxrun, started after the spawn when there is
 * output to copy or standard input the pipe did not take at once, and
 * stopped once the tree is gone. Its ends of the pipes are non-blocking and are
 * file descriptions of its own (the sandbox holds the other ends, whose
 * flags it may change at will), so nothing the sandbox does makes it
 * wait: it sleeps in poll() only, and the end of the run stops it through
 * a pipe of its own. Only the caller's file may make it wait, as it would
 * make any writer wait. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/kcmp.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "launch.h"
#include "linux-stdio.h"

#define RELAY_BUF 65536
#define PIPE_SIZE (1 << 20)
/* How many reads the final drain makes at most: the tree is gone, so only
 * what the pipe holds is left, unless a descriptor leaked out of it. */
#define DRAIN_MAX 64
/* The copier's stack: it calls poll, read and write, allocates nothing
 * (its buffers come from sbxrun's main thread) and never recurses. */
#define COPIER_STACK (64 * 1024)

/* A socket too: handed down, it let the sandbox shutdown(2) the caller's
 * socket for writing, so sbxrun's diagnostics line failed (EPIPE) after a
 * forged one and the caller's own later writes failed as well. A
 * listening socket stays as it is: the sandbox is meant to accept on it
 * (inetd's "wait" services), and nothing goes through it to copy. */
static bool
needs_relay(int fd, struct stat *st)
{
	int listening = 0;
	socklen_t len = sizeof(listening);

	if (fstat(fd, st) < 0)
		return false;
	if (S_ISSOCK(st->st_mode))
		return getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) < 0 ||
		    !listening;
	return S_ISREG(st->st_mode) || S_ISDIR(st->st_mode) || S_ISBLK(st->st_mode);
}

/* Whether fds 1 and 2 are one open file description (2>&1): kcmp(2)
 * says so exactly; without it the same inode is taken as the same. */
static bool
same_description(const struct stat *a, const struct stat *b)
{
	pid_t self = getpid();
	long r = syscall(SYS_kcmp, self, self, KCMP_FILE, 1, 2);

	if (r >= 0)
		return r == 0;
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

static void
chan_close(struct sbx_relay_chan *c)
{
	if (c->ours >= 0)
		close(c->ours);
	c->ours = -1;
	c->done = true;
}

int
sbx_relay_setup(struct sbx_relay *r, uint64_t file_cap, struct sbx_err *err)
{
	struct stat st[3];
	bool want[3];

	memset(r, 0, sizeof(*r));
	r->stop[0] = r->stop[1] = -1;
	r->armed = true;
	for (int fd = 0; fd < 3; fd++)
		want[fd] = needs_relay(fd, &st[fd]);
	if (want[1] && want[2] && same_description(&st[1], &st[2])) {
		want[2] = false;
		r->stdout_shared = true;
	}
	for (int fd = 0; fd < 3; fd++) {
		struct sbx_relay_chan *c = &r->ch[r->n];
		int p[2];

		if (!want[fd])
			continue;
		if (sbx_pipe_cloexec(p) < 0) {
			sbx_err_sys(err, "cannot make a pipe for standard descriptor %d", fd);
			sbx_relay_finish(r);
			return -1;
		}
		*c = (struct sbx_relay_chan){
			.std = fd, .ours = fd == 0 ? p[1] : p[0], .theirs = fd == 0 ? p[0] : p[1]
		};
		c->orig = fcntl(fd, F_DUPFD_CLOEXEC, 3);
		c->also_stderr = fd == 1 && r->stdout_shared;
		c->cap = fd != 0 && S_ISREG(st[fd].st_mode) ? file_cap : 0;
		c->sock = S_ISSOCK(st[fd].st_mode);
		r->n++;
		if (c->orig < 0) {
			sbx_err_sys(err, "cannot keep standard descriptor %d", fd);
			sbx_relay_finish(r);
			return -1;
		}
		fcntl(c->ours, F_SETFL, fcntl(c->ours, F_GETFL) | O_NONBLOCK);
		/* Fewer wakeups for bulk output; the default stays if refused. */
		fcntl(c->ours, F_SETPIPE_SZ, PIPE_SIZE);
	}
	if (r->n == 0)
		return 0;
	for (size_t i = 0; i < r->n; i++) {
		struct sbx_relay_chan *c = &r->ch[i];

		if (dup2(c->theirs, c->std) < 0 || (c->also_stderr && dup2(c->theirs, 2) < 0)) {
			sbx_err_sys(err, "cannot put a pipe on standard descriptor %d", c->std);
			r->swapped = true;
			sbx_relay_finish(r);
			return -1;
		}
	}
	r->swapped = true;
	return 0;
}

/* sbxrun's standard descriptors back to the caller's files; the sandbox's
 * ends are then held by the tree alone, so its exit is our EOF. */
static void
unswap(struct sbx_relay *r)
{
	for (size_t i = 0; i < r->n; i++) {
		struct sbx_relay_chan *c = &r->ch[i];

		if (r->swapped) {
			dup2(c->orig, c->std);
			if (c->also_stderr)
				dup2(c->orig, 2);
		}
		if (c->theirs >= 0)
			close(c->theirs);
		c->theirs = -1;
	}
	r->swapped = false;
}

/* Moves what the pipe holds to the caller's file: >0 bytes moved, 0 at
 * EOF, -1 when the pipe is empty for now, -2 when the file refused. By
 * read and write, never splice: splice(2) into a file reads and sets the
 * description's offset without the lock write(2) takes, so a write by
 * anyone else sharing that description (sbxrun's own lines, the caller's
 * other processes on the same log) at the same moment was overwritten. */
/* How many of n bytes may go to the caller's regular file under the
 * file-size limit: as RLIMIT_FSIZE, the bound is on the position a write
 * would reach (the end, for a file opened for appending). */
static size_t
under_cap(struct sbx_relay_chan *c, size_t n)
{
	struct stat st;
	int fl = fcntl(c->orig, F_GETFL);
	off_t pos = fl >= 0 && (fl & O_APPEND) ? (fstat(c->orig, &st) == 0 ? st.st_size : -1)
					       : lseek(c->orig, 0, SEEK_CUR);

	if (pos < 0)
		pos = 0;
	if ((uint64_t)pos >= c->cap) {
		c->capped = true;
		return 0;
	}
	if ((uint64_t)pos + n > c->cap) {
		c->capped = true;
		return (size_t)(c->cap - (uint64_t)pos);
	}
	return n;
}

static ssize_t
out_step(struct sbx_relay_chan *c, char *buf)
{
	ssize_t n = read(c->ours, buf, RELAY_BUF), take;

	if (n < 0)
		return errno == EAGAIN || errno == EINTR ? -1 : -2;
	take = c->cap && n > 0 ? (ssize_t)under_cap(c, (size_t)n) : n;
	for (ssize_t off = 0; off < take;) {
		/* A socket whose reader is gone raises SIGPIPE on write(2),
		 * and the final drain runs on sbxrun's main thread. */
		ssize_t w = c->sock ? send(c->orig, buf + off, (size_t)(take - off), MSG_NOSIGNAL)
				    : write(c->orig, buf + off, (size_t)(take - off));

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN) {
			/* The caller's own socket is non-blocking: wait as a
			 * blocking write would have. */
			struct pollfd pf = { .fd = c->orig, .events = POLLOUT };

			if (poll(&pf, 1, -1) < 0 && errno != EINTR)
				return -2;
			continue;
		}
		if (w <= 0) {
			/* Said after the run (a full disk, a file-size limit of
			 * the caller's): a direct write would have failed too.
			 * A reader gone (EPIPE) is a pipeline's usual end. */
			if (w < 0 && errno != EPIPE && c->werr == 0)
				c->werr = errno;
			return -2;
		}
		off += w;
	}
	/* At the limit: the pipe closes, and the sandbox's next write fails
	 * (EPIPE), as one past RLIMIT_FSIZE would (EFBIG). */
	return c->capped ? -2 : n;
}

/* Feeds the sandbox's stdin from the caller's file: false once done.
 * Reads at most budget bytes: while the sandbox drains the pipe as fast
 * as it fills, only the file's end or the budget ends the loop (a file
 * the sandbox can write, given as stdin, can be made to grow forever, or
 * extended by a terabyte of holes). */
static bool
in_step(struct sbx_relay_chan *c, char *buf, size_t budget)
{
	for (size_t got = 0;;) {
		ssize_t n;

		if (c->off == c->len) {
			if (got >= budget)
				return true;
			/* A socket may have nothing yet: never wait in read(2),
			 * where neither the stop pipe nor the end of the run
			 * reaches the copier (nor, at the start, the main
			 * thread); the copier polls the socket instead. */
			n = c->sock ? recv(c->orig, buf, RELAY_BUF, MSG_DONTWAIT)
				    : read(c->orig, buf, RELAY_BUF);
			if (n < 0 && errno == EINTR)
				continue;
			c->wait_in = n < 0 && c->sock && (errno == EAGAIN || errno == EWOULDBLOCK);
			if (c->wait_in)
				return true;
			if (n <= 0)
				return false; /* EOF (or EISDIR): the sandbox sees EOF */
			c->off = 0;
			c->len = (size_t)n;
			got += (size_t)n;
		}
		n = write(c->ours, buf + c->off, c->len - c->off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN; /* EPIPE: nobody reads any more */
		c->off += (size_t)n;
	}
}

static void *
copier(void *arg)
{
	struct sbx_relay *r = arg;
	char *const *buf = r->buf;
	const size_t nch = r->n; /* fixed while the relay runs */

	for (;;) {
		struct pollfd pfd[4];
		size_t map[4], np = 0;

		for (size_t i = 0; i < nch; i++) {
			struct sbx_relay_chan *c = &r->ch[i];

			if (c->done)
				continue;
			if (c->std == 0 && c->off == c->len && !in_step(c, buf[i], SIZE_MAX)) {
				chan_close(c);
				continue;
			}
			pfd[np] = c->wait_in ? (struct pollfd){ .fd = c->orig, .events = POLLIN }
					     : (struct pollfd){ .fd = c->ours,
						       .events = c->std == 0 ? POLLOUT : POLLIN };
			map[np++] = i;
		}
		pfd[np] = (struct pollfd){ .fd = r->stop[0], .events = POLLIN };
		if (poll(pfd, np + 1, -1) < 0 && errno != EINTR)
			break;
		if (pfd[np].revents)
			break;
		for (size_t k = 0; k < np; k++) {
			struct sbx_relay_chan *c = &r->ch[map[k]];

			if (pfd[k].revents == 0)
				continue;
			if (c->std == 0) {
				/* Waiting on the socket, its POLLHUP is its end,
				 * which the read below sees after what it holds. */
				if ((!c->wait_in && (pfd[k].revents & (POLLERR | POLLHUP))) ||
				    !in_step(c, buf[map[k]], SIZE_MAX))
					chan_close(c);
				continue;
			}
			for (int burst = 0; burst < 16; burst++) {
				ssize_t n = out_step(c, buf[map[k]]);

				if (n == -1)
					break;
				if (n == 0 || n == -2) {
					/* EOF; or the file refused: the sandbox gets EPIPE. */
					chan_close(c);
					break;
				}
			}
		}
	}
	return NULL;
}

/* Whether a copier thread has anything left to do: output to copy, or
 * standard input the pipe could not take at once. */
static bool
copier_needed(const struct sbx_relay *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (!r->ch[i].done)
			return true;
	return false;
}

int
sbx_relay_start(struct sbx_relay *r, struct sbx_err *err)
{
	pthread_attr_t attr;
	sigset_t all, old;
	int e;

	if (r->n == 0) {
		unswap(r);
		return 0;
	}
	for (size_t i = 0; i < r->n; i++)
		r->buf[i] = sbx_xmalloc(RELAY_BUF);
	/* Standard input as far as the pipe takes it, here: a script that
	 * fits (most do) reaches the sandbox followed by its end, as the
	 * copier would have passed it, and needs no thread. Done while
	 * sbxrun still holds the pipe's read end (unswap closes it), so a
	 * sandbox that closed its own cannot make this write raise SIGPIPE;
	 * the write end is non-blocking, so it cannot make it wait, and at
	 * most a pipe's worth is read here: a sandbox that drains the pipe
	 * as fast as it fills (and can make its stdin file grow) would keep
	 * the main thread here, where no timeout or signal ends the run. The
	 * rest is the copier's. */
	for (size_t i = 0; i < r->n; i++) {
		struct sbx_relay_chan *c = &r->ch[i];

		if (c->std == 0 && !in_step(c, r->buf[i], PIPE_SIZE))
			chan_close(c);
	}
	unswap(r);
	if (!copier_needed(r))
		return 0;
	if (sbx_pipe_cloexec(r->stop) < 0)
		return sbx_err_sys(err, "pipe");
	/* Every signal blocked from its first instruction (EPIPE, never
	 * SIGPIPE's end): a thread starts with its creator's mask. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	e = pthread_attr_init(&attr);
	if (e == 0) {
		pthread_attr_setstacksize(&attr, COPIER_STACK);
		e = pthread_create(&r->thread, &attr, copier, r);
		pthread_attr_destroy(&attr);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		errno = e;
		return sbx_err_sys(err, "cannot start the standard-descriptor copier");
	}
	r->running = true;
	return 0;
}

void
sbx_relay_finish(struct sbx_relay *r)
{
	char *buf, *own = NULL;

	if (!r->armed)
		return;
	unswap(r);
	if (r->running) {
		sbx_write_all(r->stop[1], "x", 1);
		pthread_join(r->thread, NULL);
		r->running = false;
	}
	buf = r->buf[0];
	if (buf == NULL && r->n)
		buf = own = sbx_xmalloc(RELAY_BUF);
	for (size_t i = 0; i < r->n; i++) {
		struct sbx_relay_chan *c = &r->ch[i];

		for (int k = 0; c->std != 0 && !c->done && k < DRAIN_MAX; k++)
			if (out_step(c, buf) <= 0)
				break;
		chan_close(c);
		if (c->orig >= 0)
			close(c->orig);
		c->orig = -1;
		if (c->capped) {
			r->capped |= 1u << c->std;
			r->cap = c->cap;
		}
		r->werr[c->std] = c->werr;
		if (c->also_stderr)
			r->werr[2] = c->werr;
	}
	free(own);
	for (size_t i = 0; i < 3; i++) {
		free(r->buf[i]);
		r->buf[i] = NULL;
	}
	for (int k = 0; k < 2; k++) {
		if (r->stop[k] >= 0)
			close(r->stop[k]);
		r->stop[k] = -1;
	}
	r->n = 0;
	r->armed = false;
}
