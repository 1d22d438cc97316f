/* Resolving a policy against the filesystem: the secret list, what may not
 * be a workdir or a mount source, and sbx_resolve() on real temporary
 * trees (canonical paths, symlinks, missing paths). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "resolve.h"
#include "tap.h"

static char base_tmpl[] = "/tmp/sbx-test-resolve.XXXXXX";
static char *base; /* canonical */
static char *home; /* base/home: the fake caller's home */

static char *
at(const char *rel)
{
	return sbx_path_join(base, rel);
}

static void
mkdir_p(const char *rel)
{
	char *path = at(rel);

	for (char *c = path + strlen(base) + 1; *c; c++) {
		if (*c == '/') {
			*c = '\0';
			mkdir(path, 0755);
			*c = '/';
		}
	}
	mkdir(path, 0755);
	free(path);
}

static void
touch(const char *rel)
{
	char *path = at(rel);
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

	if (fd < 0) {
		diag("cannot create %s", path);
		exit(1);
	}
	close(fd);
	free(path);
}

static void
symlink_to(const char *target, const char *rel)
{
	char *path = at(rel);

	if (symlink(target, path) < 0) {
		diag("cannot make the symlink %s", path);
		exit(1);
	}
	free(path);
}

static void
test_secret_list(void)
{
	static const char *const want[] = {
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
	};
	static const char *const want_system[] = {
		"/etc/shadow",
		"/etc/gshadow",
		"/etc/sudoers",
		"/etc/sudoers.d",
		"/etc/sudoers.dpkg-old",
		"/etc/ssh/ssh_host_ed25519_key",
		"/etc/ssh/ssh_host_rsa_key",
	};
	struct sbx_strv sv = { 0 };

	sbx_secret_list("/home/u", &sv);
	for (size_t i = 0; i < SBX_ARRAY_LEN(want); i++) {
		char *path = sbx_path_join("/home/u", want[i]);

		ok(sbx_strv_contains(&sv, path), "the secret list has ~/%s", want[i]);
		free(path);
	}
	{
		size_t outside = 0;

		for (size_t i = 0; i < sv.n; i++)
			outside += !sbx_str_has_prefix(sv.v[i], "/home/u/");
		ok(sv.n >= SBX_ARRAY_LEN(want) && outside == 0,
		    "the home secret list holds documented entries (and maybe more), all under the "
		    "home");
	}
	sbx_strv_free(&sv);
	sbx_secret_list("/home/u/", &sv);
	ok(sbx_strv_contains(&sv, "/home/u/.ssh"),
	    "a home with a trailing slash gives clean paths");
	sbx_strv_free(&sv);

	/* Entries may be glob patterns (resolve expands them). */
	sbx_secret_list_system(&sv);
	for (size_t i = 0; i < SBX_ARRAY_LEN(want_system); i++) {
		bool found = false;

		for (size_t k = 0; k < sv.n && !found; k++)
			found = fnmatch(sv.v[k], want_system[i], FNM_PATHNAME | FNM_PERIOD) == 0;
		ok(found, "the system secret list covers %s", want_system[i]);
	}
	{
		bool found = false;

		for (size_t k = 0; k < sv.n; k++)
			found = found ||
			    fnmatch(sv.v[k], "/etc/ssh/ssh_host_ed25519_key.pub", FNM_PATHNAME) ==
				0 ||
			    fnmatch(sv.v[k], "/etc/passwd", FNM_PATHNAME) == 0;
		ok(!found, "... but not the public host keys nor /etc/passwd");
	}
	sbx_strv_free(&sv);
}

