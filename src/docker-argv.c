#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "docker-argv.h"
#include "exec.h"

#define CLIENT(run) ((run)->docker ? (run)->docker : "docker")

bool
sbx_docker_net_open(const struct sbx_policy *p)
{
	return p->network || p->listen.n > 0 || p->connect.n > 0 || p->loopback.n > 0 ||
	    p->proxy_allow.n > 0;
}

/* One field of the client's --mount value, which it reads as a line of
 * CSV: quoted when it holds a comma, a quote or a line break, with quotes
 * doubled, so that no path can add a field of its own ("readonly=false",
 * another "source="). */
static void
csv_field(struct sbx_buf *b, const char *key, const char *value)
{
	_cleanup_free_ char *field = sbx_xasprintf("%s=%s", key, value);

	if (b->len)
		sbx_buf_putc(b, ',');
	if (strpbrk(field, ",\"\r\n") == NULL && field[0] != ' ') {
		sbx_buf_puts(b, field);
		return;
	}
	sbx_buf_putc(b, '"');
	for (const char *c = field; *c; c++) {
		if (*c == '"')
			sbx_buf_putc(b, '"');
		sbx_buf_putc(b, *c);
	}
	sbx_buf_putc(b, '"');
}

static void
push_mount(struct sbx_strv *out, const char *source, const char *target, bool ro)
{
	struct sbx_buf b = { 0 };

	if (source) {
		csv_field(&b, "type", "bind");
		csv_field(&b, "source", source);
	} else {
		csv_field(&b, "type", "tmpfs");
	}
	csv_field(&b, "target", target);
	if (ro)
		sbx_buf_puts(&b, ",readonly");
	/* The client would take a value starting with '-' for an option. */
	sbx_strv_push_take(out, sbx_xasprintf("--mount=%s", b.data));
	sbx_buf_free(&b);
}

void
sbx_docker_mount_argv(
    const char *workdir, const struct sbx_docker_bind *binds, size_t n, struct sbx_strv *out)
{
	push_mount(out, workdir, SBX_DOCKER_WORK, false);
	for (size_t i = 0; i < n; i++)
		push_mount(out, binds[i].source, binds[i].target, binds[i].ro);
}

static const char *
keep_str(struct sbx_docker_binds *b, char *s)
{
	sbx_strv_push_take(&b->strings, s);
	return s;
}

static void
add_bind(struct sbx_docker_binds *b, const char *source, char *target, bool ro)
{
	b->v = sbx_xreallocarray(b->v, b->n + 1, sizeof(*b->v));
	b->v[b->n++] = (struct sbx_docker_bind){
		source ? keep_str(b, sbx_xstrdup(source)) : NULL,
		keep_str(b, target),
		ro,
	};
}

/* Every place the container sees the host path path of the view, into
 * out: below each mount source that holds it, at that mount's place, and
 * below the workdir under SBX_DOCKER_WORK. A read-only mount of the
 * workdir (or of a directory holding it) shows it twice: a cover put on
 * one of them only left a secret readable at the other. */
static void
seen_at(const struct sbx_fsplan *v, const char *path, struct sbx_strv *out)
{
	for (size_t i = 0; i < v->n; i++) {
		const struct sbx_fsentry *e = &v->v[i];

		if (e->origin == SBX_FSO_MOUNT && sbx_path_is_under(path, e->path))
			sbx_strv_push_take(out,
			    sbx_xasprintf(
				"%s/%s%s", SBX_DOCKER_WORK, e->rel, path + strlen(e->path)));
	}
	if (sbx_path_is_under(path, v->workdir))
		sbx_strv_push_take(
		    out, sbx_xasprintf("%s%s", SBX_DOCKER_WORK, path + strlen(v->workdir)));
}

