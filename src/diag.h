/* The report of one run and its rendering as the diagnostics line. */
#ifndef SBX_DIAG_H
#define SBX_DIAG_H

#include <stdbool.h>
#include <stdint.h>

#include "policy.h"
#include "util.h"

/* The rules a policy can ask for; each backend says which it enforces. */
enum sbx_rule {
	SBX_RULE_FS, /* read mode and write confinement */
	SBX_RULE_DENY, /* the secret list and [deny] */
	SBX_RULE_PROTECT, /* .git/hooks, .git/config, [protect] read-only */
	SBX_RULE_MOUNTS, /* [mounts] placed inside the workdir */
	SBX_RULE_NETWORK, /* off: nothing; on: no local addresses */
	SBX_RULE_LISTEN,
	SBX_RULE_CONNECT,
	SBX_RULE_LOOPBACK,
	SBX_RULE_PROXY,
	SBX_RULE_PROCESSES, /* new session; host processes unsignalable */
	SBX_RULE_TIMEOUT,
	SBX_RULE_MEMORY,
	SBX_RULE_PIDS,
	SBX_RULE_CPU,
	SBX_RULE_FILE_SIZE,
	SBX_RULE_OPEN_FILES,
	SBX_RULE__COUNT,
};

#define SBX_RULE_BIT(r) (UINT32_C(1) << (r))

const char *sbx_rule_name(enum sbx_rule r);

/* The set of rules a policy asks for. */
uint32_t sbx_rules_requested(const struct sbx_policy *p);

/* The rule that a limit id stands for. */
enum sbx_rule sbx_limit_rule(enum sbx_limit_id id);

/* How each limit was enforced ("rlimit", "cgroup", ...); NULL when not. */
struct sbx_limit_report {
	const char *by;
	uint64_t peak; /* memory by a cgroup: memory.peak in bytes, 0: unknown */
};

struct sbx_layers {
	bool userns, mountns, pidns, netns, ipcns, utsns, cgroupns;
	int landlock_abi;
	bool seccomp;
	bool seccomp_notify;
	bool no_new_privs;
	bool caps_dropped;
	bool new_session;
	bool subreaper;
	bool cgroup;
	bool seatbelt;
};

/* The refusals kept for the diagnostics line: the first SBX_DENIED_MAX,
 * each with its kind ("connect", "bind", "listen", "send", "metadata",
 * "proxy") and what it aimed at. The target comes from the sandbox: it is
 * kept to at most SBX_DENIED_WHAT_MAX bytes (cut on a UTF-8 boundary,
 * "..." marking the cut) and escaped only when written out. */
#define SBX_DENIED_MAX 20
#define SBX_DENIED_WHAT_MAX 160

struct sbx_denied {
	char kind[16];
	char what[SBX_DENIED_WHAT_MAX + 4];
};

struct sbx_denied_list {
	struct sbx_denied v[SBX_DENIED_MAX];
	size_t n;
};

/* One refusal as it happens. Pointers are valid during the call only;
 * what and why may be NULL. */
struct sbx_refusal {
	const char *kind;
	const char *what; /* the target, as the sandbox named it */
	const char *why; /* the rule that refused it (static text) */
};

typedef void (*sbx_refusal_fn)(void *ctx, const struct sbx_refusal *ref);

/* Appends a refusal to l while it holds fewer than SBX_DENIED_MAX; the
 * later ones are only counted (by the caller). Not thread-safe. */
void sbx_denied_add(struct sbx_denied_list *l, const char *kind, const char *what);

/* Writes "CALL PATH", a refused path call, into out (size bytes, more
 * than the call's name and 5). When it does not fit, the path's start
 * gives way to "...", and its end stays from a character's first byte:
 * where the call aimed, which a path padded with "./././" in front would
 * otherwise push out of the list unseen. */
void sbx_denied_call(char *out, size_t size, const char *call, const char *path);

/* Writes s into out (size bytes, at least 8) for a terminal: printable
 * ASCII as is, a backslash and every other byte as \xHH, cut with "..."
 * when it does not fit. */
void sbx_denied_printable(char *out, size_t size, const char *s);

struct sbx_report {
	const char *backend; /* static string */
	uint32_t requested; /* rule bits */
	uint32_t enforced; /* rule bits */
	struct sbx_layers layers;
	struct sbx_limit_report limits[SBX_LIMIT__COUNT];
	struct sbx_strv warnings;
	char *workdir;
	char *error;
	int status;
	bool exited; /* exit_code is valid */
	int exit_code;
	int signal; /* 0: none */
	bool timed_out;
	bool kill_unsure; /* the backend could not confirm that the tree was killed */
	bool oom_killed;
	uint64_t wall_ms, cpu_user_ms, cpu_sys_ms, max_rss_kb;
	char *trace_path;
	uint64_t trace_events;
	int proxy_port; /* 0: no proxy */
	uint64_t denials;
	struct sbx_denied_list denied; /* the first of them */
};

void sbx_report_init(struct sbx_report *r);

/* Records the payload's wait status (exit code or signal) in r. */
void sbx_report_set_wait_status(struct sbx_report *r, int wait_status);
void sbx_report_free(struct sbx_report *r);

/* "full", "partial" or "none" (also for a run refused with 125 before
 * anything ran). */
const char *sbx_report_isolation(const struct sbx_report *r);

/* The signal's name ("SIGKILL"), or a static "SIG<n>" form. */
const char *sbx_signal_name(int sig);

/* The bounds that keep the diagnostics line within the room --diag PATH
 * reserves before the run (main.c), whatever names the sandbox makes the
 * warnings quote: a name quoted in a warning is cut to SBX_DIAG_NAME_MAX
 * bytes (sbx_diag_name()), a warning to SBX_DIAG_WARNING_MAX, and the
 * warnings that do not fit in what SBX_DIAG_LINE_MAX leaves are left out,
 * a last warning saying how many. The rest of the line is bounded by
 * itself (denied[]: SBX_DENIED_MAX entries of SBX_DENIED_WHAT_MAX bytes)
 * or is the caller's (a workdir path, the proxy's list): those may take
 * the line past SBX_DIAG_LINE_MAX, the warnings keeping
 * SBX_DIAG_WARNINGS_MIN then. */
#define SBX_DIAG_LINE_MAX 65534u /* the room less a newline before and after */
#define SBX_DIAG_WARNING_MAX 4096
#define SBX_DIAG_WARNINGS_MIN 8192
#define SBX_DIAG_NAME_MAX 256

/* A name the sandbox chose, as a warning quotes it: whole when it is at
 * most SBX_DIAG_NAME_MAX bytes, else its start and its end around "...",
 * each cut on a character boundary. The caller frees it. */
char *sbx_diag_name(const char *s, size_t n);

/* Renders the diagnostics line (without the newline); p may be NULL when
 * the failure came before a policy existed. The line is at most
 * SBX_DIAG_LINE_MAX bytes unless the caller's own values make it longer
 * (above). The caller frees it. */
char *sbx_diag_render(const struct sbx_report *r, const struct sbx_policy *p);

#endif
