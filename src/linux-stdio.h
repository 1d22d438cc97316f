/* The caller's files on the sandbox's standard descriptors. A descriptor
 * handed down shares its open file description, and through it the
 * sandbox could change the file's mode, times and attributes (fchmod,
 * futimens, fsetxattr judge the inode, not the path), or shut a socket
 * down. So a standard descriptor that is a regular file, a directory, a
 * block device or a socket (not a listening one) reaches the sandbox as a
 * pipe instead, and a thread of sbxrun copies between that pipe and the
 * caller's file; terminals, pipes and other character devices are handed
 * down as they are (see sbxrun(1)). */
#ifndef SBX_LINUX_STDIO_H
#define SBX_LINUX_STDIO_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "err.h"

struct sbx_relay_chan {
	int std; /* 0, 1 or 2 */
	int orig; /* sbxrun's copy of the caller's file, or -1 */
	int ours; /* sbxrun's end of the pipe, non-blocking */
	int theirs; /* the sandbox's end */
	bool also_stderr; /* fd 2 shares fd 1's file: one pipe for both */
	bool sock; /* the caller's file is a socket */
	bool wait_in; /* stdin: the socket had nothing; poll it, not the pipe */
	bool done;
	size_t off, len; /* stdin: what the buffer holds yet to be written */
	uint64_t cap; /* output to a regular file: the file-size limit, or 0 */
	bool capped; /* the copying stopped there */
	int werr; /* output: the errno of the write the caller's file refused, or 0 */
};

struct sbx_relay {
	struct sbx_relay_chan ch[3];
	size_t n;
	int stop[2];
	char *buf[3]; /* one per channel, allocated before the copier starts */
	pthread_t thread;
	bool armed; /* set up: finish has something to undo */
	bool swapped; /* fds 0-2 are the pipes right now */
	bool running;
	bool stdout_shared; /* fd 2 goes through fd 1's pipe */
	unsigned capped; /* after finish: bit N, fd N's copying stopped at cap */
	uint64_t cap;
	int werr[3]; /* after finish: why fd N's copying stopped early, or 0 */
};

/* Where sbxrun's own lines go: while fds 0-2 are the pipes (from setup to
 * start), the caller's file itself, so they keep their order with what
 * sbxrun says after the start instead of queueing behind the sandbox's
 * output; otherwise fd 2. */
static inline int
sbx_relay_stderr(const struct sbx_relay *r)
{
	for (size_t i = 0; r->swapped && i < r->n; i++)
		if (r->ch[i].std == 2 || r->ch[i].also_stderr)
			return r->ch[i].orig;
	return 2;
}

#ifdef __linux__
/* Before the spawn: each standard descriptor that needs it becomes a pipe
 * in sbxrun itself, so the children inherit the pipe. Returns -1 with err
 * when a pipe cannot be made (nothing changed then). file_cap: the
 * sandbox's file-size limit (0: none), which the copying into a regular
 * file holds as RLIMIT_FSIZE held the sandbox's own writes: past it the
 * pipe is closed (the sandbox gets EPIPE) and the channel is capped. */
int sbx_relay_setup(struct sbx_relay *r, uint64_t file_cap, struct sbx_err *err);

/* After the spawn (init holds the sandbox's ends): sbxrun's standard
 * descriptors are the caller's files again and the copying starts.
 * Standard input is first copied here, as far as the pipe takes it; when
 * that reaches the file's end and no output needs copying, no copier
 * thread is started at all. */
int sbx_relay_start(struct sbx_relay *r, struct sbx_err *err);

/* When the tree is gone: copies what the pipes still hold (bounded, it
 * never waits on the sandbox), stops the copier and closes everything.
 * Idempotent; also undoes a setup that was never started. */
void sbx_relay_finish(struct sbx_relay *r);
#else
static inline int
sbx_relay_setup(struct sbx_relay *r, uint64_t file_cap, struct sbx_err *err)
{
	(void)r, (void)file_cap, (void)err;
	return 0;
}
static inline int
sbx_relay_start(struct sbx_relay *r, struct sbx_err *err)
{
	(void)r, (void)err;
	return 0;
}
static inline void
sbx_relay_finish(struct sbx_relay *r)
{
	(void)r;
}
#endif

#endif