static void
lower_protected(const struct sbx_fsentry *e, struct sbx_docker_binds *b)
{
	if (e->disp == SBX_FSD_PLACEHOLDER && e->via_link) {
		/* As plan.c's protect_one: a symlink met on the way to a
		 * scrubbed name after the run is then always the run's. */
		sbx_strv_push_take(&b->notes,
		    sbx_xasprintf("protected path %s does not exist and passes through a "
				  "symlink: what is made there is not moved aside",
			e->rel));
		return;
	}
	if (e->disp == SBX_FSD_PLACEHOLDER) {
		sbx_strv_push(&b->scrub, e->rel);
		return;
	}
	if (e->kind == SBX_KIND_SYMLINK && e->note == NULL && !e->via_link) {
		sbx_strv_push_take(&b->notes,
		    sbx_xasprintf(
			"protected path %s is a symlink, which the engine would follow as "
			"root: it is not bound itself; where it leads in the workdir is "
			"protected instead",
			e->rel));
		return;
	}
	if (e->kind == SBX_KIND_SYMLINK || e->via_link) {
		sbx_strv_push_take(&b->notes,
		    sbx_xasprintf("protected path %s is or passes through a symlink: it is not "
				  "bound read-only (its target is not in the container)",
			e->rel));
		return;
	}
	add_bind(b, e->path, sbx_xasprintf("%s/%s", SBX_DOCKER_WORK, e->rel), true);
}

/* Whether a bind of b has target as its target. */
static bool
bound_at(const struct sbx_docker_binds *b, const char *target)
{
	for (size_t i = 0; i < b->n; i++)
		if (strcmp(b->v[i].target, target) == 0)
			return true;
	return false;
}

/* Whether path is at or below an entry the container does not see
 * (hidden: a secret, covered). */
static bool
under_hidden(const struct sbx_fsplan *v, const char *path)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].disp == SBX_FSD_HIDDEN && v->v[i].kind != SBX_KIND_NONE &&
		    sbx_path_is_under(path, v->v[i].path))
			return true;
	return false;
}

/* Binds each directory between the workdir and the protected entry at
 * path onto itself, read-write, where the workdir shows it: a read-only
 * bind of the entry alone held its name only while its parent kept its
 * own, and "mv /work/ci /work/ci.orig; mkdir /work/ci" put a new
 * ci/deploy.sh on the host. The kernel refuses to rename a mount point
 * (EBUSY), so each directory on the way stays where it is, as under the
 * namespaces backend, whose binds pin them the same way. Only there: a
 * read-only mount's view of the same directory cannot rename it (and a
 * read-write bind there made its protected entry writable), a read-write
 * mount's source holds no protected entry (jail.c), and an entry below
 * a hidden one is not in the container at all (a bind there put the
 * secret back on top of its cover). */
static void
pin_ancestors(const struct sbx_fsplan *v, const char *path, struct sbx_docker_binds *b)
{
	_cleanup_free_ char *p = sbx_xstrdup(path);
	size_t top = strlen(v->workdir);

	if (!sbx_path_is_under(path, v->workdir) || strcmp(path, v->workdir) == 0 ||
	    under_hidden(v, path))
		return;
	for (char *c = p + top + 1; (c = strchr(c, '/')) != NULL; c++) {
		char *target;

		*c = '\0';
		target = sbx_xasprintf("%s%s", SBX_DOCKER_WORK, p + top);
		if (!bound_at(b, target))
			add_bind(b, p, target, false);
		else
			free(target);
		*c = '/';
	}
}

