/* The host's filesystem facts (hostfacts.c), the POSIX calls every backend
 * that builds a filesystem view asks, on a real temp directory: the kind
 * of a path and a symlink's content, a directory's names, what file modes
 * alone seal; and the view built on them, so that a protected symlink's
 * target inside the workdir is protected as on the stub of test-plan.c
 * (the Seatbelt backend builds its view on these facts too). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/xattr.h>
#endif

#include "fsplan.h"
#include "hostfacts.h"
#include "policy.h"
#include "profile.h"
#include "resolve.h"
#include "tap.h"

static char *
in(const char *dir, const char *name)
{
	return sbx_path_join(dir, name);
}

static void
make_file(const char *dir, const char *name, mode_t mode)
{
	_cleanup_free_ char *path = in(dir, name);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);

	if (fd < 0 || fchmod(fd, mode) < 0) {
		printf("Bail out! cannot make %s: %s\n", path, strerror(errno));
		exit(1);
	}
	close(fd);
}

static void
make(const char *dir, const char *name, const char *link_to)
{
	_cleanup_free_ char *path = in(dir, name);

	if ((link_to ? symlink(link_to, path) : mkdir(path, 0755)) < 0) {
		printf("Bail out! cannot make %s: %s\n", path, strerror(errno));
		exit(1);
	}
}

static void
test_kinds(const struct sbx_fsfacts *f, const char *top)
{
	_cleanup_free_ char *dir = in(top, "proj"), *file = in(top, "proj/README.md"),
			    *link = in(top, "proj/deploy"), *dangling = in(top, "proj/gone"),
			    *missing = in(top, "proj/nothing"), *through = in(top, "proj/deploy/x");
	char *target = NULL;

	is_int(f->kind(f->ctx, dir, NULL), SBX_KIND_DIR, "a directory");
	is_int(f->kind(f->ctx, file, NULL), SBX_KIND_FILE, "a file");
	is_int(f->kind(f->ctx, link, &target), SBX_KIND_SYMLINK, "a symlink, not followed");
	is_str(target, "config", "... and its content");
	free(target);
	target = NULL;
	is_int(f->kind(f->ctx, dangling, &target), SBX_KIND_SYMLINK, "a dangling symlink");
	is_str(target, "../nowhere", "... and its content");
	free(target);
	is_int(f->kind(f->ctx, missing, NULL), SBX_KIND_NONE, "a missing path");
	is_int(f->kind(f->ctx, through, NULL), SBX_KIND_FILE,
	    "a directory on the way is followed, as lstat does");
}

static void
test_list(const struct sbx_fsfacts *f, const char *top)
{
	_cleanup_free_ char *dir = in(top, "proj"), *file = in(top, "proj/README.md");
	struct sbx_strv names = { 0 };
	static const char *const want[] = { "README.md", "config", "deploy", "gone", "secret" };
	bool all = true;

	is_int(f->list(f->ctx, dir, &names), 0, "a directory lists");
	for (size_t i = 0; i < SBX_ARRAY_LEN(want); i++)
		all &= sbx_strv_contains(&names, want[i]);
	ok(all && names.n == SBX_ARRAY_LEN(want), "its names, without . and ..");
	sbx_strv_free(&names);
	is_int(f->list(f->ctx, file, &names), -1, "a file does not list");
	sbx_strv_free(&names);
}

static void
test_sealed(const char *top)
{
	_cleanup_free_ char *secret = in(top, "proj/secret"), *readme = in(top, "proj/README.md");
	struct sbx_host_ids owner, other;
	struct sbx_fsfacts f;

	memset(&owner, 0, sizeof(owner));
	owner.uid = getuid();
	owner.gid = getgid();
	memset(&other, 0, sizeof(other));
	other.uid = getuid() == 65533 ? 65532 : 65533;
	other.gid = getgid() == 65533 ? 65532 : 65533;
	sbx_host_facts_init(&f, &owner);
	ok(!f.sealed(f.ctx, secret), "a 0600 file is open to its owner");
	sbx_host_facts_init(&f, &other);
	ok(f.sealed(f.ctx, secret), "... and sealed from another uid");
	ok(!f.sealed(f.ctx, readme), "a 0644 file is open to every uid");
}

#ifdef __linux__
/* An access ACL on path in the kernel's xattr form (little-endian, see
 * acl(5)): owner rw, user uid given perm, owning group nothing, the mask
 * mask, others nothing. The kernel sets the group bits to the mask. */