static void
test_workdir_forbidden(void)
{
	static const char *const refused[] = {
		"/",
		"/etc",
		"/etc/cron.d",
		"/usr",
		"/usr/local/src",
		"/bin",
		"/sbin",
		"/lib",
		"/lib64",
		"/lib32",
		"/libx32",
		"/boot",
		"/boot/efi",
		"/proc",
		"/proc/1",
		"/proc/self/cwd",
		"/sys",
		"/sys/fs/cgroup",
		"/dev",
		"/dev/shm",
		"/var",
		"/var/lib/dpkg",
		"/var/log",
		"/var/spool/cron",
		"/var/cache",
		"/var/mail",
		"/tmp",
		"/var/tmp",
		"/opt",
		"/run",
		"/srv",
		"/home",
		"/mnt",
		"/media",
		"/nix/store/x",
		"/gnu/store",
		"relative/dir",
		"",
		"/home/u/.ssh",
		"/home/u/.ssh/keys",
		"/home/u/.config/gh",
		"/srv/secret",
	};
	static const char *const allowed[] = {
		"/tmp/x",
		"/tmp/sbxrun.abc",
		"/var/tmp/x",
		"/home/u",
		"/home/u/proj",
		"/home/u/.sshx",
		"/home/u/.config",
		"/srv/data",
		"/opt/app",
		"/mnt/disk",
		"/run/user/1000/w",
		"/root/proj",
		"/var/www",
		"/srv/secretary",
		"/usrx",
		"/etcetera",
	};
	struct sbx_strv hidden = { 0 };

	sbx_secret_list("/home/u", &hidden);
	sbx_strv_push(&hidden, "/srv/secret");
	for (size_t i = 0; i < SBX_ARRAY_LEN(refused); i++) {
		const char *why = sbx_workdir_forbidden(refused[i], &hidden);

		ok(why != NULL, "workdir '%s' is refused (%s)", refused[i], why ? why : "accepted");
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(allowed); i++) {
		const char *why = sbx_workdir_forbidden(allowed[i], &hidden);

		ok(why == NULL, "workdir '%s' is allowed%s%s", allowed[i], why ? ": " : "",
		    why ? why : "");
	}
	like(sbx_workdir_forbidden("/home/u/.ssh", &hidden), "secret",
	    "the reason for a secret path says so");
	like(sbx_workdir_forbidden("/proc/1", &hidden), "system",
	    "the reason for /proc/1 says system directory");
	sbx_strv_free(&hidden);
}

static void
test_mount_source_forbidden(void)
{
	static const char *const refused[] = {
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
		"/proc/1",
		"/proc/self/root",
		"/sys",
		"/sys/kernel",
		"/dev",
		"/dev/sda",
		"/run",
		"/home/u",
		"/home/u/.ssh",
		"/home/u/.ssh/id_ed25519",
		"/home/u/.aws/credentials",
		"/home/u/.netrc",
		"/etc/shadow",
		"/etc/sudoers.d/x",
		"/srv/secret/x",
		"/root",
	};
	static const char *const allowed[] = {
		"/srv/data",
		"/etc/ssl",
		"/usr/share/dict",
		"/var/www",
		"/home/u/proj",
		"/home/u/.config",
		"/home/u/.sshx",
		"/tmp/x",
		"/opt",
		"/home",
		"/mnt/usb",
		"/srv/secretary",
	};
	struct sbx_strv hidden = { 0 }, homes = { 0 };

	sbx_strv_push(&homes, "/home/u");
	sbx_strv_push(&homes, "/root");
	sbx_secret_list("/home/u", &hidden);
	sbx_secret_list_system(&hidden);
	sbx_strv_push(&hidden, "/etc/sudoers.d"); /* as resolve expands /etc/sudoers* */
	sbx_strv_push(&hidden, "/srv/secret");
	for (size_t i = 0; i < SBX_ARRAY_LEN(refused); i++) {
		const char *why = sbx_mount_source_forbidden(refused[i], &homes, &hidden);

		ok(why != NULL, "mount source '%s' is refused (%s)", refused[i],
		    why ? why : "accepted");
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(allowed); i++) {
		const char *why = sbx_mount_source_forbidden(allowed[i], &homes, &hidden);

		ok(why == NULL, "mount source '%s' is allowed%s%s", allowed[i], why ? ": " : "",
		    why ? why : "");
	}
	like(sbx_mount_source_forbidden("/home/u", &homes, &hidden), "home",
	    "the reason for the home says so");
	/* A source arrives canonical: where /bin is a link (merged /usr, as
	 * on Debian 12), what it resolves to is refused as /bin itself. */
	for (size_t i = 0; i < SBX_ARRAY_LEN(refused); i++) {
		_cleanup_free_ char *real = realpath(refused[i], NULL);

		if (real == NULL || strcmp(real, refused[i]) == 0)
			continue;
		ok(sbx_mount_source_forbidden(real, &homes, &hidden) != NULL,
		    "mount source '%s' (what %s is here) is refused", real, refused[i]);
	}
	sbx_strv_free(&hidden);
	sbx_strv_free(&homes);
}