int
sbx_docker_binds_lower(const struct sbx_fsplan *v, struct sbx_docker_binds *b, struct sbx_err *err)
{
	memset(b, 0, sizeof(*b));
	if (!v->facts)
		return sbx_err_set(err, EINVAL,
		    "docker: the filesystem view was built without facts: the binds depend on "
		    "what each path is");
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].origin == SBX_FSO_MOUNT)
			add_bind(b, v->v[i].path,
			    sbx_xasprintf("%s/%s", SBX_DOCKER_WORK, v->v[i].rel),
			    v->v[i].disp == SBX_FSD_RO);
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].disp == SBX_FSD_PROTECTED || v->v[i].disp == SBX_FSD_PLACEHOLDER)
			lower_protected(&v->v[i], b);
	/* A read-write mount's source is a directory of the caller's as much
	 * as the workdir: a .git at its top stays read-only the same way. */
	for (size_t i = 0; i < v->n; i++) {
		const struct sbx_fsentry *e = &v->v[i];
		_cleanup_free_ char *git = NULL;

		if (e->origin != SBX_FSO_MOUNT ||
		    (e->git != SBX_KIND_DIR && e->git != SBX_KIND_FILE))
			continue;
		git = sbx_path_join(e->path, ".git");
		add_bind(b, git, sbx_xasprintf("%s/%s/.git", SBX_DOCKER_WORK, e->rel), true);
	}
	/* A secret missing inside the workdir: what the run makes there is
	 * moved aside after it (plan.c, scrub_secrets). */
	for (size_t i = 0; i < v->n; i++) {
		const struct sbx_fsentry *e = &v->v[i];

		if (e->origin == SBX_FSO_SECRET && e->rel != NULL && e->tree == NULL &&
		    !e->via_link && !sbx_strv_contains(&b->scrub, e->rel))
			sbx_strv_push(&b->scrub, e->rel);
	}
	for (size_t i = 0; i < v->n; i++) {
		const struct sbx_fsentry *e = &v->v[i];
		struct sbx_strv at = { 0 };

		/* Absent, or a link whose target is not in the container (or
		 * is an entry of its own). */
		if (e->disp != SBX_FSD_HIDDEN || e->kind == SBX_KIND_NONE ||
		    e->kind == SBX_KIND_SYMLINK)
			continue;
		seen_at(v, e->path, &at);
		for (size_t k = 0; k < at.n; k++)
			add_bind(b, e->kind == SBX_KIND_DIR ? NULL : "/dev/null",
			    sbx_xstrdup(at.v[k]), true);
		sbx_strv_free(&at);
	}
	/* Last, so that a directory bound for its own sake keeps its bind. */
	for (size_t i = 0, n = b->n; i < n; i++) {
		bool prot = false;

		for (size_t k = 0; k < v->n && !prot; k++)
			prot =
			    (v->v[k].disp == SBX_FSD_PROTECTED || v->v[k].origin == SBX_FSO_GIT) &&
			    b->v[i].source && strcmp(v->v[k].path, b->v[i].source) == 0;
		if (prot && b->v[i].ro)
			pin_ancestors(v, b->v[i].source, b);
	}
	return 0;
}

void
sbx_docker_binds_free(struct sbx_docker_binds *b)
{
	free(b->v);
	sbx_strv_free(&b->strings);
	sbx_strv_free(&b->scrub);
	sbx_strv_free(&b->notes);
	memset(b, 0, sizeof(*b));
}

/* A host path under the workdir, as the container sees it. */
static char *
in_container(const char *workdir, const char *path)
{
	size_t n = strlen(workdir);

	if (strcmp(path, workdir) == 0)
		return sbx_xstrdup(SBX_DOCKER_WORK);
	if (strncmp(path, workdir, n) == 0 && path[n] == '/')
		return sbx_xasprintf("%s%s", SBX_DOCKER_WORK, path + n);
	return sbx_xstrdup(path);
}

static bool
passed_unchanged(const struct sbx_policy *p, char *const *caller_env, const char *entry)
{
	const char *eq = strchr(entry, '=');
	_cleanup_free_ char *name = NULL;
	const char *v;

	if (eq == NULL)
		return false;
	name = sbx_xstrndup(entry, (size_t)(eq - entry));
	if (!sbx_strv_contains(&p->env_pass, name))
		return false;
	v = sbx_env_get(caller_env, name);
	return v != NULL && strcmp(v, eq + 1) == 0;
}

bool
sbx_docker_client_reads(const char *name)
{
	static const char *const exact[] = { "HOME", "PATH", "PWD", "TMPDIR", "HTTP_PROXY",
		"http_proxy", "HTTPS_PROXY", "https_proxy", "NO_PROXY", "no_proxy", "ALL_PROXY",
		"all_proxy", "REQUEST_METHOD", "GODEBUG", "GOGC", "GOMAXPROCS", "GOMEMLIMIT",
		"GOTRACEBACK", "GCONV_PATH", "GLIBC_TUNABLES", "LOCALDOMAIN", "RES_OPTIONS",
		"HOSTALIASES" };
	static const char *const prefix[] = { "DOCKER_", "LD_", "SSH_", "OTEL_", "XDG_",
		"MALLOC_" };

	for (size_t i = 0; i < sizeof(exact) / sizeof(exact[0]); i++)
		if (strcmp(name, exact[i]) == 0)
			return true;
	for (size_t i = 0; i < sizeof(prefix) / sizeof(prefix[0]); i++)
		if (sbx_str_has_prefix(name, prefix[i]))
			return true;
	return false;
}

