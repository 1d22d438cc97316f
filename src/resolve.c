#include "config.h"

#include <errno.h>
#include <glob.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

#include "resolve.h"
#include "secrets.h"

const char *const sbx_system_roots[] = {
	"/usr",
	"/bin",
	"/sbin",
	"/lib",
	"/lib32",
	"/lib64",
	"/libx32",
	"/etc",
	"/opt",
	"/nix/store",
	"/gnu/store",
	NULL,
};

static const char *const home_secrets[] = {
	".ssh",
	".aws",
	".gnupg",
	".config/gcloud",
	".kube",
	".docker",
	".netrc",
	".git-credentials",
	".npmrc",
	".pypirc",
	".config/gh",
	".azure",
	".password-store",
	"Library/Keychains",
};

static const char *const system_secrets[] = {
	"/etc/shadow",
	"/etc/shadow-",
	"/etc/gshadow",
	"/etc/gshadow-",
	"/etc/sudoers*",
	"/etc/ssh/ssh_host_*_key",
	"/etc/master.passwd",
};

/* Never a workdir, nor anything inside them: writing there changes how the
 * machine itself behaves (cron, init, libraries). */
static const char *const workdir_forbidden_trees[] = {
	"/proc",
	"/sys",
	"/dev",
	"/etc",
	"/usr",
	"/bin",
	"/sbin",
	"/lib",
	"/lib32",
	"/lib64",
	"/libx32",
	"/boot",
	"/var/lib",
	"/var/spool",
	"/var/log",
	"/var/cache",
	"/var/mail",
	"/var/backups",
	"/nix",
	"/gnu",
	NULL,
};

/* Never a workdir themselves (shared by everybody or a root of the system). */
static const char *const workdir_forbidden_exact[] = {
	"/",
	"/var",
	"/tmp",
	"/var/tmp",
	"/opt",
	"/run",
	"/srv",
	"/home",
	"/mnt",
	"/media",
	NULL,
};

static const char *const mount_forbidden_exact[] = {
	"/",
	"/etc",
	"/usr",
	"/var",
	"/bin",
	"/sbin",
	"/lib",
	"/lib32",
	"/lib64",
	"/libx32",
	"/boot",
	"/proc",
	"/sys",
	"/dev",
	"/run",
	NULL,
};

static const char *const mount_forbidden_trees[] = {
	"/proc",
	"/sys",
	"/dev",
	NULL,
};

void
sbx_secret_list(const char *home, struct sbx_strv *out)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(home_secrets); i++)
		sbx_strv_push_take(out, sbx_path_join(home, home_secrets[i]));
}

void
sbx_secret_list_system(struct sbx_strv *out)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(system_secrets); i++)
		sbx_strv_push(out, system_secrets[i]);
}

/* Whether path is entry, as written or as it resolves here: a canonical
 * path must be refused for /bin also where /bin is a link to /usr/bin
 * (merged /usr), or /etc where it is /private/etc (macOS). */
static bool
names(const char *path, const char *entry, bool tree)
{
	_cleanup_free_ char *real = NULL;

	if (tree ? sbx_path_is_under(path, entry) : strcmp(path, entry) == 0)
		return true;
	real = realpath(entry, NULL);
	if (real == NULL || strcmp(real, entry) == 0)
		return false;
	return tree ? sbx_path_is_under(path, real) : strcmp(path, real) == 0;
}

static bool
in_list_exact(const char *path, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (names(path, list[i], false))
			return true;
	return false;
}

static const char *
under_list(const char *path, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (names(path, list[i], true))
			return list[i];
	return NULL;
}

static const char *
under_strv(const char *path, const struct sbx_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		if (sbx_path_is_under(path, sv->v[i]))
			return sv->v[i];
	return NULL;
}