static void
test_path_helpers(void)
{
	ok(sbx_path_is_under("/a/b", "/a"), "/a/b is under /a");
	ok(sbx_path_is_under("/a", "/a"), "/a is under /a");
	ok(sbx_path_is_under("/a/b", "/a/"), "/a/b is under /a/");
	ok(!sbx_path_is_under("/ab", "/a"), "/ab is not under /a");
	ok(!sbx_path_is_under("/a", "/a/b"), "/a is not under /a/b");
	ok(sbx_path_is_under("/anything", "/"), "everything absolute is under /");
	ok(!sbx_path_is_under("rel", "/"), "a relative path is not under /");
	{
		char *j = sbx_path_join("/a/", "/b");

		is_str(j, "/a/b", "join avoids double slashes");
		free(j);
	}
}

/* Resolves policy p with the fake home; returns the result. */
static int
resolve(struct sbx_policy *p, const char *temp, struct sbx_fsview *v, struct sbx_err *err)
{
	struct sbx_strv homes = { 0 };
	int r;

	memset(err, 0, sizeof(*err));
	sbx_strv_push(&homes, home);
	r = sbx_resolve(p, &homes, temp, false, v, err);
	sbx_strv_free(&homes);
	return r;
}

static void
test_resolve_workdir(void)
{
	struct sbx_policy p;
	struct sbx_fsview v;
	struct sbx_err err;
	char *w = at("w"), *want;

	/* An explicit workdir, reached three ways. */
	sbx_policy_init(&p, home);
	p.workdir = at("w");
	if (is_int(resolve(&p, NULL, &v, &err), 0, "an existing workdir resolves")) {
		is_str(v.workdir, w, "workdir is canonical");
		ok(!v.workdir_temp, "an explicit workdir is not temporary");
		ok(sbx_strv_contains(&v.homes, home), "the homes are kept");
		ok(sbx_strv_contains(&v.roots, "/usr"), "the system roots present here are listed");
		{
			bool all_exist = true;

			for (size_t i = 0; i < v.roots.n; i++)
				all_exist = all_exist && access(v.roots.v[i], F_OK) == 0;
			ok(all_exist, "a missing system root is skipped");
		}
	} else {
		diag("error: %s", err.msg);
	}
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = at("w/sub/../.");
	if (is_int(resolve(&p, NULL, &v, &err), 0, "a workdir with .. and ."))
		is_str(v.workdir, w, "'..' and '.' are resolved");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = at("link-to-w");
	if (is_int(resolve(&p, NULL, &v, &err), 0, "a workdir through a symlink"))
		is_str(v.workdir, w, "the symlink is resolved");
	sbx_fsview_free(&v);

	/* Refused workdirs. */
	free(p.workdir);
	p.workdir = at("missing");
	want = sbx_xasprintf("workdir '%s': No such file or directory", p.workdir);
	is_int(resolve(&p, NULL, &v, &err), -1, "a missing workdir is refused");
	is_str(err.msg, want, "... message");
	sbx_fsview_free(&v);
	free(want);
	free(p.workdir);
	p.workdir = at("file");
	is_int(resolve(&p, NULL, &v, &err), -1, "a file as workdir is refused");
	like(err.msg, "is not a directory", "... message");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = at("home/.ssh");
	is_int(resolve(&p, NULL, &v, &err), -1, "~/.ssh as workdir is refused");
	like(err.msg, "refused", "... message says refused");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = at("home/.ssh/inner");
	is_int(resolve(&p, NULL, &v, &err), -1, "a dir inside ~/.ssh is refused");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = at("w/sneaky");
	is_int(resolve(&p, NULL, &v, &err), -1, "a symlink into ~/.ssh is refused");
	like(err.msg, "secret", "... because the target is secret");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = at("home/.aws");
	is_int(resolve(&p, NULL, &v, &err), -1,
	    "~/.aws, a symlink to a dir elsewhere, is refused as workdir");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = at("elsewhere/aws");
	is_int(resolve(&p, NULL, &v, &err), -1,
	    "the real dir behind the ~/.aws symlink is refused too");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = sbx_xstrdup("/etc");
	is_int(resolve(&p, NULL, &v, &err), -1, "/etc is refused");
	is_str(err.msg, "workdir '/etc' refused: it lies in a system directory", "... message");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = sbx_xstrdup("/proc/1");
	is_int(resolve(&p, NULL, &v, &err), -1, "/proc/1 is refused");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = sbx_xstrdup("/");
	is_int(resolve(&p, NULL, &v, &err), -1, "/ is refused");
	sbx_fsview_free(&v);
	free(p.workdir);
	p.workdir = at("deny-me/x");
	sbx_strv_push_take(&p.deny, at("deny-me"));
	is_int(resolve(&p, NULL, &v, &err), -1, "a workdir inside a [deny] path is refused");
	sbx_fsview_free(&v);
	sbx_policy_free(&p);

	/* The temporary workdir. */
	sbx_policy_init(&p, home);
	if (is_int(resolve(&p, w, &v, &err), 0, "a temporary workdir resolves")) {
		is_str(v.workdir, w, "its canonical path");
		ok(v.workdir_temp, "it is marked temporary (sbxrun removes it)");
		ok(!v.workdir_empty, "one holding entries is not seen empty");
	}
	sbx_fsview_free(&v);
	{
		char *empty = at("empty-w");

		if (is_int(resolve(&p, empty, &v, &err), 0, "an empty temporary workdir resolves"))
			ok(v.workdir_empty, "it is seen empty (the plan looks up no name in it)");
		sbx_fsview_free(&v);
		p.workdir = empty;
		if (is_int(resolve(&p, NULL, &v, &err), 0, "the same directory given with -w"))
			ok(!v.workdir_empty, "a -w workdir is looked into, empty or not");
		sbx_fsview_free(&v);
		p.workdir = NULL;
		free(empty);
	}
	is_int(resolve(&p, NULL, &v, &err), -1, "neither a workdir nor a temp dir: refused");
	is_str(err.msg, "no workdir", "... message");
	sbx_fsview_free(&v);
	sbx_policy_free(&p);
	free(w);
}