/* One variable of the built environment. /proc/PID/cmdline is readable
 * by every local user for the whole run, /proc/PID/environ by the
 * process's owner only: a value goes into the client's own environment
 * (run->client_env) and the command line names it alone (--env=NAME, the
 * client takes the value from its environment), unless the client
 * itself reads that variable (sbx_docker_client_reads()): then its value
 * has to be on the command line. A --pass-env value that is unchanged is
 * in the client's environment already. */
static void
push_env(struct sbx_strv *out, const struct sbx_policy *p, const struct sbx_docker_run *run,
    const char *entry)
{
	const char *eq = strchr(entry, '=');
	_cleanup_free_ char *name = NULL, *v = NULL;

	if (eq == NULL)
		return;
	name = sbx_xstrndup(entry, (size_t)(eq - entry));
	if (passed_unchanged(p, run->caller_env, entry)) {
		sbx_strv_push_take(out, sbx_xasprintf("--env=%s", name));
		return;
	}
	/* The built HOME and PWD name the workdir on the host. */
	if (strcmp(name, "HOME") == 0 || strcmp(name, "PWD") == 0)
		v = in_container(run->workdir, eq + 1);
	else
		v = sbx_xstrdup(eq + 1);
	if (sbx_docker_client_reads(name)) {
		sbx_strv_push_take(out, sbx_xasprintf("--env=%s=%s", name, v));
		return;
	}
	if (run->client_env)
		sbx_strv_push_take(run->client_env, sbx_xasprintf("%s=%s", name, v));
	sbx_strv_push_take(out, sbx_xasprintf("--env=%s", name));
}

/* A path the client is handed: absolute, and without a control byte. The
 * client reads a --mount value as CSV, and its reader turns "\r\n" inside
 * a quoted field into "\n": the daemon bound "a\nb" (another name, which
 * another user may have made) where "a\r\nb" was checked, and put a
 * cover on a name that was not the secret. The names are resolved paths
 * (a symlink's target, a realpath), so the check is here, on what is
 * handed over, not only on what the user typed. */
static int
check_path(const char *what, const char *path, struct sbx_err *err)
{
	if (path == NULL || path[0] != '/')
		return sbx_err_set(err, EINVAL, "docker: %s %s is not an absolute path", what,
		    path ? path : "(none)");
	for (const unsigned char *c = (const unsigned char *)path; *c; c++)
		if (*c < 0x20 || *c == 0x7f) {
			_cleanup_free_ char *shown = sbx_str_escaped(path);

			return sbx_err_set(err, EINVAL,
			    "docker: %s %s holds the control character 0x%02x, which the "
			    "docker client's --mount syntax does not carry unchanged; "
			    "refused",
			    what, shown, *c);
		}
	return 0;
}

static int
parse_bool(const char *s, size_t n, bool *out)
{
	if (n == 4 && strncmp(s, "true", 4) == 0)
		*out = true;
	else if (n == 5 && strncmp(s, "false", 5) == 0)
		*out = false;
	else
		return -1;
	return 0;
}

/* The options that make the container: hardening, limits, mounts, ports.
 * Shared by a run's container and a kept one, so that both hold the same
 * rules; the identity (name, labels) and the command are the callers'. */
static int
push_container(const struct sbx_policy *p, const struct sbx_docker_run *run, struct sbx_strv *out,
    struct sbx_err *err)
{
	const struct sbx_limit *lim = p->limits;

