/* The docker backend's command lines, built as argument vectors without a
 * shell. Pure: everything comes in through the arguments, so the text of a
 * run is golden-tested (tests/unit/test-docker.c) and printed by
 * --print-backend exactly as it is executed. */
#ifndef SBX_DOCKER_ARGV_H
#define SBX_DOCKER_ARGV_H

#include <stdbool.h>
#include <sys/types.h>

#include "err.h"
#include "fsplan.h"
#include "policy.h"
#include "util.h"

/* Where the workdir appears inside the container; also HOME and the
 * working directory there. */
#define SBX_DOCKER_WORK "/work"

/* The image used when neither docker_image nor --docker-image names one. */
#define SBX_DOCKER_DEFAULT_IMAGE "debian:stable-slim"

/* The label every container sbxrun starts carries, so that leftovers can
 * be found with "docker ps -a --filter label=sbxrun". */
#define SBX_DOCKER_LABEL "sbxrun"

/* The labels of a kept container (--docker-keep): this one holds its
 * NAME, and KEEP.workdir, KEEP.image and KEEP.spec (a fingerprint of its
 * options) say what it was made for. A kept container does not carry
 * SBX_DOCKER_LABEL: it is meant to outlive the run. */
#define SBX_DOCKER_KEEP_LABEL "sbxrun.keep"

/* Where the engine puts its init (tini) in a container started with
 * --init. */
#define SBX_DOCKER_INIT "/sbin/docker-init"

/* A host path bound into the container, or an empty read-only tmpfs
 * owned by root (a hidden directory's cover). */
struct sbx_docker_bind {
	const char *source; /* absolute host path; NULL: the empty cover */
	const char *target; /* absolute path in the container */
	bool ro;
};

/* The binds that hold a filesystem view inside the container. */
struct sbx_docker_binds {
	struct sbx_docker_bind *v;
	size_t n;
	struct sbx_strv strings; /* owns the paths of v */
	struct sbx_strv scrub; /* protected names that do not exist, relative
	                          to the workdir: one made during the run is
	                          moved aside after it */
	struct sbx_strv notes; /* what the binds cannot hold */
};

/* Lowers the view v (built with facts: the binds depend on what each path
 * is) to the binds of a run, in order: each [mounts] source at its place
 * under SBX_DOCKER_WORK, read-only unless rw; each protected entry
 * read-only onto itself; each hidden entry the container can see (in the
 * workdir or a mount) covered by an empty read-only tmpfs (a directory) or
 * /dev/null (anything else); then each directory between the workdir (or
 * a mount source) and a protected entry bound read-write onto itself, so
 * that it cannot be renamed. The engine resolves a bind's source itself,
 * as root, so a protected entry that is a symlink or lies through one is
 * not bound (a note says so; where a protected symlink leads in the
 * workdir is an entry of its own), and a hidden symlink is left alone (its
 * target is hidden in turn when the container can see it). */
int sbx_docker_binds_lower(
    const struct sbx_fsplan *v, struct sbx_docker_binds *b, struct sbx_err *err);

void sbx_docker_binds_free(struct sbx_docker_binds *b);

/* Appends the --mount options of a run to out: workdir at SBX_DOCKER_WORK,
 * then each bind, as sbx_docker_argv() puts them on its command line. */
void sbx_docker_mount_argv(
    const char *workdir, const struct sbx_docker_bind *binds, size_t n, struct sbx_strv *out);

/* One run, apart from the policy: who, where, what. */
struct sbx_docker_run {
	const char *docker; /* the client program, "docker" when NULL */
	const char *name; /* the container's name */
	const char *workdir; /* host path bound at SBX_DOCKER_WORK */
	const struct sbx_docker_bind *binds; /* sbx_docker_binds_lower()'s */
	size_t nbinds;
	uid_t uid; /* the ids the payload runs as */
	gid_t gid;
	char *const *envp; /* the built environment, NAME=VALUE */
	char *const *caller_env; /* the caller's, to tell passed values */
	/* When not NULL, gets NAME=VALUE of each variable whose value the
	 * client must find in its own environment (the command line names it
	 * alone); the caller owns it. */
	struct sbx_strv *client_env;
	char *const *argv; /* the command; argv[0] becomes the entrypoint */
};

/* Whether the docker client (its Go runtime, its resolver, the dynamic
 * loader) reads the environment variable name itself: such a value cannot
 * be handed to the container through the client's environment, and goes
 * on its command line. */