static void
test_resolve_hidden(void)
{
	struct sbx_policy p;
	struct sbx_fsview v;
	struct sbx_err err;
	char *ssh = at("home/.ssh"), *aws = at("home/.aws"), *aws_real = at("elsewhere/aws");
	char *k1 = at("keys/a.key"), *k2 = at("keys/b.key"), *k3 = at("keys/c.txt");
	char *pattern = at("keys/*.key");
	char *dot = at("keys/.hidden.key"), *lk = at("keys/link.key"), *k4 = at("keys/d.txt");

	sbx_policy_init(&p, home);
	p.workdir = at("w");
	sbx_strv_push_take(&p.deny, pattern);
	sbx_strv_push_take(&p.deny, at("k*s/d.txt"));
	if (is_int(resolve(&p, NULL, &v, &err), 0, "resolve with a [deny] glob")) {
		ok(sbx_strv_contains(&v.hidden, ssh), "hidden has ~/.ssh");
		ok(sbx_strv_contains(&v.hidden, aws), "hidden has the ~/.aws symlink as written");
		ok(sbx_strv_contains(&v.hidden, aws_real), "... and the directory it points to");
		ok(sbx_strv_contains(&v.hidden, "/etc/shadow"), "hidden has /etc/shadow");
		ok(sbx_strv_contains(&v.hidden, k1) && sbx_strv_contains(&v.hidden, k2),
		    "a [deny] glob adds each match");
		ok(!sbx_strv_contains(&v.hidden, k3), "... and nothing else");
		ok(!sbx_strv_contains(&v.hidden, dot),
		    "... a leading dot only explicitly, as glob(3)");
		ok(sbx_strv_contains(&v.hidden, lk) && sbx_strv_contains(&v.hidden, aws_real),
		    "a match that is a symlink: as written and where it leads");
		for (int i = 0; i < 40; i++) {
			char *many = sbx_xasprintf("%s/keys/m%02d.key", base, i);

			if (!sbx_strv_contains(&v.hidden, many)) {
				ok(false, "every one of 40 more matches is hidden (%s missing)",
				    many);
				free(many);
				break;
			}
			free(many);
			if (i == 39)
				ok(true, "every one of 40 more matches is hidden");
		}
		ok(sbx_strv_contains(&v.hidden, k4),
		    "a glob with a wildcard above its last name matches too");
	} else {
		diag("error: %s", err.msg);
	}
	sbx_fsview_free(&v);
	sbx_policy_free(&p);
	free(ssh);
	free(aws);
	free(aws_real);
	free(k1);
	free(k2);
	free(k3);
	free(dot);
	free(lk);
	free(k4);
}