	if (check_path("workdir", run->workdir, err) < 0)
		return -1;
	for (size_t i = 0; i < run->nbinds; i++)
		if ((run->binds[i].source &&
			check_path("mount source", run->binds[i].source, err) < 0) ||
		    check_path("mount target", run->binds[i].target, err) < 0)
			return -1;
	/* The output reaches the caller through the attached client; the
	 * daemon keeps no copy on its disk for a script to fill. */
	sbx_strv_push(out, "--log-driver=none");
	/* The engine's init as the container's pid 1: it passes TERM and
	 * INT on to the command (the kernel drops a signal sent to a
	 * namespace's pid 1 that has no handler for it) and reaps orphans. */
	sbx_strv_push(out, "--init");
	sbx_strv_push(out, sbx_docker_net_open(p) ? "--network=bridge" : "--network=none");
	sbx_strv_push(out, "--cap-drop=ALL");
	sbx_strv_push(out, "--security-opt=no-new-privileges");
	/* Writable are /work, its rw mounts and a private /tmp, as under
	 * the other backends; the image itself is not. */
	sbx_strv_push(out, "--read-only");
	sbx_strv_push(out, "--tmpfs=/tmp:rw,nosuid,nodev,exec,mode=1777");
	sbx_strv_push_take(
	    out, sbx_xasprintf("--user=%u:%u", (unsigned)run->uid, (unsigned)run->gid));
	if (lim[SBX_LIMIT_MEMORY].set) {
		/* Swap equal to memory: none on top of it. */
		sbx_strv_push_take(
		    out, sbx_xasprintf("--memory=%" PRIu64, lim[SBX_LIMIT_MEMORY].value));
		sbx_strv_push_take(
		    out, sbx_xasprintf("--memory-swap=%" PRIu64, lim[SBX_LIMIT_MEMORY].value));
	}
	if (lim[SBX_LIMIT_PIDS].set)
		sbx_strv_push_take(
		    out, sbx_xasprintf("--pids-limit=%" PRIu64, lim[SBX_LIMIT_PIDS].value));
	if (lim[SBX_LIMIT_CPU].set) {
		uint64_t s = (lim[SBX_LIMIT_CPU].value + 999) / 1000;

		sbx_strv_push_take(out, sbx_xasprintf("--ulimit=cpu=%" PRIu64 ":%" PRIu64, s, s));
	}
	if (lim[SBX_LIMIT_FILE_SIZE].set)
		sbx_strv_push_take(out,
		    sbx_xasprintf("--ulimit=fsize=%" PRIu64 ":%" PRIu64,
			lim[SBX_LIMIT_FILE_SIZE].value, lim[SBX_LIMIT_FILE_SIZE].value));
	if (lim[SBX_LIMIT_OPEN_FILES].set)
		sbx_strv_push_take(out,
		    sbx_xasprintf("--ulimit=nofile=%" PRIu64 ":%" PRIu64,
			lim[SBX_LIMIT_OPEN_FILES].value, lim[SBX_LIMIT_OPEN_FILES].value));
	sbx_docker_mount_argv(run->workdir, run->binds, run->nbinds, out);
	sbx_strv_push(out, "--workdir=" SBX_DOCKER_WORK);
	/* Published on the host's loopback only, never on every address. */
	for (size_t i = 0; i < p->listen.n; i++)
		sbx_strv_push_take(out,
		    sbx_xasprintf("--publish=127.0.0.1:%u:%u/tcp", (unsigned)p->listen.v[i],
			(unsigned)p->listen.v[i]));
	return 0;
}

static const char *
image_of(const struct sbx_policy *p)
{
	return p->docker_image ? p->docker_image : SBX_DOCKER_DEFAULT_IMAGE;
}

static int
check_command(const struct sbx_docker_run *run, struct sbx_err *err)
{
	if (run->argv == NULL || run->argv[0] == NULL || run->argv[0][0] == '\0')
		return sbx_err_set(err, EINVAL, "docker: empty command");
	return 0;
}

int
sbx_docker_argv(const struct sbx_policy *p, const struct sbx_docker_run *run, struct sbx_strv *out,
    struct sbx_err *err)
{
	struct sbx_strv opts = { 0 };

	if (check_command(run, err) < 0 || push_container(p, run, &opts, err) < 0) {
		sbx_strv_free(&opts);
		return -1;
	}
	sbx_strv_push(out, CLIENT(run));
	sbx_strv_push(out, "run");
	/* Standard input stays attached: the script arrives there. */
	sbx_strv_push(out, "-i");
	sbx_strv_push_take(out, sbx_xasprintf("--name=%s", run->name));
	sbx_strv_push(out, "--label=" SBX_DOCKER_LABEL);
	for (size_t i = 0; i < opts.n; i++)
		sbx_strv_push(out, opts.v[i]);
	sbx_strv_free(&opts);
	for (size_t i = 0; run->envp && run->envp[i]; i++)
		push_env(out, p, run, run->envp[i]);
	/* The image's own entrypoint would take the script for its
	 * arguments: the command replaces it. */
	{
		_cleanup_free_ char *entry = in_container(run->workdir, run->argv[0]);

		sbx_strv_push_take(out, sbx_xasprintf("--entrypoint=%s", entry));
	}
	sbx_strv_push(out, image_of(p));
	for (size_t i = 1; run->argv[i]; i++)
		sbx_strv_push_take(out, in_container(run->workdir, run->argv[i]));
	return 0;
}