static int
set_acl(const char *path, uint32_t uid, unsigned perm, unsigned mask)
{
	const uint32_t ent[5][3] = {
		{ 0x01, 6, UINT32_MAX },
		{ 0x02, perm, uid },
		{ 0x04, 0, UINT32_MAX },
		{ 0x10, mask, UINT32_MAX },
		{ 0x20, 0, UINT32_MAX },
	};
	unsigned char buf[4 + 5 * 8] = { 2, 0, 0, 0 };

	for (size_t i = 0; i < 5; i++) {
		unsigned char *e = buf + 4 + 8 * i;

		e[0] = (unsigned char)ent[i][0];
		e[2] = (unsigned char)ent[i][1];
		for (int b = 0; b < 4; b++)
			e[4 + b] = (unsigned char)(ent[i][2] >> (8 * b));
	}
	return setxattr(path, "system.posix_acl_access", buf, sizeof(buf), 0);
}

/* A named entry of an ACL can give a uid what the mode's group bits (the
 * mask, then) seem to give the owning group alone: such a file is not
 * sealed, or the plan would leave a secret to a permission that lets the
 * sandbox read it. An ACL whose mask grants nothing changes nothing. */
static void
test_sealed_acl(const char *top)
{
	_cleanup_free_ char *granted = in(top, "acl/granted");
	_cleanup_free_ char *masked = in(top, "acl/masked");
	struct sbx_host_ids other;
	struct sbx_fsfacts f;
	struct stat st;

	memset(&other, 0, sizeof(other));
	other.uid = getuid() == 65533 ? 65532 : 65533;
	other.gid = getgid() == 65533 ? 65532 : 65533;
	sbx_host_facts_init(&f, &other);
	if (set_acl(granted, other.uid, 4, 4) < 0 && errno == EOPNOTSUPP) {
		skip(3, "the test directory's file system keeps no POSIX ACLs");
		return;
	}
	if (stat(granted, &st) < 0)
		st.st_mode = 0;
	is_int((int)(st.st_mode & 07777), 0640,
	    "an ACL granting a named user read shows as mode 0640");
	ok(!f.sealed(f.ctx, granted), "... and is not sealed from that user");
	ok(set_acl(masked, other.uid, 4, 0) == 0 && f.sealed(f.ctx, masked),
	    "an ACL whose mask grants nothing leaves the file sealed");
}
#endif

/* Through a pin: a path at or below a pinned one is looked up from the
 * pin's descriptor, so the facts describe the pinned directory even when
 * its name now leads elsewhere (here: nowhere at all). */
static void
test_pinned(const char *top)
{
	_cleanup_free_ char *proj = in(top, "proj");
	struct sbx_pin pin = { .path = "/nonexistent/moved/proj", .fd = -1 };
	struct sbx_fsview fs = { .pins = &pin, .npins = 1 };
	struct sbx_host_ids ids;
	struct sbx_strv names = { 0 };
	struct sbx_fsfacts f;
	char *target = NULL;

	memset(&ids, 0, sizeof(ids));
	ids.uid = getuid() == 65533 ? 65532 : 65533;
	ids.gid = getgid() == 65533 ? 65532 : 65533;
	ids.fs = &fs;
	pin.fd = open(proj, O_PATH | O_DIRECTORY | O_CLOEXEC);
	sbx_host_facts_init(&f, &ids);
	is_int(f.kind(f.ctx, "/nonexistent/moved/proj", NULL), SBX_KIND_DIR, "the pin itself");
	is_int(f.kind(f.ctx, "/nonexistent/moved/proj/README.md", NULL), SBX_KIND_FILE,
	    "a file below the pin, whose name leads nowhere");
	is_int(f.kind(f.ctx, "/nonexistent/moved/proj/config/x", NULL), SBX_KIND_FILE,
	    "two levels below it");
	is_int(f.kind(f.ctx, "/nonexistent/moved/proj/deploy", &target), SBX_KIND_SYMLINK,
	    "a symlink below it");
	is_str(target, "config", "... and its content");
	free(target);
	is_int(f.kind(f.ctx, "/nonexistent/moved/projX/README.md", NULL), SBX_KIND_NONE,
	    "a sibling whose name starts like the pin's is not below it");
	ok(f.list(f.ctx, "/nonexistent/moved/proj", &names) == 0 && names.n == 5,
	    "the pin's names are listed through it");
	ok(f.sealed(f.ctx, "/nonexistent/moved/proj/secret"), "sealed is judged through it");
	/* The resolution's missing secrets: taken as missing by name, never
	 * below a pin, where the pinned directory is what counts. */
	{
		_cleanup_free_ char *readme = in(top, "proj/README.md");

		sbx_strv_push(&fs.missing, "/nonexistent/moved/proj/README.md");
		sbx_strv_push(&fs.missing, readme);
		is_int(f.kind(f.ctx, "/nonexistent/moved/proj/README.md", NULL), SBX_KIND_FILE,
		    "a path below the pin listed as missing is still looked up through it");
		is_int(f.kind(f.ctx, readme, NULL), SBX_KIND_NONE,
		    "a path the resolution found missing is missing, by name");
		sbx_strv_free(&fs.missing);
	}
	/* A temp workdir seen empty when pinned (resolve.h): every name
	 * below it is missing without a lookup, even one made since; the
	 * workdir itself is still a directory. */
	fs.workdir_empty = true;
	is_int(f.kind(f.ctx, "/nonexistent/moved/proj/README.md", NULL), SBX_KIND_NONE,
	    "below a workdir seen empty: missing, by the snapshot");
	is_int(f.kind(f.ctx, "/nonexistent/moved/proj/config/x", NULL), SBX_KIND_NONE,
	    "... two levels below it too");
	is_int(f.kind(f.ctx, "/nonexistent/moved/proj", NULL), SBX_KIND_DIR,
	    "... and the workdir itself is its directory");
	fs.workdir_empty = false;
	sbx_strv_free(&names);
	close(pin.fd);
}