/* The secrets with no entry at all are listed as missing, for the plan to
 * take as such without looking again; a dangling symlink, a name below a
 * directory that cannot be searched, and an existing entry are not. */
static void
test_resolve_missing(void)
{
	struct sbx_policy p;
	struct sbx_fsview v;
	struct sbx_err err;
	char *absent = at("gone/x"), *below_dir = at("nodir/a/b"), *below_file = at("m/file/x");
	char *dangling = at("m/dangling"), *exists = at("m/file"), *ssh = at("home/.ssh");
	char *closed = at("m/closed/x"), *closed_dir = at("m/closed");

	mkdir_p("m");
	touch("m/file");
	symlink_to("nowhere", "m/dangling");
	mkdir_p("m/closed");
	sbx_policy_init(&p, home);
	p.workdir = at("w");
	sbx_strv_push(&p.deny, absent);
	sbx_strv_push(&p.deny, below_dir);
	sbx_strv_push(&p.deny, below_file);
	sbx_strv_push(&p.deny, dangling);
	sbx_strv_push(&p.deny, exists);
	sbx_strv_push(&p.deny, closed);
	/* As root the closed directory is searched all the same. */
	chmod(closed_dir, 0);
	if (is_int(resolve(&p, NULL, &v, &err), 0, "resolve with missing [deny] paths")) {
		ok(sbx_strv_contains(&v.missing, absent), "a name that is not there is missing");
		ok(sbx_strv_contains(&v.missing, below_dir),
		    "a name below a directory that is not there is missing");
		ok(sbx_strv_contains(&v.missing, below_file), "a name below a file is missing");
		ok(!sbx_strv_contains(&v.missing, dangling),
		    "a dangling symlink is not missing (its name exists)");
		ok(!sbx_strv_contains(&v.missing, exists), "a file that exists is not missing");
		ok(!sbx_strv_contains(&v.missing, ssh), "~/.ssh, which exists, is not missing");
		ok(geteuid() == 0 || !sbx_strv_contains(&v.missing, closed),
		    "a name below a directory that cannot be searched is not missing");
		ok(sbx_strv_contains(&v.hidden, dangling) && sbx_strv_contains(&v.hidden, absent),
		    "missing or not, each stays in the hidden list");
	} else {
		diag("error: %s", err.msg);
	}
	sbx_fsview_free(&v);
	chmod(closed_dir, 0755);
	sbx_policy_free(&p);
	free(absent);
	free(below_dir);
	free(below_file);
	free(dangling);
	free(exists);
	free(ssh);
	free(closed);
	free(closed_dir);
}