/* FNV-1a, 64 bits: a fingerprint of the options, not a secret. */
static uint64_t
fingerprint(const struct sbx_strv *v, const char *image)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	const char *s;

	for (size_t i = 0; i <= v->n; i++) {
		s = i < v->n ? v->v[i] : image;
		for (size_t j = 0; j <= strlen(s); j++) {
			h ^= (unsigned char)s[j];
			h *= 0x100000001b3ULL;
		}
	}
	return h;
}

int
sbx_docker_keep_argv(const struct sbx_policy *p, const struct sbx_docker_run *run,
    struct sbx_strv *out, char **spec, struct sbx_err *err)
{
	struct sbx_strv opts = { 0 };
	char *fp;

	*spec = NULL;
	if (push_container(p, run, &opts, err) < 0) {
		sbx_strv_free(&opts);
		return -1;
	}
	fp = sbx_xasprintf("%016" PRIx64, fingerprint(&opts, image_of(p)));
	sbx_strv_push(out, CLIENT(run));
	sbx_strv_push(out, "run");
	sbx_strv_push(out, "--detach");
	sbx_strv_push_take(out, sbx_xasprintf("--name=%s", run->name));
	sbx_strv_push_take(out, sbx_xasprintf("--label=" SBX_DOCKER_KEEP_LABEL "=%s", run->name));
	sbx_strv_push_take(
	    out, sbx_xasprintf("--label=" SBX_DOCKER_KEEP_LABEL ".workdir=%s", run->workdir));
	sbx_strv_push_take(
	    out, sbx_xasprintf("--label=" SBX_DOCKER_KEEP_LABEL ".image=%s", image_of(p)));
	sbx_strv_push_take(out, sbx_xasprintf("--label=" SBX_DOCKER_KEEP_LABEL ".spec=%s", fp));
	for (size_t i = 0; i < opts.n; i++)
		sbx_strv_push(out, opts.v[i]);
	sbx_strv_free(&opts);
	/* It only waits; every run is an exec into it. */
	sbx_strv_push(out, "--entrypoint=sleep");
	sbx_strv_push(out, image_of(p));
	sbx_strv_push(out, "infinity");
	*spec = fp;
	return 0;
}

/* The wrapper of a run in a kept container. The engine's init (tini, at
 * SBX_DOCKER_INIT in every container started with --init) puts the child
 * it starts in a process group of its own; that child records its pid,
 * the group's id, in the file $0 before it runs the command, so that a
 * timeout can end this run's group and nothing else of the container. */
static const char exec_wrapper[] =
    "echo $$ >\"$0\" || { echo \"sbxrun: cannot record the run's process group in $0\" >&2; "
    "exit 125; }; \"$@\"; s=$?; rm -f \"$0\"; exit $s";

/* Waits (bounded: 3 s) for the file of a run that may not have started
 * yet, then kills its group; never group 0 or 1 (this shell's own, or
 * every process it may signal). The run can replace the file: only a
 * regular file, not a symbolic link, is read, and at most 32 bytes of it
 * (a FIFO there made a cat block until the client was killed, leaving
 * the group alive). Exits 3 when there is no group to kill. */
static const char kill_script[] =
    "i=0; while ! { [ -f \"$0\" ] && [ ! -L \"$0\" ] && [ -s \"$0\" ]; } && [ $i -lt 30 ]; "
    "do sleep 0.1; i=$((i+1)); done; "
    "g=; if [ -f \"$0\" ] && [ ! -L \"$0\" ]; then g=$(head -c 32 \"$0\" 2>/dev/null); fi; "
    "rm -f \"$0\"; "
    "case $g in ''|*[!0-9]*|0|1) echo \"no process group id in $0\" >&2; exit 3;; esac; "
    "kill -KILL -\"$g\"";

