/* The pure part of --selftest (sbxrun(1)): the battery of escape attempts
 * as a table, the shell payload each run of the jail executes, the
 * verdicts taken from what the host saw and what the payload printed, and
 * the report (a table and one JSON line). No syscalls here: the system
 * part (linux-selftest.c) plants the decoys, starts the listeners, runs
 * the jail and looks at the host; doc/design/selftest.md tells the
 * whole story. */
#ifndef SBX_SELFTEST_H
#define SBX_SELFTEST_H

#include <stdbool.h>
#include <stdint.h>

#include "cli.h"
#include "err.h"
#include "util.h"

/* The hidden first argument that makes sbxrun the payload of its own
 * selftest (linux-selftest.c): it makes one attempt and prints one line. */
#define SBX_ST_PAYLOAD_ARG "--selftest-payload-7d1c"

/* The prefix of every line the payload prints for the host to read. */
#define SBX_ST_TAG "SBXST"

enum sbx_st_verdict {
	SBX_ST_STOPPED, /* refused, or contained: nothing reached the host */
	SBX_ST_ESCAPED, /* the host saw the effect (or the call worked) */
	SBX_ST_SKIPPED, /* cannot be tried on this machine; says why */
	SBX_ST_UNKNOWN, /* the attempt did not run: counts as not stopped */
};

/* Who decides: the host, looking at the machine after the attempt (a
 * listener's queue, a file, an xattr, a process), or the payload's own
 * report of a system call's return, for calls whose whole effect stays in
 * the caller (a namespace, a ring, a socket) and so leaves nothing on the
 * host to look at. */
enum sbx_st_judge {
	SBX_ST_BY_HOST,
	SBX_ST_BY_PAYLOAD,
};

/* What the payload said about one attempt. */
enum sbx_st_outcome {
	SBX_ST_MISSING, /* no line */
	SBX_ST_DONE, /* the call succeeded from inside */
	SBX_ST_REFUSED, /* it failed; the detail says how */
	SBX_ST_NA, /* the payload could not try it here */
};

/* One line of the report. */
struct sbx_st_row {
	char *id; /* the payload's name for it, e.g. "write-outside" */
	char *title; /* for the table */
	enum sbx_st_judge judge;
	enum sbx_st_verdict verdict;
	char *detail;
};

struct sbx_st_report {
	struct sbx_st_row *rows;
	size_t n;
	char *backend; /* as the jail's diagnostics line named it */
	char *isolation;
	struct sbx_strv warnings; /* of the jail runs, and of the selftest */
	uint64_t elapsed_ms;
};

/* Adds a row, verdict unknown until judged. */
struct sbx_st_row *sbx_st_add(
    struct sbx_st_report *r, const char *id, const char *title, enum sbx_st_judge judge);
/* The row named id, or NULL. */
struct sbx_st_row *sbx_st_find(struct sbx_st_report *r, const char *id);
void sbx_st_report_free(struct sbx_st_report *r);

/* Reads the payload's line for id out of its whole output: the outcome,
 * and into *detail (malloc'd, or NULL) the rest of the line. */
enum sbx_st_outcome sbx_st_outcome_of(const char *out, const char *id, char **detail);

/* Judges a row from the payload's output alone (SBX_ST_BY_PAYLOAD). */
void sbx_st_judge_payload(struct sbx_st_row *row, const char *out);

/* Judges a row from what the host saw (SBX_ST_BY_HOST): reached says the
 * effect is there on the host, seen describes it. An attempt that left no
 * line did not run and proves nothing. */
void sbx_st_judge_host(struct sbx_st_row *row, const char *out, bool reached, const char *seen);

/* Marks a row skipped, with the reason. */
void sbx_st_skip(struct sbx_st_row *row, const char *why);

/* What one run of the jail is given: what its script attempts and the
 * values each attempt needs. Every path is absolute. */
struct sbx_st_script {
	const char *payload; /* the sbxrun copy inside the workdir */
	const char *workdir; /* where the script starts */
	const char *outside; /* a directory outside the workdir: no write */
	const char *home; /* the stand-in home */
	const struct sbx_strv *decoys; /* home-relative files holding tokens */
	const struct sbx_strv *system; /* host secret files to checksum */
	const char *loopback; /* "IP PORT" of the host loopback listener */
	const char *iface; /* "IP PORT" on a host interface, or NULL */
	const char *fastopen; /* "IP PORT" of the Fast Open listener */
	const char *abstract; /* the abstract socket's name, no NUL */
	const char *linger; /* the token a daemonised child carries */
	long parent; /* sbxrun's pid on the host */
	bool bare_repo; /* plant a bare repository at the top */
	bool git_hooks; /* chmod .git/hooks and a hook */
	bool signal_parent; /* last: signal sbxrun */
	bool syscalls; /* the payload's raw-syscall attempts */
};

/* The POSIX sh script for one run. Values are single-quoted. */
char *sbx_st_script_text(const struct sbx_st_script *s);

/* How a home secret-list entry is planted: as a file holding the token,
 * or as a directory holding one ("decoy"). Returns the file to plant,
 * relative to the home. */
char *sbx_st_decoy_file(const char *entry);

/* The POSIX cksum(1) of a buffer (CRC-32 over the data and its length). */
uint32_t sbx_st_cksum(const void *data, size_t len);

/* The value of a top-level string or number field of a JSON line
 * (sbxrun's own diagnostics), unescaped simply; NULL if absent. */
char *sbx_st_json_field(const char *line, const char *key);

/* Whether the command line asks for nothing but --selftest and what it
 * takes (--backend, --allow-degraded, --diag, -q, -v). */
int sbx_st_check_cli(const struct sbx_cli *cli, struct sbx_err *err);

/* The system part (linux-selftest.c). Runs the battery through the jail
 * that policy p's backend builds (only backend and allow_degraded are
 * read) and fills r. -1 when the jail could not be built at all. */
int sbx_selftest_run(
    const struct sbx_policy *p, int verbose, struct sbx_st_report *r, struct sbx_err *err);

/* The payload: argv[1] is SBX_ST_PAYLOAD_ARG, argv[2] the attempt's id,
 * argv[3] its kind, the rest its values. Makes that one attempt, prints
 * its one line, returns the exit status. */
int sbx_selftest_payload(int argc, char **argv);

/* 0 when every attempt was stopped or skipped, else 1. */
int sbx_st_status(const struct sbx_st_report *r);

/* The table: one line per attempt (attempt, expected, result, detail). */
char *sbx_st_table(const struct sbx_st_report *r);

/* The one-line JSON summary, without the newline. */
char *sbx_st_json(const struct sbx_st_report *r, int status);

#endif