/* The view on host facts: [protect] deploy, a symlink to config, makes
 * config protected as well. */
static void
test_view(const struct sbx_fsfacts *f, const char *top)
{
	struct sbx_policy p;
	struct sbx_fsview fs = { 0 };
	struct sbx_fsplan v;
	struct sbx_err err = { 0 };
	_cleanup_free_ char *config = in(top, "proj/config");
	bool linked = false;

	sbx_policy_init(&p, top);
	if (sbx_profile_load_string(&p, "t.ini", "[protect]\npath = deploy\n", &err) < 0) {
		printf("Bail out! profile: %s\n", err.msg);
		exit(1);
	}
	fs.workdir = in(top, "proj");
	if (!ok(sbx_fsplan_build(&p, &fs, f, &v, &err) == 0, "a view on host facts")) {
		diag("%s", err.msg);
		goto out;
	}
	for (size_t i = 0; i < v.n; i++)
		linked |= v.v[i].origin == SBX_FSO_LINK && strcmp(v.v[i].path, config) == 0 &&
		    v.v[i].disp == SBX_FSD_PROTECTED;
	ok(linked, "a protected symlink's target in the workdir is protected");
	sbx_fsplan_free(&v);
out:
	sbx_fsview_free(&fs);
	sbx_policy_free(&p);
}

/* What `getent passwd UID` printed, judged strictly: one line, seven
 * fields, the uid asked for, an absolute or empty home. */
static void
test_account_parse(void)
{
	static const struct {
		const char *out;
		bool good;
		const char *why;
	} cases[] = {
		{ "alice:x:1234:100:Alice A.:/home/alice:/bin/sh\n", true, "a plain entry" },
		{ "alice:*:1234:100:::\n", true, "empty gecos, home and shell" },
		{ "alice:x:1234:100:Alice:/home/alice:/bin/sh", false, "no newline" },
		{ "", false, "nothing" },
		{ "\n", false, "an empty line" },
		{ "alice:x:1234:100:Alice:/home/alice:/bin/sh\nbob:x:1234:100::/home/bob:/bin/sh\n",
		    false, "two lines" },
		{ "alice:x:1234:100:Alice:/home/alice\n", false, "six fields" },
		{ "alice:x:1234:100:Alice:/home/alice:/bin/sh:x\n", false, "eight fields" },
		{ "alice:x:4321:100:Alice:/home/alice:/bin/sh\n", false, "another uid" },
		{ "alice:x:01234:100:Alice:/home/alice:/bin/sh\n", false, "a leading zero" },
		{ "alice:x:+1234:100:Alice:/home/alice:/bin/sh\n", false, "a sign" },
		{ "alice:x: 1234:100:Alice:/home/alice:/bin/sh\n", false, "a blank" },
		{ "alice:x:12345:100:Alice:/home/alice:/bin/sh\n", false, "a longer uid" },
		{ "alice:x:1234::Alice:/home/alice:/bin/sh\n", false, "no gid" },
		{ "alice:x:1234:1x:Alice:/home/alice:/bin/sh\n", false, "a gid not a number" },
		{ ":x:1234:100:Alice:/home/alice:/bin/sh\n", false, "no name" },
		{ "alice:x:1234:100:Alice:home/alice:/bin/sh\n", false, "a relative home" },
		{ "alice:x:1234:100:Al\tice:/home/alice:/bin/sh\n", false, "a control byte" },
		{ "alice:x:1234:100:Alice:/home/al\rice:/bin/sh\n", false, "a carriage return" },
	};
	struct sbx_account a;
	struct sbx_err err;

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		int rc = sbx_account_parse(cases[i].out, strlen(cases[i].out), 1234, &a, &err);

		ok((rc == 0) == cases[i].good, "getent output, %s: %s", cases[i].why,
		    cases[i].good ? "taken" : "refused");
		if (rc == 0)
			sbx_account_free(&a);
		else
			ok(a.name == NULL && a.home == NULL && err.msg[0] != '\0',
			    "%s: nothing filled, a reason given", cases[i].why);
	}
	if (sbx_account_parse(cases[0].out, strlen(cases[0].out), 1234, &a, &err) == 0) {
		ok(strcmp(a.name, "alice") == 0 && strcmp(a.home, "/home/alice") == 0,
		    "the name and the home are the entry's");
		sbx_account_free(&a);
	}
	/* An embedded NUL ends nothing: the length counts. */
	ok(sbx_account_parse("alice:x:1234:100::/h:/s\n\0x\n", 27, 1234, &a, &err) < 0,
	    "a NUL byte inside the output is refused");
	if (sbx_account_parse("root:x:0:0:root:/root:/bin/sh\n", 30, 0, &a, &err) == 0) {
		ok(strcmp(a.home, "/root") == 0, "uid 0 parses");
		sbx_account_free(&a);
	} else {
		ok(false, "uid 0 parses: %s", err.msg);
	}
}

