/* The command line: getopt_long into a plain struct. No syscalls here;
 * values are checked when applied to the policy so that a flag and the
 * profile key it stands for share one parser. */
#ifndef SBX_CLI_H
#define SBX_CLI_H

#include <stdbool.h>

#include "err.h"
#include "policy.h"

enum sbx_diag_kind {
	SBX_DIAG_STDERR,
	SBX_DIAG_FD,
	SBX_DIAG_PATH,
	SBX_DIAG_NONE,
};

struct sbx_diag_dest {
	enum sbx_diag_kind kind;
	int fd;
	char *path;
};

/* One flag that stands for a profile key, kept in command-line order. */
struct sbx_setting {
	const char *flag; /* "--listen", for messages */
	char *section;
	char *key;
	char *value;
};

struct sbx_cli {
	struct sbx_strv profiles;
	struct sbx_setting *settings;
	size_t nsettings;
	char **command; /* points into argv; NULL: script on stdin */
	char *interp;
	char *script_name;
	struct sbx_diag_dest diag;
	bool print_policy;
	bool print_backend;
	bool probe;
	bool list_profiles;
	bool selftest;
	char *docker_rm; /* --docker-rm NAME */
	bool help;
	bool version;
	int verbose;
	bool quiet;
};

/* Parses argv. Fills err naming the flag on a bad option. On failure the
 * parts already parsed (such as --diag) stay usable for reporting. */
int sbx_cli_parse(struct sbx_cli *cli, int argc, char **argv, struct sbx_err *err);

/* Applies the flags that stand for profile keys to p, after the profiles. */
int sbx_cli_apply(const struct sbx_cli *cli, struct sbx_policy *p, struct sbx_err *err);

void sbx_cli_free(struct sbx_cli *cli);

/* The --help text. */
const char *sbx_cli_usage(void);

/* Parses a --diag argument. */
int sbx_diag_dest_parse(const char *s, struct sbx_diag_dest *out, struct sbx_err *err);

#endif
