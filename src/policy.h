/* The policy: plain data describing one sandboxed run, built from the
 * defaults, the profiles and the flags, in that order. Everything here is
 * pure: no function in policy.c touches the filesystem. */
#ifndef SBX_POLICY_H
#define SBX_POLICY_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "util.h"

enum sbx_backend_id {
	SBX_BACKEND_AUTO,
	SBX_BACKEND_NAMESPACES,
	SBX_BACKEND_LANDLOCK,
	SBX_BACKEND_SEATBELT,
	SBX_BACKEND_DOCKER,
	SBX_BACKEND_NONE,
};

enum sbx_fs_mode {
	SBX_FS_STRICT,
	SBX_FS_ALLOWLIST,
	SBX_FS_OPEN,
};

enum sbx_limit_id {
	SBX_LIMIT_MEMORY, /* bytes */
	SBX_LIMIT_PIDS, /* processes */
	SBX_LIMIT_CPU, /* milliseconds of CPU time */
	SBX_LIMIT_FILE_SIZE, /* bytes */
	SBX_LIMIT_OPEN_FILES, /* descriptors */
	SBX_LIMIT__COUNT,
};

struct sbx_limit {
	bool set;
	uint64_t value;
	bool builtin; /* the default of sbx_policy_init, not asked for: held
	                 where the backend can, never a reason to refuse */
};

/* The default pids limit: room for a parallel build or a test suite's
 * workers and their threads, far below the host's pid_max. */
#define SBX_DEFAULT_PIDS 1024

/* The default memory limit for a machine with phys bytes of memory: half
 * of it, at least 256 MiB, in whole MiB. */
uint64_t sbx_default_memory(uint64_t phys);

/* A sorted list of distinct TCP ports. */
struct sbx_ports {
	uint16_t *v;
	size_t n;
};

struct sbx_mount {
	char *target; /* relative to the workdir, no "..", no leading "/" */
	char *source; /* as written (after "~" expansion); canonical after resolve */
	bool rw;
};

struct sbx_envvar {
	char *name;
	char *value;
};

/* Where one value of the policy came from, for --print-policy. A value
 * that no profile or flag set has no record: it is built in. */
struct sbx_origin {
	char *section;
	char *key; /* as printed: "listen", a mount target, a variable name */
	char *item; /* a list entry as printed ("8080", "/usr"); NULL: the key's
	               one value */
	char *from; /* "FILE:LINE" or "--flag"; for a list entry given more than
	               once, each place, joined with ", " */
};

struct sbx_policy {
	/* Context used while reading values (for "~" expansion). */
	char *home;

	enum sbx_backend_id backend;
	enum sbx_fs_mode fs;
	bool network;
	char *workdir; /* NULL: a fresh private temp dir */
	bool keep;
	bool allow_degraded;
	bool protect_defaults; /* the built-in protect list (plan.h) applies */
	uint64_t timeout_ms; /* 0: none */
	struct sbx_limit limits[SBX_LIMIT__COUNT];
	char *trace;
	bool trace_all; /* keep the trace's noise */
	char *docker_image;
	char *docker_keep; /* the kept container's name; NULL: one per run */

	struct sbx_strv read; /* [read] path */
	struct sbx_strv deny; /* [deny] path */
	struct sbx_strv protect; /* [protect] path, relative to workdir */
	struct sbx_mount *mounts;
	size_t nmounts;
	struct sbx_ports listen, connect, loopback;
	struct sbx_strv proxy_allow; /* "host" or "host:port"; host exact or "*.suffix" */
	struct sbx_strv proxy_deny; /* the same form; refused even when allowed */
	struct sbx_strv proxy_methods; /* plain-HTTP methods, upper case; empty: all */
	struct sbx_envvar *env; /* [env] NAME = VALUE, in order */
	size_t nenv;
	struct sbx_strv env_pass; /* [env] pass = NAME */

	struct sbx_strv warnings;

	/* Where each value came from, in the order first set. */
	struct sbx_origin *origins;
	size_t norigins;
	/* The origin of the value being set, during sbx_policy_set_from(). */
	const char *setting_from;
};

/* The name a profile or flag uses for each enum value, and back. */
const char *sbx_backend_name(enum sbx_backend_id id);
int sbx_backend_parse(const char *s, enum sbx_backend_id *out);
const char *sbx_fs_name(enum sbx_fs_mode m);
const char *sbx_limit_name(enum sbx_limit_id id);

/* Fills p with the built-in defaults. home is the caller's home directory,
 * used to expand "~"; it is copied. */
void sbx_policy_init(struct sbx_policy *p, const char *home);
void sbx_policy_free(struct sbx_policy *p);

/* Whether section names a known profile section, and whether key is known
 * in it and takes a list (repeatable) rather than a scalar. */