static void
test_resolve_read(void)
{
	struct sbx_policy p;
	struct sbx_fsview v;
	struct sbx_err err;
	char *data = at("data"), *missing = at("nothere"), *want;

	sbx_policy_init(&p, home);
	p.workdir = at("w");
	sbx_strv_push_take(&p.read, at("data"));
	sbx_strv_push_take(&p.read, at("link-to-data"));
	sbx_strv_push_take(&p.read, at("data/../data/."));
	sbx_strv_push(&p.read, missing);
	if (is_int(resolve(&p, NULL, &v, &err), 0, "read paths resolve")) {
		ok(v.read.n == 1 && strcmp(v.read.v[0], data) == 0,
		    "three spellings of one directory give one canonical read path");
		want = sbx_xasprintf("read path '%s' does not exist; skipped", missing);
		ok(p.warnings.n == 1 && strcmp(p.warnings.v[0], want) == 0,
		    "a missing read path is a warning, not an error");
		if (p.warnings.n)
			diag("warning: %s", p.warnings.v[0]);
		free(want);
	} else {
		diag("error: %s", err.msg);
	}
	sbx_fsview_free(&v);
	sbx_policy_free(&p);
	free(data);
	free(missing);
}

/* Resolves one mount of source and target over workdir base/w. */
static int
resolve_mount(const char *source, const char *target, char **canonical, struct sbx_err *err)
{
	struct sbx_policy p;
	struct sbx_fsview v;
	char *value = sbx_xasprintf("%s:rw", source);
	int r;

	sbx_policy_init(&p, home);
	p.workdir = at("w");
	if (sbx_policy_set(&p, "mounts", target, value, err) < 0) {
		diag("mount not accepted by the policy: %s", err->msg);
		r = -2;
	} else {
		r = resolve(&p, NULL, &v, err);
		if (r == 0 && canonical)
			*canonical = sbx_xstrdup(p.mounts[0].source);
		sbx_fsview_free(&v);
	}
	sbx_policy_free(&p);
	free(value);
	return r;
}