bool sbx_docker_client_reads(const char *name);

/* Appends to out the "docker run" command line of p and run. The built
 * environment is passed by name alone (--env=NAME): the client takes the
 * values from its own environment, the caller's for a variable that
 * --pass-env copied unchanged, else run->client_env's, so they never
 * appear in a command line (which every local user reads), except for a
 * variable the client reads itself (sbx_docker_client_reads()). A
 * host path beginning with the workdir is rewritten to lie under /work
 * (HOME, PWD, the script file of --interp). Fails on a path that the
 * client's --mount syntax cannot carry. */
int sbx_docker_argv(const struct sbx_policy *p, const struct sbx_docker_run *run,
    struct sbx_strv *out, struct sbx_err *err);

/* Appends to out the "docker run --detach" command line of the kept
 * container run->name: the options of sbx_docker_argv() (hardening,
 * limits, mounts, ports), its labels, and "sleep infinity" under the
 * engine's init; no environment (each run brings its own). *spec gets the
 * fingerprint of the options and the image, as put in its label. */
int sbx_docker_keep_argv(const struct sbx_policy *p, const struct sbx_docker_run *run,
    struct sbx_strv *out, char **spec, struct sbx_err *err);

/* Appends to out the "docker exec -i" command line of one run in the kept
 * container run->name: the run's ids, /work, its environment as in
 * sbx_docker_argv(), and the command under the engine's init, wrapped so
 * that it runs in a process group of its own whose id it writes to
 * pgid_file (a path in the container) first and removes at its end. */
int sbx_docker_exec_argv(const struct sbx_policy *p, const struct sbx_docker_run *run,
    const char *pgid_file, struct sbx_strv *out, struct sbx_err *err);

/* "docker exec NAME sh -c ..." that SIGKILLs the process group recorded in
 * pgid_file (waiting up to 3 s for it to appear), and removes the file. */
void sbx_docker_kill_argv(const char *docker, const char *name, uid_t uid, gid_t gid,
    const char *pgid_file, struct sbx_strv *out);

/* "docker start NAME": a kept container that was stopped. */
void sbx_docker_start_argv(const char *docker, const char *name, struct sbx_strv *out);

/* What a kept container says of itself, from sbx_docker_keep_inspect_argv():
 * its state and its labels ("" when it has none of that name). */
struct sbx_docker_kept {
	bool running;
	bool oom_killed;
	char *keep;
	char *workdir;
	char *image;
	char *spec;
};

/* "docker inspect" of a kept container: five lines, parsed by
 * sbx_docker_parse_keep(). */
void sbx_docker_keep_inspect_argv(const char *docker, const char *name, struct sbx_strv *out);

/* Parses the output of sbx_docker_keep_inspect_argv(); -1 when it is not
 * one. */
int sbx_docker_parse_keep(const char *text, struct sbx_docker_kept *k);

void sbx_docker_kept_free(struct sbx_docker_kept *k);

/* Checks a kept container's name against the engine's rule. */
int sbx_docker_name_check(const char *name, struct sbx_err *err);

/* Whether p opens the container's network: outbound on, or any port. */
bool sbx_docker_net_open(const struct sbx_policy *p);

/* "docker inspect" of one container, printing one line:
 * "RUNNING OOMKILLED EXITCODE STARTED" (STARTED: whether it ever ran). */
void sbx_docker_inspect_argv(const char *docker, const char *name, struct sbx_strv *out);

/* "docker rm --force --volumes NAME": kills the container if it runs, then
 * removes it and its anonymous volumes (an image's VOLUME lines). */
void sbx_docker_rm_argv(const char *docker, const char *name, struct sbx_strv *out);

/* "docker info" reduced to the server version: it needs the daemon. */
void sbx_docker_info_argv(const char *docker, struct sbx_strv *out);

/* The command line as shell text, for --print-backend: each argument
 * quoted where a shell would split or expand it, one option a line. Only
 * for reading; sbxrun itself never hands it to a shell. */
void sbx_docker_render(char *const *argv, struct sbx_buf *out);

/* Parses the line of sbx_docker_inspect_argv(); -1 when it is not one. */
int sbx_docker_parse_inspect(
    const char *line, bool *running, bool *oom_killed, int *exit_code, bool *started);

#endif