bool sbx_policy_section_known(const char *section);
int sbx_policy_key_kind(const char *section, const char *key, bool *is_list);

/* Applies one "key = value" of section to p: scalars replace, lists
 * extend. On a bad value fills err (without file or line) and returns -1. */
int sbx_policy_set(struct sbx_policy *p, const char *section, const char *key, const char *value,
    struct sbx_err *err);

/* The same, recording from ("ci.ini:4", "--listen") as the origin of what
 * the line sets: a scalar's or keyed value's origin is the last that set
 * it; a list entry keeps every origin that gave it. sbx_policy_set()
 * records nothing. */
int sbx_policy_set_from(struct sbx_policy *p, const char *section, const char *key,
    const char *value, const char *from, struct sbx_err *err);

/* The origin recorded for a value (item NULL) or a list entry; NULL when
 * none is, which for a value means built in. */
const char *sbx_policy_origin(
    const struct sbx_policy *p, const char *section, const char *key, const char *item);

/* Checks the consistency of the merged policy (no filesystem access). */
int sbx_policy_check(const struct sbx_policy *p, struct sbx_err *err);

/* Writes the policy as a profile that sbx_profile_load_string() reads
 * back to an equal policy, which prints as the same text again. A value
 * that no profile line can hold (only a flag can give one: blanks at an
 * end, " ;" inside) is not written as something else: the result is NULL
 * and err says which. The caller frees the result. */
char *sbx_policy_to_ini(const struct sbx_policy *p, struct sbx_err *err);

/* The same, with each value's origin (sbx_policy_origin(), or "built-in")
 * as a comment at the end of its line, and a list entry on a line of its
 * own unless the next one has the same origin. Read back, it gives the
 * same policy as sbx_policy_to_ini(); control bytes in an origin are
 * written as \xNN. This is what --print-policy prints. */
char *sbx_policy_to_ini_origins(const struct sbx_policy *p, struct sbx_err *err);

/* Value parsers, exposed for tests and for the CLI. */
int sbx_parse_duration_ms(const char *s, uint64_t *out, struct sbx_err *err);
int sbx_parse_size(const char *s, uint64_t *out, struct sbx_err *err);
int sbx_parse_count(const char *s, uint64_t max, uint64_t *out, struct sbx_err *err);
int sbx_parse_bool(const char *s, bool *out, struct sbx_err *err);
int sbx_parse_port(const char *s, uint16_t *out, struct sbx_err *err);
int sbx_parse_port_list(const char *s, struct sbx_ports *ports, struct sbx_err *err);
int sbx_parse_host_pattern(const char *s, char **out, struct sbx_err *err);
int sbx_parse_method_list(const char *s, struct sbx_strv *methods, struct sbx_err *err);
bool sbx_ports_contains(const struct sbx_ports *ports, uint16_t port);
void sbx_ports_add(struct sbx_ports *ports, uint16_t port);

/* Formats durations and sizes the way the parsers read them back. */
char *sbx_format_duration(uint64_t ms);
char *sbx_format_size(uint64_t bytes);

/* Checks a path relative to the workdir: non-empty, not absolute, no ".."
 * component. Used for mount targets and [protect] paths. */
int sbx_check_relative_path(const char *what, const char *path, struct sbx_err *err);

/* A checked relative path (above) without empty or "." components and
 * without a trailing slash: "./a//b/" is "a/b", "./" is ".". Allocated. */
char *sbx_relative_path_clean(const char *path);

/* Splits a mount value "SOURCE[:ro|:rw]". */
int sbx_parse_mount_value(const char *value, char **source, bool *rw, struct sbx_err *err);

/* Expands a leading "~" or "~/" with home. "~user" is refused. */
int sbx_expand_home(const char *path, const char *home, char **out, struct sbx_err *err);

/* The edit distance between a and b: the fewest insertions, deletions,
 * substitutions and swaps of two adjacent characters that turn one into
 * the other (letters compared without case). Used to suggest what a
 * mistyped flag, key or section was meant to be. */
size_t sbx_edit_distance(const char *a, const char *b);

/* The one candidate close enough to word to be what was meant (at most
 * two edits, and at most a third of the longer of the two), or NULL when
 * none is, or when two are equally close. */
const char *sbx_suggest(const char *word, const char *const *candidates, size_t n);

/* The message for a section, or a key in a known section, that profiles
 * do not have, with a suggestion when one is close: "unknown key 'listn'
 * in [ports]; did you mean 'listen'?". key NULL: the section is unknown.
 * The caller frees it. */
char *sbx_policy_unknown_msg(const char *section, const char *key);

/* The lookup table of policy.c: whether a mount target is already taken. */
const struct sbx_mount *sbx_policy_find_mount(const struct sbx_policy *p, const char *target);

#endif