const char *
sbx_workdir_forbidden(const char *path, const struct sbx_strv *hidden)
{
	if (path[0] != '/')
		return "it is not an absolute path";
	if (in_list_exact(path, workdir_forbidden_exact))
		return "it is a system directory shared by everything on this machine";
	if (under_list(path, workdir_forbidden_trees))
		return "it lies in a system directory";
	if (under_strv(path, hidden))
		return "it is or lies inside a secret path";
	return NULL;
}

const char *
sbx_mount_source_forbidden(
    const char *path, const struct sbx_strv *homes, const struct sbx_strv *hidden)
{
	if (in_list_exact(path, mount_forbidden_exact))
		return "it is a system root";
	if (under_list(path, mount_forbidden_trees))
		return "it lies in /proc, /sys or /dev";
	if (sbx_strv_contains(homes, path))
		return "it is the caller's home directory";
	if (under_strv(path, hidden))
		return "it is or lies inside a secret path";
	return NULL;
}

/* realpath() that reports the path in the message. */
static int
canonical(const char *what, const char *path, char **out, struct sbx_err *err)
{
	char *r = realpath(path, NULL);

	if (r == NULL)
		return sbx_err_sys(err, "%s '%s'", what, path);
	*out = r;
	return 0;
}

/* Makes a possibly relative path absolute without resolving links. */
static char *
absolute(const char *path)
{
	char cwd[PATH_MAX];

	if (path[0] == '/' || getcwd(cwd, sizeof(cwd)) == NULL)
		return sbx_xstrdup(path);
	return sbx_path_join(cwd, path);
}

static void
add_hidden(struct sbx_strv *hidden, const char *path)
{
	_cleanup_free_ char *abs = absolute(path);
	char *real;

	if (!sbx_strv_contains(hidden, abs))
		sbx_strv_push(hidden, abs);
	real = realpath(abs, NULL);
	if (real && !sbx_strv_contains(hidden, real))
		sbx_strv_push_take(hidden, real);
	else
		free(real);
}

static void
build_hidden(const struct sbx_policy *p, const struct sbx_strv *homes, struct sbx_strv *hidden)
{
	struct sbx_strv raw = { 0 };

	for (size_t i = 0; i < homes->n; i++)
		sbx_secret_list(homes->v[i], &raw);
	sbx_secret_list_system(&raw);
	sbx_strv_copy(&raw, &p->deny);
	for (size_t i = 0; i < raw.n; i++) {
		glob_t g;

		if (strpbrk(raw.v[i], "*?[") == NULL) {
			add_hidden(hidden, raw.v[i]);
			continue;
		}
		if (glob(raw.v[i], GLOB_NOSORT, NULL, &g) == 0)
			for (size_t k = 0; k < g.gl_pathc; k++)
				add_hidden(hidden, g.gl_pathv[k]);
		globfree(&g);
	}
	sbx_strv_free(&raw);
}

/* The mount target must not pass through a symlink: every existing
 * component below the workdir is checked with lstat. */
static int
check_target(
    const char *workdir, const struct sbx_mount *m, const char *source, struct sbx_err *err)
{
	_cleanup_free_ char *path = sbx_path_join(workdir, m->target);
	size_t base = strlen(workdir);
	struct stat st, sst;
	bool exists = true;

	if (strcmp(m->target, ".") == 0 || m->target[strspn(m->target, "./")] == '\0')
		return sbx_err_set(
		    err, EINVAL, "mount target '%s' is the workdir itself", m->target);
	if (sbx_str_has_prefix(m->target, ".sbxrun") &&
	    (m->target[7] == '\0' || m->target[7] == '/'))
		return sbx_err_set(
		    err, EINVAL, "mount target '%s' is sbxrun's own state", m->target);
	for (char *c = path + base + 1; exists; c++) {
		char saved = *c;

		if (*c != '/' && *c != '\0')
			continue;
		*c = '\0';
		if (lstat(path, &st) < 0) {
			if (errno != ENOENT)
				return sbx_err_sys(err, "mount target '%s'", m->target);
			exists = false;
		} else if (S_ISLNK(st.st_mode)) {
			return sbx_err_set(err, EINVAL,
			    "mount target '%s' passes through the symlink %s", m->target, path);
		}
		*c = saved;
		if (saved == '\0')
			break;
	}
	if (exists && stat(source, &sst) == 0 && S_ISDIR(st.st_mode) != S_ISDIR(sst.st_mode))
		return sbx_err_set(err, EINVAL, "mount target '%s' is a %s but the source is not",
		    m->target, S_ISDIR(st.st_mode) ? "directory" : "file");
	return 0;
}