/* Whether nsswitch.conf leaves /etc/passwd the only source: then a uid
 * that file lacks is unknown, and getent is not asked. */
static void
test_nsswitch(void)
{
	static const struct {
		const char *conf;
		bool files_only;
		const char *why;
	} cases[] = {
		{ "passwd: files\n", true, "files alone" },
		{ "passwd:files", true, "no blank, no newline" },
		{ "# passwd: ldap\npasswd:\tfiles  # local only\ngroup: files systemd\n", true,
		    "comments and other databases aside" },
		{ "passwd: files [NOTFOUND=return] \n", true, "an action item" },
		{ "  passwd: files\r\n", true, "leading blanks, CRLF" },
		{ "passwd: files systemd\n", false, "a second source" },
		{ "passwd: compat\n", false, "compat (NIS entries)" },
		{ "passwd: sss files\n", false, "a source before files" },
		{ "passwd: files [SUCCESS=return] ldap\n", false, "a source after an action" },
		{ "passwd:\n", false, "no source" },
		{ "group: files\n", false, "no passwd line" },
		{ "", false, "an empty file" },
		{ "passwd: files\npasswd: files ldap\n", false, "a second passwd line with more" },
		{ "PASSWD: files ldap\npasswd: files\n", false, "the name in capitals counts" },
		{ "passwdx: ldap\npasswd: files\n", true, "a longer name is another database" },
		{ "passwd: filesx\n", false, "a source named like files" },
		{ "passwd: [NOTFOUND=return files\n", false, "an unclosed action" },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++)
		ok(sbx_nsswitch_files_only(cases[i].conf, "passwd") == cases[i].files_only,
		    "nsswitch.conf, %s: %s", cases[i].why,
		    cases[i].files_only ? "files only" : "other sources");
}

/* The lookup answers for ids /etc/passwd holds, as getpwuid() does. */
static void
test_account_lookup(void)
{
	struct sbx_account a;
	struct sbx_err err;

	if (sbx_account_lookup(0, &a, &err) < 0) {
		ok(false, "uid 0 looked up: %s", err.msg);
		return;
	}
	ok(a.name != NULL && strcmp(a.name, "root") == 0 && a.home != NULL && a.home[0] == '/',
	    "uid 0 is root with an absolute home (%s)", a.home ? a.home : "none");
	sbx_account_free(&a);
}

int
main(void)
{
	const char *tmp = getenv("TMPDIR");
	_cleanup_free_ char *top = sbx_xasprintf("%s/sbx-hostfacts.XXXXXX", tmp ? tmp : "/tmp");
	static const char *const made[] = { "acl/masked", "acl/granted", "acl", "proj/gone",
		"proj/deploy", "proj/secret", "proj/README.md", "proj/config/x", "proj/config",
		"proj" };
	struct sbx_fsfacts f;

	if (mkdtemp(top) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	make(top, "proj", NULL);
	make(top, "proj/config", NULL);
	make_file(top, "proj/config/x", 0644);
	make_file(top, "proj/README.md", 0644);
	make_file(top, "proj/secret", 0600);
	make(top, "acl", NULL);
	make_file(top, "acl/granted", 0600);
	make_file(top, "acl/masked", 0600);
	make(top, "proj/deploy", "config");
	make(top, "proj/gone", "../nowhere");
	sbx_host_facts_init(&f, NULL);
	test_kinds(&f, top);
	test_list(&f, top);
	test_sealed(top);
#ifdef __linux__
	test_sealed_acl(top);
#endif
	test_pinned(top);
	test_view(&f, top);
	test_account_parse();
	test_account_lookup();
	test_nsswitch();
	for (size_t i = 0; i < SBX_ARRAY_LEN(made); i++) {
		_cleanup_free_ char *path = in(top, made[i]);

		if (remove(path) < 0)
			diag("cannot remove %s: %s", path, strerror(errno));
	}
	rmdir(top);
	return done_testing();
}