static void
test_resolve_mounts(void)
{
	struct sbx_err err;
	char *data = at("data"), *src = NULL, *s;

	/* Canonical sources. */
	s = at("data");
	if (is_int(resolve_mount(s, "d", &src, &err), 0, "a directory mounts"))
		is_str(src, data, "... source canonical");
	free(src);
	src = NULL;
	free(s);
	s = at("link-to-data");
	if (is_int(resolve_mount(s, "d", &src, &err), 0, "a symlinked source mounts"))
		is_str(src, data, "... the source is where the symlink leads");
	free(src);
	src = NULL;
	free(s);
	s = at("w/../data/./");
	if (is_int(resolve_mount(s, "d", &src, &err), 0, "a source with .. and ."))
		is_str(src, data, "... '..' and '.' resolved");
	free(src);
	src = NULL;
	free(s);
	s = at("data/f.txt");
	ok(resolve_mount(s, "f.txt", NULL, &err) == 0, "a regular file mounts");
	free(s);
	s = at("data/f.txt");
	ok(resolve_mount(s, "newdir/f.txt", NULL, &err) == 0, "a target that does not exist yet");
	free(s);

	/* Refused sources. */
	s = at("nothere");
	is_int(resolve_mount(s, "d", NULL, &err), -1, "a missing source is refused");
	like(err.msg, "mount source", "... message says mount source");
	like(err.msg, "No such file or directory", "... and why");
	free(s);
	is_int(resolve_mount(home, "h", NULL, &err), -1, "the home itself is refused");
	like(err.msg, "home", "... message");
	s = at("home/.ssh");
	is_int(resolve_mount(s, "s", NULL, &err), -1, "~/.ssh is refused");
	like(err.msg, "secret", "... message");
	free(s);
	s = at("home/.ssh/inner");
	is_int(resolve_mount(s, "s", NULL, &err), -1, "a dir inside ~/.ssh is refused");
	free(s);
	s = at("w/sneaky");
	is_int(resolve_mount(s, "s", NULL, &err), -1, "a symlink into ~/.ssh is refused");
	free(s);
	s = at("home/proj/../.ssh");
	is_int(resolve_mount(s, "s", NULL, &err), -1, "~/proj/../.ssh is refused");
	free(s);
	s = at("elsewhere/aws");
	is_int(resolve_mount(s, "s", NULL, &err), -1, "the real dir behind ~/.aws is refused");
	free(s);
	s = at("w/.sbxrun/state");
	is_int(resolve_mount(s, "st", NULL, &err), -1,
	    "a source inside the workdir's .sbxrun is refused");
	like(err.msg, "sbxrun's own state", "... message");
	free(s);
	is_int(resolve_mount("/etc", "etc", NULL, &err), -1, "/etc is refused");
	is_int(resolve_mount("/", "root", NULL, &err), -1, "/ is refused");
	is_int(resolve_mount("/proc/self", "p", NULL, &err), -1, "/proc/self is refused");
	is_int(resolve_mount("/dev/null", "n", NULL, &err), -1, "/dev/null is refused");
	s = at("fifo");
	is_int(resolve_mount(s, "f", NULL, &err), -1, "a FIFO is refused");
	like(err.msg, "only directories and regular files", "... message");
	free(s);

	/* Refused targets. */
	is_int(
	    resolve_mount(data, "lnk/x", NULL, &err), -1, "a target through a symlink is refused");
	like(err.msg, "passes through the symlink", "... message");
	is_int(resolve_mount(data, "lnk", NULL, &err), -1, "a target that is a symlink is refused");
	is_int(resolve_mount(data, "sub/lnk2/y", NULL, &err), -1,
	    "a symlink deeper in the target is refused");
	is_int(resolve_mount(data, ".", NULL, &err), -1, "the workdir itself as target is refused");
	like(err.msg, "the workdir itself", "... message");
	is_int(resolve_mount(data, "./", NULL, &err), -1, "'./' as target is refused");
	is_int(resolve_mount(data, ".sbxrun", NULL, &err), -1, ".sbxrun is sbxrun's own");
	like(err.msg, "sbxrun's own state", "... message");
	is_int(resolve_mount(data, ".sbxrun/x", NULL, &err), -1, "inside .sbxrun is refused");
	ok(resolve_mount(data, ".sbxrunx", NULL, &err) == 0, ".sbxrunx is fine");
	s = at("data/f.txt");
	is_int(resolve_mount(s, "sub", NULL, &err), -1,
	    "a file over an existing directory is refused");
	like(err.msg, "is a directory but the source is not", "... message");
	free(s);
	is_int(resolve_mount(data, "file-in-w", NULL, &err), -1,
	    "a directory over an existing file is refused");
	free(data);
}

/* The tree every test uses, under base:
 *   home/.ssh/inner  home/.aws -> elsewhere/aws  home/proj  elsewhere/aws
 *   w/sub  w/.sbxrun/state  w/lnk -> /etc  w/sub/lnk2 -> /tmp  w/file-in-w  w/sneaky -> home/.ssh
 *   link-to-w -> w  data/f.txt  link-to-data -> data  file  fifo  keys/{a,b}.key keys/c.txt */