int
sbx_resolve(struct sbx_policy *p, const struct sbx_strv *homes, const char *temp_workdir,
    struct sbx_fsview *v, struct sbx_err *err)
{
	_cleanup_free_ char *state = NULL;
	const char *why;

	memset(v, 0, sizeof(*v));
	sbx_strv_copy(&v->homes, homes);
	build_hidden(p, homes, &v->hidden);
	sbx_secrets_widen(&sbx_host_idfs, p, homes, v);
	for (size_t i = 0; sbx_system_roots[i]; i++)
		if (access(sbx_system_roots[i], F_OK) == 0)
			sbx_strv_push(&v->roots, sbx_system_roots[i]);

	if (p->workdir) {
		struct stat st;

		if (canonical("workdir", p->workdir, &v->workdir, err) < 0)
			return -1;
		if (stat(v->workdir, &st) < 0 || !S_ISDIR(st.st_mode))
			return sbx_err_set(
			    err, ENOTDIR, "workdir '%s' is not a directory", p->workdir);
	} else {
		if (temp_workdir == NULL)
			return sbx_err_set(err, EINVAL, "no workdir");
		if (canonical("workdir", temp_workdir, &v->workdir, err) < 0)
			return -1;
		v->workdir_temp = true;
	}
	why = sbx_workdir_forbidden(v->workdir, &v->hidden);
	if (why)
		return sbx_err_set(err, EPERM, "workdir '%s' refused: %s", v->workdir, why);

	for (size_t i = 0; i < p->read.n; i++) {
		char *r = realpath(p->read.v[i], NULL);

		if (r == NULL) {
			sbx_strv_push_take(&p->warnings,
			    sbx_xasprintf("read path '%s' does not exist; skipped", p->read.v[i]));
			continue;
		}
		if (!sbx_strv_contains(&v->read, r))
			sbx_strv_push_take(&v->read, r);
		else
			free(r);
	}

	state = sbx_path_join(v->workdir, ".sbxrun");
	for (size_t i = 0; i < p->nmounts; i++) {
		struct sbx_mount *m = &p->mounts[i];
		_cleanup_free_ char *src = NULL;
		struct stat st;

		if (canonical("mount source", m->source, &src, err) < 0)
			return -1;
		why = sbx_mount_source_forbidden(src, homes, &v->hidden);
		if (why == NULL && sbx_path_is_under(src, state))
			why = "it is sbxrun's own state (.sbxrun in the workdir)";
		if (why)
			return sbx_err_set(
			    err, EPERM, "mount source '%s' refused: %s", m->source, why);
		if (stat(src, &st) < 0)
			return sbx_err_sys(err, "mount source '%s'", m->source);
		if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
			return sbx_err_set(err, EPERM,
			    "mount source '%s' refused: only directories and regular files can be "
			    "mounted",
			    m->source);
		if (check_target(v->workdir, m, src, err) < 0)
			return -1;
		free(m->source);
		m->source = steal_ptr(&src);
	}
	return sbx_secrets_check(&sbx_host_idfs, p, homes, v, err);
}

void
sbx_fsview_free(struct sbx_fsview *v)
{
	free(v->workdir);
	sbx_strv_free(&v->homes);
	sbx_strv_free(&v->hidden);
	sbx_strv_free(&v->roots);
	sbx_strv_free(&v->read);
	memset(v, 0, sizeof(*v));
}