int
sbx_docker_exec_argv(const struct sbx_policy *p, const struct sbx_docker_run *run,
    const char *pgid_file, struct sbx_strv *out, struct sbx_err *err)
{
	if (check_command(run, err) < 0 || check_path("process group file", pgid_file, err) < 0)
		return -1;
	sbx_strv_push(out, CLIENT(run));
	sbx_strv_push(out, "exec");
	sbx_strv_push(out, "-i");
	sbx_strv_push_take(
	    out, sbx_xasprintf("--user=%u:%u", (unsigned)run->uid, (unsigned)run->gid));
	sbx_strv_push(out, "--workdir=" SBX_DOCKER_WORK);
	for (size_t i = 0; run->envp && run->envp[i]; i++)
		push_env(out, p, run, run->envp[i]);
	sbx_strv_push(out, "--");
	sbx_strv_push(out, run->name);
	sbx_strv_push(out, SBX_DOCKER_INIT);
	sbx_strv_push(out, "-s");
	sbx_strv_push(out, "--");
	sbx_strv_push(out, "sh");
	sbx_strv_push(out, "-c");
	sbx_strv_push(out, exec_wrapper);
	sbx_strv_push(out, pgid_file);
	for (size_t i = 0; run->argv[i]; i++)
		sbx_strv_push_take(out, in_container(run->workdir, run->argv[i]));
	return 0;
}

void
sbx_docker_kill_argv(const char *docker, const char *name, uid_t uid, gid_t gid,
    const char *pgid_file, struct sbx_strv *out)
{
	sbx_strv_push(out, docker ? docker : "docker");
	sbx_strv_push(out, "exec");
	sbx_strv_push_take(out, sbx_xasprintf("--user=%u:%u", (unsigned)uid, (unsigned)gid));
	sbx_strv_push(out, "--");
	sbx_strv_push(out, name);
	sbx_strv_push(out, "sh");
	sbx_strv_push(out, "-c");
	sbx_strv_push(out, kill_script);
	sbx_strv_push(out, pgid_file);
}

void
sbx_docker_start_argv(const char *docker, const char *name, struct sbx_strv *out)
{
	sbx_strv_push(out, docker ? docker : "docker");
	sbx_strv_push(out, "start");
	sbx_strv_push(out, "--");
	sbx_strv_push(out, name);
}

void
sbx_docker_keep_inspect_argv(const char *docker, const char *name, struct sbx_strv *out)
{
	sbx_strv_push(out, docker ? docker : "docker");
	sbx_strv_push(out, "inspect");
	sbx_strv_push(out, "--type=container");
	sbx_strv_push(out,
	    "--format={{println .State.Running .State.OOMKilled}}"
	    "{{println (index .Config.Labels \"" SBX_DOCKER_KEEP_LABEL "\")}}"
	    "{{println (index .Config.Labels \"" SBX_DOCKER_KEEP_LABEL ".workdir\")}}"
	    "{{println (index .Config.Labels \"" SBX_DOCKER_KEEP_LABEL ".image\")}}"
	    "{{println (index .Config.Labels \"" SBX_DOCKER_KEEP_LABEL ".spec\")}}");
	sbx_strv_push(out, "--");
	sbx_strv_push(out, name);
}

int
sbx_docker_parse_keep(const char *text, struct sbx_docker_kept *k)
{
	char *lines[5];
	char *copy, *c, *sp;
	int n = 0;

	memset(k, 0, sizeof(*k));
	copy = sbx_xstrdup(text);
	for (c = copy; n < 5; n++) {
		char *nl = strchr(c, '\n');

		if (nl == NULL)
			break;
		*nl = '\0';
		lines[n] = c;
		c = nl + 1;
	}
	if (n < 5 || (sp = strchr(lines[0], ' ')) == NULL) {
		free(copy);
		return -1;
	}
	*sp = '\0';
	if (parse_bool(lines[0], strlen(lines[0]), &k->running) < 0 ||
	    parse_bool(sp + 1, strlen(sp + 1), &k->oom_killed) < 0) {
		free(copy);
		return -1;
	}
	k->keep = sbx_xstrdup(lines[1]);
	k->workdir = sbx_xstrdup(lines[2]);
	k->image = sbx_xstrdup(lines[3]);
	k->spec = sbx_xstrdup(lines[4]);
	free(copy);
	return 0;
}

