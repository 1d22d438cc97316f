/* The trace of one run (--trace FILE, sbxrun(1)): what the sandbox
 * touched, one JSON object a line. This part is pure: the events, their
 * text, the noise rule, the file. Where the events come from is the
 * system layer's matter (linux-trace.h). doc/design/tracing.md says more.
 *
 * The file is made fresh for each run and appears under its name only
 * when the run ends (sbx_trace_finish): while the run lasts it has no
 * name the sandbox could reach, and a finished trace replaces whatever
 * the name held before in one rename, so no run ever reads or extends
 * another's events. */
#ifndef SBX_TRACE_H
#define SBX_TRACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#include "err.h"

enum sbx_trace_kind {
	SBX_TRACE_READ,
	SBX_TRACE_WRITE,
	SBX_TRACE_EXEC,
	SBX_TRACE_CONNECT,
	SBX_TRACE_BIND,
	SBX_TRACE_DNS,
	SBX_TRACE_PROXY,
	SBX_TRACE_DENIED,
};

/* One event. Every pointer is only read during sbx_trace_emit(); any of
 * them may be NULL, and each string may hold any bytes (they come from
 * the sandbox): the writer escapes them into valid JSON. */
struct sbx_trace_event {
	enum sbx_trace_kind kind;
	int pid; /* in sbxrun's pid namespace; <= 0: unknown (null) */
	const char *op; /* "open", "unlink", "rename", "connect", "send", ... */
	const char *path;
	const char *to; /* rename, link, symlink: the second path */
	const char *flags; /* open flags in words */
	const char *const *argv; /* exec */
	size_t argc;
	bool argv_cut; /* argv was longer than the trace keeps */
	const char *addr;
	int port; /* < 0: none */
	const char *name; /* dns: the name asked */
	const char *qtype; /* dns: "A", "AAAA", ... */
	const char *via; /* dns: "query" or "proxy" */
	const char *host; /* proxy */
	const char *decision; /* proxy: "allowed" or "refused" */
	const char *rule; /* denied, proxy refusals: why */
	bool has_result;
	int result; /* 0 or -errno, when has_result */
	bool observed; /* let through as the kernel would, not made by sbxrun */
	bool unread; /* a path of the call could not be read (null in the event) */
};

struct sbx_trace;

/* Makes the trace for path: a new file, mode 0600, of no name yet (or a
 * fresh hidden name next to path where the filesystem cannot make a file
 * without one), in path's directory opened now, walked as a mount
 * source is (sbx_open_dir_walked(); wd: the workdir, or NULL). all: keep
 * the noise. */
int sbx_trace_open(
    const char *path, bool all, const struct stat *wd, struct sbx_trace **out, struct sbx_err *err);

/* The command sbxrun itself executes in the jail (argv, NULL-terminated,
 * kept by reference): its exec is written from here when the call's own
 * arguments cannot be read (before that exec a root caller's payload under
 * landlock is not dumpable, so its memory is out of the supervisor's
 * reach). */
void sbx_trace_set_command(struct sbx_trace *t, char *const *argv);

/* Bounds the file at cap bytes (0: none, the default): the events past
 * it are counted, not written. Set before the run. */
void sbx_trace_set_cap(struct sbx_trace *t, uint64_t cap);

/* How many events the bound kept out of the file. */
uint64_t sbx_trace_dropped(const struct sbx_trace *t);

/* An exec was trapped whose arguments could not be read (unread), or
 * that names nothing: before the command's own exec it is written as that
 * command; after it an unread one is written with a null path, since a
 * process that made itself not dumpable must not run programs unseen. */
void sbx_trace_exec_unread(struct sbx_trace *t, int pid, bool unread);

/* Writes one event (thread-safe). Reads under the system's own trees and
 * the loader's files are dropped unless all was asked; nothing else is. */
void sbx_trace_emit(struct sbx_trace *t, const struct sbx_trace_event *ev);

/* Whether a read of path is noise: the system's trees (/usr, /lib*,
 * /bin, /sbin, /proc, /sys), the devices every program opens, and the
 * dynamic loader's files. */
bool sbx_trace_noise(const char *path);

/* The open flags in words ("O_WRONLY|O_CREAT|O_TRUNC") into buf. */
const char *sbx_trace_open_flags(int flags, char *buf, size_t size);

/* Whether an open with these flags can change the file (a write). */
bool sbx_trace_open_writes(int flags);

/* The question of a DNS query in msg (len bytes): its name, dotted, into
 * name, and its type's mnemonic (or number) into qtype. -1 when msg is not
 * a standard query with one question. */
int sbx_dns_question(
    const unsigned char *msg, size_t len, char *name, size_t size, char *qtype, size_t qsize);

/* Whether the noise is kept (--trace-all). */
bool sbx_trace_all(const struct sbx_trace *t);

/* Events written so far. */
uint64_t sbx_trace_events(const struct sbx_trace *t);

/* Writes out what is buffered and gives the file its name, replacing
 * what the name held (never following a symbolic link there). No event
 * is taken after this. */
int sbx_trace_finish(struct sbx_trace *t, struct sbx_err *err);

/* Releases t; a trace never finished is removed. */
void sbx_trace_free(struct sbx_trace *t);

#endif