static void
make_tree(void)
{
	char *p;

	mkdir_p("home/.ssh/inner");
	mkdir_p("home/proj");
	mkdir_p("elsewhere/aws");
	mkdir_p("w/sub");
	mkdir_p("w/.sbxrun/state");
	mkdir_p("data");
	mkdir_p("keys");
	mkdir_p("deny-me/x");
	p = at("elsewhere/aws");
	symlink_to(p, "home/.aws");
	free(p);
	symlink_to("/etc", "w/lnk");
	symlink_to("/tmp", "w/sub/lnk2");
	touch("w/file-in-w");
	p = at("home/.ssh");
	symlink_to(p, "w/sneaky");
	free(p);
	symlink_to("w", "link-to-w");
	symlink_to("data", "link-to-data");
	touch("data/f.txt");
	touch("file");
	touch("keys/a.key");
	touch("keys/b.key");
	touch("keys/c.txt");
	touch("keys/d.txt");
	touch("keys/.hidden.key");
	p = at("elsewhere/aws");
	symlink_to(p, "keys/link.key");
	free(p);
	for (int i = 0; i < 40; i++) {
		char rel[32];

		snprintf(rel, sizeof(rel), "keys/m%02d.key", i);
		touch(rel);
	}
	p = at("fifo");
	if (mkfifo(p, 0600) < 0)
		diag("mkfifo failed");
	free(p);
	mkdir_p("empty-w");
	mkdir_p("globs");
	touch("globs/abc");
	touch("globs/xabc");
	touch("globs/ab");
	touch("globs/abcd");
	touch("globs/.abz");
	touch("globs/a*b");
	touch("globs/axb");
}

/* Patterns whose last name starts with plain characters: the names
 * listed are first compared with that start (glob_last()), and must match
 * as glob(3) matches them. */
static void
test_resolve_glob_prefix(void)
{
	static const char *const patterns[] = { "globs/ab?", "globs/.ab*", "globs/a\\*b" };
	static const struct {
		const char *name;
		bool hidden;
	} want[] = {
		{ "globs/abc", true }, /* ab? */
		{ "globs/xabc", false }, /* the start is not ab */
		{ "globs/ab", false }, /* one character short */
		{ "globs/abcd", false }, /* one too many */
		{ "globs/.abz", true }, /* a leading dot, asked for */
		{ "globs/a*b", true }, /* an escaped star is a star */
		{ "globs/axb", false }, /* ... and nothing else */
	};
	struct sbx_policy p;
	struct sbx_fsview v;
	struct sbx_err err;

	sbx_policy_init(&p, home);
	p.workdir = at("w");
	for (size_t i = 0; i < SBX_ARRAY_LEN(patterns); i++)
		sbx_strv_push_take(&p.deny, at(patterns[i]));
	if (is_int(
		resolve(&p, NULL, &v, &err), 0, "resolve with [deny] globs after a plain start")) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(want); i++) {
			char *path = at(want[i].name);

			ok(sbx_strv_contains(&v.hidden, path) == want[i].hidden, "%s %s",
			    want[i].name, want[i].hidden ? "is hidden" : "is not hidden");
			free(path);
		}
	} else {
		diag("error: %s", err.msg);
	}
	sbx_fsview_free(&v);
	sbx_policy_free(&p);
}

int
main(void)
{
	char *cmd;

	if (mkdtemp(base_tmpl) == NULL || (base = realpath(base_tmpl, NULL)) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	home = sbx_path_join(base, "home");
	make_tree();
	test_secret_list();
	test_workdir_forbidden();
	test_mount_source_forbidden();
	test_path_helpers();
	test_resolve_workdir();
	test_resolve_hidden();
	test_resolve_glob_prefix();
	test_resolve_missing();
	test_resolve_read();
	test_resolve_mounts();
	cmd = sbx_xasprintf("rm -rf '%s'", base);
	if (system(cmd) != 0)
		diag("could not remove %s", base);
	free(cmd);
	free(home);
	free(base);
	return done_testing();
}