void
sbx_docker_kept_free(struct sbx_docker_kept *k)
{
	free(k->keep);
	free(k->workdir);
	free(k->image);
	free(k->spec);
	memset(k, 0, sizeof(*k));
}

int
sbx_docker_name_check(const char *name, struct sbx_err *err)
{
	size_t n = strlen(name);

	/* The engine's own rule for names, [a-zA-Z0-9][a-zA-Z0-9_.-]+. */
	if (n < 2 || n > 128 || !isalnum((unsigned char)name[0]) ||
	    strspn(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-") != n)
		return sbx_err_set(err, EINVAL,
		    "bad container name '%s' (letters, digits, '_', '.', '-'; 2 to 128, "
		    "beginning with a letter or digit)",
		    name);
	return 0;
}

void
sbx_docker_inspect_argv(const char *docker, const char *name, struct sbx_strv *out)
{
	sbx_strv_push(out, docker ? docker : "docker");
	sbx_strv_push(out, "inspect");
	sbx_strv_push(out, "--type=container");
	sbx_strv_push(out,
	    "--format={{.State.Running}} {{.State.OOMKilled}} "
	    "{{.State.ExitCode}} {{.State.StartedAt}}");
	sbx_strv_push(out, "--");
	sbx_strv_push(out, name);
}

void
sbx_docker_rm_argv(const char *docker, const char *name, struct sbx_strv *out)
{
	sbx_strv_push(out, docker ? docker : "docker");
	sbx_strv_push(out, "rm");
	sbx_strv_push(out, "--force");
	/* The anonymous volumes of the image's VOLUME lines go with it:
	 * without -v each run left one, with what the sandbox wrote there,
	 * on the daemon's disk. */
	sbx_strv_push(out, "--volumes");
	sbx_strv_push(out, "--");
	sbx_strv_push(out, name);
}

void
sbx_docker_info_argv(const char *docker, struct sbx_strv *out)
{
	sbx_strv_push(out, docker ? docker : "docker");
	sbx_strv_push(out, "info");
	sbx_strv_push(out, "--format={{.ServerVersion}}");
}

int
sbx_docker_parse_inspect(
    const char *line, bool *running, bool *oom_killed, int *exit_code, bool *started)
{
	const char *f[4];
	size_t len[4];
	const char *c = line;
	char *end;
	long code;

	for (int i = 0; i < 4; i++) {
		c += strspn(c, " ");
		f[i] = c;
		len[i] = strcspn(c, " \n");
		if (len[i] == 0)
			return -1;
		c += len[i];
	}
	if (parse_bool(f[0], len[0], running) < 0 || parse_bool(f[1], len[1], oom_killed) < 0)
		return -1;
	errno = 0;
	code = strtol(f[2], &end, 10);
	if (errno || end != f[2] + len[2] || code < -1 || code > 255)
		return -1;
	*exit_code = (int)code;
	/* The zero time of Go: created, never started. */
	*started = strncmp(f[3], "0001-01-01", 10) != 0;
	return 0;
}

static void
shell_quote(struct sbx_buf *b, const char *s)
{
	if (*s &&
	    strspn(s,
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
		"-_=/.,:@%+") == strlen(s)) {
		sbx_buf_puts(b, s);
		return;
	}
	sbx_buf_putc(b, '\'');
	for (const char *c = s; *c; c++) {
		if (*c == '\'')
			sbx_buf_puts(b, "'\\''");
		else
			sbx_buf_putc(b, *c);
	}
	sbx_buf_putc(b, '\'');
}

void
sbx_docker_render(char *const *argv, struct sbx_buf *out)
{
	bool after_image = false;

	for (size_t i = 0; argv && argv[i]; i++) {
		if (i > 0)
			sbx_buf_puts(out, after_image ? " " : " \\\n    ");
		shell_quote(out, argv[i]);
		/* The image follows the last option; its arguments stay on
		 * its line. */
		if (i >= 2 && argv[i][0] != '-')
			after_image = true;
	}
	sbx_buf_putc(out, '\n');
}
