/* The merged policy: flags parsed with sbx_cli_parse() and applied over a
 * profile with sbx_cli_apply() (scalars override, lists extend), the
 * messages of bad flags, sbx_policy_to_ini() round trips, the consistency
 * check, the rules a policy requests, and the environment and argv built
 * for the payload. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "diag.h"
#include "exec.h"
#include "policy.h"
#include "profile.h"
#include "tap.h"
#include "util.h"

#define HOME "/home/u"

/* An argv: "sbxrun" + args. The strings must outlive every later call of
 * sbx_cli_parse(): getopt keeps a pointer into the last word it read. */
struct args {
	char *v[64];
	int n;
};

/* Resets getopt's own state so that each test starts clean, whatever the
 * previous parse left: optind = 0 reinitialises glibc's getopt, and "+"
 * sets the ordering sbx_cli_parse() asks for (its "optind = 1" keeps
 * whatever the last initialisation chose). */
static void
getopt_reset(void)
{
	char *argv[] = { (char *)"reset", NULL };

	optind = 0;
	opterr = 0;
	while (getopt(1, argv, "+:") != -1)
		;
}

static void
args_set(struct args *a, const char *const *args)
{
	getopt_reset();
	a->n = 0;
	a->v[a->n++] = (char *)"sbxrun";
	for (size_t i = 0; args[i]; i++)
		a->v[a->n++] = (char *)args[i];
	a->v[a->n] = NULL;
}

static void
args_free(struct args *a)
{
	a->n = 0;
}

#define ARGS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* Parses args and applies them over the profile text; returns the result
 * of the first step that failed, or 0. */
static int
merge(struct sbx_policy *p, const char *profile, const char *const *argv, struct sbx_err *err)
{
	struct sbx_cli cli;
	struct args a;
	int r;

	memset(err, 0, sizeof(*err));
	sbx_policy_init(p, HOME);
	if (profile && sbx_profile_load_string(p, "t.ini", profile, err) < 0) {
		diag("profile error: %s", err->msg);
		return -2;
	}
	args_set(&a, argv);
	r = sbx_cli_parse(&cli, a.n, a.v, err);
	if (r == 0)
		r = sbx_cli_apply(&cli, p, err);
	sbx_cli_free(&cli);
	args_free(&a);
	return r;
}

static bool
merge_ok(struct sbx_policy *p, const char *profile, const char *const *argv, const char *what)
{
	struct sbx_err err;

	if (!is_int(merge(p, profile, argv, &err), 0, "%s: accepted", what)) {
		diag("error: %s", err.msg);
		return false;
	}
	return true;
}

/* The flags must be refused with exactly the message want. */
static void
flag_fails(const char *const *argv, const char *want, const char *what)
{
	struct sbx_policy p;
	struct sbx_err err;

	is_int(merge(&p, NULL, argv, &err), -1, "%s: refused", what);
	is_str(err.msg, want, "%s: message", what);
	sbx_policy_free(&p);
}

static bool
strv_eq(const struct sbx_strv *a, const struct sbx_strv *b)
{
	if (a->n != b->n)
		return false;
	for (size_t i = 0; i < a->n; i++)
		if (strcmp(a->v[i], b->v[i]) != 0)
			return false;
	return true;
}

static bool
str_eq(const char *a, const char *b)
{
	return a == b || (a && b && strcmp(a, b) == 0);
}

static bool
ports_eq(const struct sbx_ports *a, const struct sbx_ports *b)
{
	return a->n == b->n && (a->n == 0 || memcmp(a->v, b->v, a->n * sizeof(*a->v)) == 0);
}

/* Compares every field a profile can set; names the first difference. */
static const char *
policy_diff(const struct sbx_policy *a, const struct sbx_policy *b)
{
	if (a->backend != b->backend)
		return "backend";
	if (a->fs != b->fs)
		return "fs";
	if (a->network != b->network)
		return "network";
	if (!str_eq(a->workdir, b->workdir))
		return "workdir";
	if (a->keep != b->keep)
		return "keep";
	if (a->allow_degraded != b->allow_degraded)
		return "allow_degraded";
	if (a->protect_defaults != b->protect_defaults)
		return "protect_defaults";
	if (a->timeout_ms != b->timeout_ms)
		return "timeout";
	for (size_t i = 0; i < SBX_LIMIT__COUNT; i++)
		if (a->limits[i].set != b->limits[i].set ||
		    a->limits[i].value != b->limits[i].value)
			return sbx_limit_name((enum sbx_limit_id)i);
	if (!str_eq(a->trace, b->trace))
		return "trace";
	if (!str_eq(a->docker_image, b->docker_image))
		return "docker_image";
	if (!strv_eq(&a->read, &b->read))
		return "[read]";
	if (!strv_eq(&a->deny, &b->deny))
		return "[deny]";
	if (!strv_eq(&a->protect, &b->protect))
		return "[protect]";
	if (a->nmounts != b->nmounts)
		return "[mounts] count";
	for (size_t i = 0; i < a->nmounts; i++)
		if (strcmp(a->mounts[i].target, b->mounts[i].target) != 0 ||
		    strcmp(a->mounts[i].source, b->mounts[i].source) != 0 ||
		    a->mounts[i].rw != b->mounts[i].rw)
			return "[mounts]";
	if (!ports_eq(&a->listen, &b->listen))
		return "listen";
	if (!ports_eq(&a->connect, &b->connect))
		return "connect";
	if (!ports_eq(&a->loopback, &b->loopback))
		return "loopback";
	if (!strv_eq(&a->proxy_allow, &b->proxy_allow))
		return "[proxy]";
	if (!strv_eq(&a->proxy_deny, &b->proxy_deny))
		return "[proxy] deny";
	if (!strv_eq(&a->proxy_methods, &b->proxy_methods))
		return "[proxy] methods";
	if (a->nenv != b->nenv)
		return "[env] count";
	for (size_t i = 0; i < a->nenv; i++)
		if (strcmp(a->env[i].name, b->env[i].name) != 0 ||
		    strcmp(a->env[i].value, b->env[i].value) != 0)
			return "[env]";
	if (!strv_eq(&a->env_pass, &b->env_pass))
		return "[env] pass";
	return NULL;
}

/* The printed policy with origins reads back to an equal policy, which
 * prints (without origins) as p does, and its own print with origins is
 * the same text with each origin replaced by "printed.ini:N", N being the
 * line's own number: every value came from the line it is printed on. */
static void
round_trip_origins(const struct sbx_policy *p, const char *what)
{
	struct sbx_err err = { 0 };
	char *ini = sbx_policy_to_ini_origins(p, &err), *ini2 = NULL, *plain = NULL, *plain2 = NULL,
	     *line, *next;
	struct sbx_policy q;
	const char *d;
	int n = 0, wrong = 0, annotated = 0;

	sbx_policy_init(&q, HOME);
	if (!ok(ini != NULL, "%s: the policy prints with origins", what)) {
		diag("error: %s", err.msg);
		goto out;
	}
	if (!is_int(sbx_profile_load_string(&q, "printed.ini", ini, &err), 0,
		"%s: the printed policy with origins loads", what)) {
		diag("error: %s", err.msg);
		diag("printed:\n%s", ini);
		goto out;
	}
	d = policy_diff(p, &q);
	if (!ok(d == NULL, "%s: policy -> ini with origins -> policy is equal", what)) {
		diag("first difference: %s", d);
		diag("printed:\n%s", ini);
	}
	is_u64(q.warnings.n, 0, "%s: ... and loads without warnings", what);
	plain = sbx_policy_to_ini(p, &err);
	plain2 = sbx_policy_to_ini(&q, &err);
	is_str(plain2, plain, "%s: ... and prints as the same text without origins", what);
	ini2 = sbx_policy_to_ini_origins(&q, &err);
	for (line = ini2; line && *line; line = next) {
		char *want, *c;

		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		n++;
		if (*line == ';' || *line == '[' || *line == '\0')
			continue;
		annotated++;
		c = strstr(line, " ; ");
		want = sbx_xasprintf("printed.ini:%d", n);
		if ((c == NULL || strcmp(c + 3, want) != 0) && wrong++ == 0)
			diag("line %d: '%s', want its origin %s", n, line, want);
		free(want);
	}
	ok(annotated > 0 && wrong == 0, "%s: read back, each value's origin is its own line", what);
out:
	sbx_policy_free(&q);
	free(ini);
	free(ini2);
	free(plain);
	free(plain2);
}

/* policy -> ini -> policy gives an equal policy, and the same ini again;
 * the same with origins (round_trip_origins). */
static void
round_trip(const struct sbx_policy *p, const char *what)
{
	struct sbx_err err = { 0 };
	char *ini = sbx_policy_to_ini(p, &err), *ini2 = NULL;
	struct sbx_policy q;
	const char *d;

	sbx_policy_init(&q, HOME);
	if (!ok(ini != NULL, "%s: the policy prints", what)) {
		diag("error: %s", err.msg);
		goto out;
	}
	if (!is_int(sbx_profile_load_string(&q, "printed.ini", ini, &err), 0,
		"%s: the printed policy loads", what)) {
		diag("error: %s", err.msg);
		diag("printed:\n%s", ini);
		goto out;
	}
	d = policy_diff(p, &q);
	if (!ok(d == NULL, "%s: policy -> ini -> policy is equal", what)) {
		diag("first difference: %s", d);
		diag("printed:\n%s", ini);
	}
	ini2 = sbx_policy_to_ini(&q, &err);
	is_str(ini2, ini, "%s: printing it again gives the same text", what);
	is_u64(q.warnings.n, 0, "%s: the printed policy loads without warnings", what);
	round_trip_origins(p, what);
out:
	sbx_policy_free(&q);
	free(ini);
	free(ini2);
}

static void
test_scalars_override(void)
{
	static const char profile[] =
	    "[sandbox]\nbackend = auto\nfs = strict\nnetwork = off\nworkdir = /srv/a\n"
	    "timeout = 30s\nmemory = 512M\npids = 256\ncpu = 60s\nfile_size = 1G\n"
	    "open_files = 1024\ntrace = a.jsonl\ndocker_image = debian\n";
	struct sbx_policy p;

	if (merge_ok(&p, profile,
		ARGS("--backend", "none", "--fs", "open", "--network", "on", "-w", "/srv/b", "-t",
		    "5s", "--memory", "1G", "--pids", "10", "--cpu", "2m", "--file-size", "1M",
		    "--open-files", "64", "--trace", "b.jsonl", "--docker-image", "alpine",
		    "--keep", "--allow-degraded"),
		"every scalar flag over a profile")) {
		is_int(p.backend, SBX_BACKEND_NONE, "--backend none overrides backend = auto");
		is_int(p.fs, SBX_FS_OPEN, "--fs open overrides fs = strict");
		ok(p.network, "--network on overrides network = off");
		is_str(p.workdir, "/srv/b", "-w overrides workdir");
		is_u64(p.timeout_ms, 5000, "-t 5s overrides timeout = 30s");
		is_u64(p.limits[SBX_LIMIT_MEMORY].value, UINT64_C(1) << 30, "--memory overrides");
		is_u64(p.limits[SBX_LIMIT_PIDS].value, 10, "--pids overrides");
		is_u64(p.limits[SBX_LIMIT_CPU].value, 120000, "--cpu overrides");
		is_u64(p.limits[SBX_LIMIT_FILE_SIZE].value, UINT64_C(1) << 20,
		    "--file-size overrides");
		is_u64(p.limits[SBX_LIMIT_OPEN_FILES].value, 64, "--open-files overrides");
		is_str(p.trace, "b.jsonl", "--trace overrides");
		is_str(p.docker_image, "alpine", "--docker-image overrides");
		ok(p.keep, "--keep sets keep");
		ok(p.allow_degraded, "--allow-degraded sets allow_degraded");
	}
	sbx_policy_free(&p);
	if (merge_ok(&p, NULL,
		ARGS("--fs", "open", "--fs", "allowlist", "-t", "1s", "--timeout=2m"),
		"a flag given twice"))
		ok(p.fs == SBX_FS_ALLOWLIST && p.timeout_ms == 120000, "the last one wins");
	sbx_policy_free(&p);
	if (merge_ok(&p, "[sandbox]\nkeep = yes\n", ARGS("--fs", "open"), "a profile alone"))
		ok(p.keep && p.fs == SBX_FS_OPEN, "flags leave other keys of the profile alone");
	sbx_policy_free(&p);
	if (merge_ok(&p, NULL, ARGS("-w", "~/proj", "--trace", "~/t.jsonl"), "~ in flags"))
		ok(str_eq(p.workdir, HOME "/proj") && str_eq(p.trace, HOME "/t.jsonl"),
		    "-w ~/proj and --trace ~/t.jsonl expand ~");
	sbx_policy_free(&p);
	if (merge_ok(&p, "[sandbox]\nfs = open\n", ARGS("--fs", "bogus"), "--fs bogus"))
		ok(p.fs == SBX_FS_STRICT && p.warnings.n == 1,
		    "--fs bogus: strict with a warning, "
		    "even over fs = open");
	sbx_policy_free(&p);
}

static void
test_lists_extend(void)
{
	static const char profile[] =
	    "[read]\npath = /c\n[deny]\npath = /d\n[protect]\npath = .envrc\n"
	    "[ports]\nlisten = 8080\nconnect = 443\nloopback = 5432\n"
	    "[proxy]\nallow = a.example.com\n[env]\nLANG = C.UTF-8\nKEEP = 1\npass = TERM\n"
	    "[mounts]\ndata = /srv/data\n";
	struct sbx_policy p;

	if (!merge_ok(&p, profile,
		ARGS("-r", "/a", "--allow-read", "/b", "-r", "/c", "--deny-read", "~/x",
		    "--protect", "Makefile", "--listen", "9091,9090", "--listen", "8080",
		    "--connect", "80", "--loopback", "6379", "--allow-host", "B.example.com",
		    "--pass-env", "LC_ALL", "-e", "LANG=en_US.UTF-8", "--env", "NEW=x", "-m",
		    "/srv/out:out:rw"),
		"every list flag over a profile")) {
		sbx_policy_free(&p);
		return;
	}
	ok(p.read.n == 3 && strcmp(p.read.v[0], "/c") == 0 && strcmp(p.read.v[1], "/a") == 0 &&
		strcmp(p.read.v[2], "/b") == 0,
	    "-r extends [read] (profile first, no duplicate)");
	ok(p.deny.n == 2 && strcmp(p.deny.v[1], HOME "/x") == 0, "--deny-read extends [deny]");
	ok(p.protect.n == 2 && strcmp(p.protect.v[1], "Makefile") == 0,
	    "--protect extends [protect]");
	ok(p.listen.n == 3 && p.listen.v[0] == 8080 && p.listen.v[1] == 9090 &&
		p.listen.v[2] == 9091,
	    "--listen extends listen, sorted, distinct");
	ok(p.connect.n == 2 && p.connect.v[0] == 80 && p.connect.v[1] == 443, "--connect extends");
	ok(p.loopback.n == 2 && p.loopback.v[1] == 6379, "--loopback extends");
	ok(p.proxy_allow.n == 2 && strcmp(p.proxy_allow.v[1], "b.example.com") == 0,
	    "--allow-host extends [proxy] allow");
	ok(p.env_pass.n == 2 && strcmp(p.env_pass.v[1], "LC_ALL") == 0, "--pass-env extends pass");
	if (is_u64(p.nenv, 3, "-e adds one variable and replaces another")) {
		ok(strcmp(p.env[0].name, "LANG") == 0 && strcmp(p.env[0].value, "en_US.UTF-8") == 0,
		    "-e LANG=... overrides the profile's LANG");
		ok(strcmp(p.env[1].name, "KEEP") == 0 && strcmp(p.env[1].value, "1") == 0,
		    "the profile's other variables stay");
		ok(strcmp(p.env[2].name, "NEW") == 0 && strcmp(p.env[2].value, "x") == 0,
		    "--env NEW=x");
	}
	if (is_u64(p.nmounts, 2, "-m adds a mount to the profile's")) {
		ok(strcmp(p.mounts[1].target, "out") == 0 &&
			strcmp(p.mounts[1].source, "/srv/out") == 0 && p.mounts[1].rw,
		    "-m /srv/out:out:rw");
	}
	sbx_policy_free(&p);
}

static void
test_mount_flag(void)
{
	static const struct {
		const char *arg, *source, *target;
		bool rw;
	} cases[] = {
		{ "/srv/data:data", "/srv/data", "data", false },
		{ "/srv/data:data:ro", "/srv/data", "data", false },
		{ "/srv/data:data:rw", "/srv/data", "data", true },
		{ "/srv/data:sub/dir:rw", "/srv/data", "sub/dir", true },
		{ "/a:b:c", "/a:b", "c", false },
		{ "/a:b:c:rw", "/a:b", "c", true },
		{ "~/x:x", HOME "/x", "x", false },
		{ "rel/dir:d", "rel/dir", "d", false },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		struct sbx_policy p;

		if (merge_ok(&p, NULL, ARGS("-m", cases[i].arg), cases[i].arg) &&
		    is_u64(p.nmounts, 1, "-m %s: one mount", cases[i].arg)) {
			is_str(p.mounts[0].source, cases[i].source, "-m %s: source", cases[i].arg);
			is_str(p.mounts[0].target, cases[i].target, "-m %s: target", cases[i].arg);
			ok(p.mounts[0].rw == cases[i].rw, "-m %s: %s", cases[i].arg,
			    cases[i].rw ? "read-write" : "read-only (the default)");
		}
		sbx_policy_free(&p);
	}
}

/* A mount target is a key: a later profile or a flag overrides it. */
static void
test_mount_override(void)
{
	struct sbx_policy p;

	if (merge_ok(&p, NULL, ARGS("-m", "/a:x", "-m", "/b:x:rw"), "-m twice to one target") &&
	    is_u64(p.nmounts, 1, "-m twice to one target: one mount"))
		ok(!strcmp(p.mounts[0].source, "/b") && p.mounts[0].rw,
		    "the later -m wins, mode too");
	sbx_policy_free(&p);
	if (merge_ok(&p, "[mounts]\ndata = /a:rw\nother = /c\n", ARGS("-m", "/b:data"),
		"-m to a target the profile mounts") &&
	    is_u64(p.nmounts, 2, "... still two mounts")) {
		ok(!strcmp(p.mounts[0].target, "data") && !strcmp(p.mounts[0].source, "/b") &&
			!p.mounts[0].rw,
		    "the flag overrides the profile's source and mode");
		ok(!strcmp(p.mounts[1].source, "/c"), "the profile's other mount stays");
	}
	sbx_policy_free(&p);
}

static void
test_env_flag(void)
{
	struct sbx_policy p;

	if (merge_ok(&p, NULL,
		ARGS("-e", "A=B", "-e", "EMPTY=", "-e", "EQ=x=y", "-e", "SP=a b ; c", "--env",
		    "_u=1"),
		"-e forms") &&
	    is_u64(p.nenv, 5, "five variables")) {
		ok(!strcmp(p.env[0].name, "A") && !strcmp(p.env[0].value, "B"), "-e A=B");
		ok(!strcmp(p.env[1].name, "EMPTY") && !strcmp(p.env[1].value, ""), "-e EMPTY=");
		ok(!strcmp(p.env[2].name, "EQ") && !strcmp(p.env[2].value, "x=y"),
		    "-e EQ=x=y splits at the first '='");
		ok(!strcmp(p.env[3].value, "a b ; c"),
		    "-e keeps spaces and ';' (no comment on the CLI)");
		ok(!strcmp(p.env[4].name, "_u"), "--env _u=1");
	}
	sbx_policy_free(&p);
}

static void
test_bad_flags(void)
{
	/* Refused while parsing. */
	flag_fails(ARGS("--bogus"), "unknown option '--bogus'", "--bogus");
	flag_fails(ARGS("-Z"), "unknown option '-Z'", "-Z");
	flag_fails(ARGS("--fs"), "option '--fs' needs an argument", "--fs without a value");
	flag_fails(ARGS("-p"), "option '-p' needs an argument", "-p without a value");
	flag_fails(ARGS("--fs", "open", "--listen"), "option '--listen' needs an argument",
	    "--listen without a value");
	flag_fails(ARGS("-m", "nocolon"), "--mount: want SRC:TARGET[:ro|:rw], not 'nocolon'",
	    "-m without a target");
	flag_fails(ARGS("-m", ":data"), "--mount: want SRC:TARGET[:ro|:rw], not ':data'",
	    "-m without a source");
	flag_fails(ARGS("-m", "/srv/x:"), "--mount: want SRC:TARGET[:ro|:rw], not '/srv/x:'",
	    "-m with an empty target");
	flag_fails(ARGS("-m", "/srv/x:rw"), "--mount: want SRC:TARGET[:ro|:rw], not '/srv/x:rw'",
	    "-m with a mode but no target");
	flag_fails(
	    ARGS("-e", "NOVALUE"), "--env: want NAME=VALUE, not 'NOVALUE'", "-e without '='");
	flag_fails(ARGS("--env", "=v"), "--env: want NAME=VALUE, not '=v'", "-e without a name");
	flag_fails(ARGS("-e", "pass=TERM"),
	    "--env: 'pass' is reserved in profiles; use --pass-env NAME to copy a variable",
	    "-e pass=...");
	flag_fails(ARGS("--diag", "fd:x"), "--diag: bad descriptor in 'fd:x'", "--diag fd:x");
	flag_fails(ARGS("--diag", "fd:"), "--diag: bad descriptor in 'fd:'", "--diag fd:");
	flag_fails(ARGS("--diag", "fd:-1"), "--diag: bad descriptor in 'fd:-1'", "--diag fd:-1");
	flag_fails(ARGS("--diag", ""), "--diag: empty destination", "--diag ''");
	flag_fails(ARGS("--interp", "python3", "--script-name", "a/b.py"),
	    "--script-name: 'a/b.py' must be a plain file name", "--script-name with a slash");
	flag_fails(ARGS("--interp", "python3", "--script-name", ".."),
	    "--script-name: '..' must be a plain file name", "--script-name ..");
	flag_fails(ARGS("--interp", "python3", "--script-name", ""),
	    "--script-name: '' must be a plain file name", "empty --script-name");
	flag_fails(ARGS("--script-name", "x.py"), "--script-name needs --interp",
	    "--script-name without --interp");
	flag_fails(ARGS("--interp", "python3", "--", "ls"),
	    "--interp runs the script from standard input; it cannot be used with a COMMAND",
	    "--interp with a COMMAND");
	flag_fails(ARGS("--interp", ""), "--interp: empty program", "--interp ''");

	/* Refused when applied: the message starts with the flag. */
	flag_fails(ARGS("--listen", "70000"), "--listen: port 70000 is out of range (1-65535)",
	    "--listen 70000");
	flag_fails(ARGS("--listen", "80", "--connect", "80,x"), "--connect: bad port 'x'",
	    "--connect 80,x");
	flag_fails(ARGS("--loopback", "0"), "--loopback: port 0 is out of range (1-65535)",
	    "--loopback 0");
	flag_fails(ARGS("--memory", "lots"),
	    "--memory: bad size 'lots' (want a number with K, M, G or T)", "--memory lots");
	flag_fails(ARGS("--file-size", "1P"),
	    "--file-size: bad size '1P' (want a number with K, M, G or T)", "--file-size 1P");
	flag_fails(ARGS("-t", "forever"),
	    "--timeout: bad duration 'forever' (want a number with ms, s, m or h)", "-t forever");
	flag_fails(ARGS("--cpu", "1d"),
	    "--cpu: bad duration '1d' (want a number with ms, s, m or h)", "--cpu 1d");
	flag_fails(ARGS("--pids", "0"), "--pids: pids must be greater than 0", "--pids 0");
	flag_fails(ARGS("--open-files", "x"), "--open-files: bad number 'x'", "--open-files x");
	flag_fails(ARGS("--network", "maybe"),
	    "--network: bad network value 'maybe' (want on or off)", "--network maybe");
	flag_fails(ARGS("--backend", "bwrap"),
	    "--backend: unknown backend 'bwrap' (want auto, namespaces, landlock, seatbelt, docker "
	    "or none)",
	    "--backend bwrap");
	flag_fails(ARGS("--protect", "/etc"),
	    "--protect: protected path '/etc' must be relative to the workdir", "--protect /etc");
	flag_fails(ARGS("--allow-host", "bad host"), "--allow-host: bad host name 'bad host'",
	    "--allow-host 'bad host'");
	flag_fails(ARGS("-e", "1A=x"), "--env: bad environment variable name '1A'", "-e 1A=x");
	flag_fails(ARGS("--pass-env", "A-B"), "--pass-env: bad environment variable name 'A-B'",
	    "--pass-env A-B");
	flag_fails(ARGS("-m", "/srv:../x"), "--mount: mount target '../x' may not contain '..'",
	    "-m /srv:../x");
	flag_fails(ARGS("-m", "/srv:/abs"),
	    "--mount: mount target '/abs' must be relative to the workdir", "-m /srv:/abs");
	flag_fails(ARGS("-w", "~bob/w"),
	    "--workdir: '~bob/w': only ~ and ~/ are expanded, not ~user", "-w ~bob/w");
	flag_fails(ARGS("--docker-image", "-x"), "--docker-image: bad docker image name '-x'",
	    "--docker-image -x");
	flag_fails(ARGS("--fs", ""), "--fs: empty value for 'fs' in [sandbox]", "--fs ''");
	flag_fails(ARGS("--deny-read", "~x"),
	    "--deny-read: '~x': only ~ and ~/ are expanded, not ~user", "--deny-read ~x");
	flag_fails(ARGS("-r", ""), "--allow-read: empty value for 'path' in [read]", "-r ''");
}

static void
test_parse_misc(void)
{
	struct sbx_cli cli;
	struct sbx_err err = { 0 };
	struct args a;

	args_set(&a,
	    ARGS("-p", "ci", "--profile", "./x.ini", "-v", "-v", "-q", "--print-policy",
		"--print-backend", "--probe", "--selftest", "-h", "-V", "--diag", "fd:7", "--",
		"ls", "-l", "--fs"));
	if (is_int(sbx_cli_parse(&cli, a.n, a.v, &err), 0, "every non-policy flag parses")) {
		ok(cli.profiles.n == 2 && !strcmp(cli.profiles.v[0], "ci") &&
			!strcmp(cli.profiles.v[1], "./x.ini"),
		    "-p twice: profiles in order");
		is_int(cli.verbose, 2, "-v -v");
		ok(cli.quiet && cli.print_policy && cli.print_backend && cli.probe &&
			cli.selftest && cli.help && cli.version,
		    "-q --print-policy --print-backend --probe --selftest -h -V");
		ok(cli.diag.kind == SBX_DIAG_FD && cli.diag.fd == 7, "--diag fd:7");
		ok(cli.command && !strcmp(cli.command[0], "ls") && !strcmp(cli.command[1], "-l") &&
			!strcmp(cli.command[2], "--fs") && cli.command[3] == NULL,
		    "after --, COMMAND keeps its own flags");
		is_u64(cli.nsettings, 0, "no policy settings");
	}
	sbx_cli_free(&cli);
	args_free(&a);

	args_set(&a, ARGS("--fs", "open", "python3", "-c", "x", "--network", "on"));
	if (is_int(sbx_cli_parse(&cli, a.n, a.v, &err), 0, "a COMMAND without --")) {
		ok(cli.command && !strcmp(cli.command[0], "python3") &&
			!strcmp(cli.command[3], "--network"),
		    "parsing stops at the first non-option");
		is_u64(cli.nsettings, 1, "only the flags before COMMAND are sbxrun's");
	}
	sbx_cli_free(&cli);
	args_free(&a);

	args_set(&a, ARGS("--interp", "python3", "--script-name", "job.py"));
	if (is_int(sbx_cli_parse(&cli, a.n, a.v, &err), 0, "--interp --script-name")) {
		is_str(cli.interp, "python3", "interp");
		is_str(cli.script_name, "job.py", "script name");
		ok(cli.command == NULL, "no COMMAND: the script comes from stdin");
		is_int(cli.diag.kind, SBX_DIAG_STDERR, "--diag defaults to stderr");
	}
	sbx_cli_free(&cli);
	args_free(&a);

	/* --diag destinations. */
	{
		struct sbx_diag_dest d = { 0 };

		ok(sbx_diag_dest_parse("stderr", &d, &err) == 0 && d.kind == SBX_DIAG_STDERR,
		    "--diag stderr");
		ok(sbx_diag_dest_parse("none", &d, &err) == 0 && d.kind == SBX_DIAG_NONE,
		    "--diag none");
		ok(sbx_diag_dest_parse("fd:0", &d, &err) == 0 && d.kind == SBX_DIAG_FD && d.fd == 0,
		    "--diag fd:0");
		ok(sbx_diag_dest_parse("fd:1048576", &d, &err) == 0 && d.fd == 1048576,
		    "--diag fd:1048576");
		ok(sbx_diag_dest_parse("fd:1048577", &d, &err) == -1, "--diag fd:1048577 refused");
		ok(sbx_diag_dest_parse("/tmp/d.json", &d, &err) == 0 && d.kind == SBX_DIAG_PATH &&
			!strcmp(d.path, "/tmp/d.json"),
		    "--diag PATH");
		ok(sbx_diag_dest_parse("rel.json", &d, &err) == 0 && d.kind == SBX_DIAG_PATH &&
			!strcmp(d.path, "rel.json"),
		    "--diag relative PATH");
		ok(sbx_diag_dest_parse("stderr", &d, &err) == 0 && d.path == NULL,
		    "a later --diag replaces a PATH");
		free(d.path);
	}

	ok(strstr(sbx_cli_usage(), "Usage: sbxrun") != NULL, "usage text");
	{
		static const char *const flags[] = {
			"--profile",
			"--backend",
			"--docker-image",
			"--fs",
			"--allow-read",
			"--deny-read",
			"--protect",
			"--mount",
			"--workdir",
			"--keep",
			"--network",
			"--listen",
			"--connect",
			"--loopback",
			"--allow-host",
			"--deny-host",
			"--allow-method",
			"--env",
			"--pass-env",
			"--timeout",
			"--memory",
			"--pids",
			"--cpu",
			"--file-size",
			"--open-files",
			"--interp",
			"--script-name",
			"--trace",
			"--diag",
			"--allow-degraded",
			"--no-protect-defaults",
			"--print-policy",
			"--print-backend",
			"--probe",
			"--selftest",
			"--verbose",
			"--quiet",
			"--help",
			"--version",
		};
		int missing = 0;

		for (size_t i = 0; i < SBX_ARRAY_LEN(flags); i++)
			if (strstr(sbx_cli_usage(), flags[i]) == NULL && missing++ < 5)
				diag("not in --help: %s", flags[i]);
		is_int(missing, 0, "--help names every option of sbxrun(1) OPTIONS");
	}
}

static const char every_key[] =
    "[sandbox]\nbackend = namespaces\nfs = allowlist\nnetwork = on\nworkdir = ~/proj\n"
    "keep = yes\nallow_degraded = yes\nprotect_defaults = no\ntimeout = 1500ms\nmemory = "
    "512M\npids = 256\n"
    "cpu = 90s\nfile_size = 1536\nopen_files = 1024\ntrace = run.trace.jsonl\n"
    "docker_image = debian:stable-slim\n"
    "[read]\npath = /opt/datasets\npath = ~/data\n[deny]\npath = ~/.config/gh\npath = /srv/s\n"
    "[mounts]\ndata = /srv/data:ro\nout = ~/out:rw\nmy data = /srv/my data\n"
    "[ports]\nlisten = 8080, 8081\nconnect = 443\nconnect = 80\nloopback = 8899\n"
    "[proxy]\nallow = api.example.com\nallow = *.example.org\nallow = git.example.com:22\n"
    "deny = uploads.example.org\ndeny = *.example.org:8080\nmethods = GET, head\n"
    "methods = OPTIONS\n"
    "[protect]\npath = .envrc\npath = sub/dir\n"
    "[env]\nLANG = C.UTF-8\nEMPTY =\nEQ = a=b\nHASH = #x\npass = TERM\npass = LC_ALL\n";

static void
test_round_trips(void)
{
	struct sbx_policy p;
	struct sbx_err err = { 0 };
	const char *srcdir = getenv("SRCDIR");
	char *pattern;
	glob_t g;

	sbx_policy_init(&p, HOME);
	round_trip(&p, "the default policy");
	sbx_policy_free(&p);

	sbx_policy_init(&p, HOME);
	if (is_int(sbx_profile_load_string(&p, "every.ini", every_key, &err), 0,
		"a profile setting every key loads"))
		round_trip(&p, "a policy setting every key");
	else
		diag("error: %s", err.msg);
	sbx_policy_free(&p);

	if (merge_ok(&p, NULL,
		ARGS("--backend", "docker", "--fs", "open", "--network", "off", "-w",
		    "/srv/work dir", "--keep", "--allow-degraded", "--no-protect-defaults", "-t",
		    "2h", "--memory", "3G", "--pids", "7", "--cpu", "1500ms", "--file-size", "5K",
		    "--open-files", "9", "--trace", "/tmp/t.jsonl", "--docker-image", "alpine:3",
		    "-r", "/a", "--deny-read", "/b", "--protect", "p", "-m", "/s:t:rw", "--listen",
		    "1,2", "--connect", "3", "--loopback", "4", "--allow-host", "*.x.org",
		    "--allow-host", "g.x.org:22", "--deny-host", "u.x.org", "--allow-method",
		    "GET,POST", "-e", "K=v", "--pass-env", "P"),
		"every flag"))
		round_trip(&p, "a policy made of every flag");
	sbx_policy_free(&p);

	/* The proxy's rules as --print-policy shows them. */
	if (merge_ok(&p, NULL,
		ARGS("--allow-host", "A.com.", "--allow-host", "g.com:022", "--deny-host",
		    "U.com:443", "--allow-method", "get,HEAD", "--allow-method", "head"),
		"proxy rules")) {
		char *ini = sbx_policy_to_ini(&p, &err);

		like(ini,
		    "[proxy]\nallow = a.com\nallow = g.com:22\ndeny = u.com:443\n"
		    "methods = GET, HEAD\n",
		    "allow, deny and methods print normalized, in one [proxy] section");
		free(ini);
		round_trip(&p, "proxy rules");
	}
	sbx_policy_free(&p);

	for (int i = 0; i < 6; i++) {
		static const char *const backends[] = { "auto", "namespaces", "landlock",
			"seatbelt", "docker", "none" };

		if (merge_ok(&p, NULL, ARGS("--backend", backends[i]), backends[i]))
			round_trip(&p, backends[i]);
		sbx_policy_free(&p);
	}
	if (merge_ok(&p, NULL, ARGS("--fs", "bogus"), "--fs bogus")) {
		char *ini = sbx_policy_to_ini(&p, &err);

		like(ini, "fs = strict\n", "an unknown fs value is printed as strict");
		round_trip(&p, "a policy with the fs fallback");
		free(ini);
	}
	sbx_policy_free(&p);

	/* Values that need care in an INI file. */
	if (merge_ok(&p, NULL,
		ARGS("-e", "SEMI=a;b", "-e", "SP=a b", "-e", "Q='\"x\"'", "-e", "D=$(whoami)", "-e",
		    "U=\xc3\xa9t\xc3\xa9"),
		"values with ; spaces quotes $() UTF-8"))
		round_trip(&p, "values with ; spaces quotes $() UTF-8");
	sbx_policy_free(&p);
	if (merge_ok(&p, NULL, ARGS("-e", "S=;x"), "-e S=;x"))
		round_trip(&p, "an env value starting with ';'");
	sbx_policy_free(&p);
	{
		char *wd = sbx_xasprintf("/srv/%0300d", 7);

		if (merge_ok(&p, NULL, ARGS("-w", wd), "a 305-character workdir"))
			round_trip(&p, "a 305-character workdir (PATH_MAX is 4096)");
		sbx_policy_free(&p);
		free(wd);
	}
	/* Values a profile line cannot hold (only a flag gives them) are not
	 * printed as something else: the print is refused, naming the value. */
	{
		static const struct {
			const char *arg, *want;
		} unprintable[] = {
			{ "LEAD= x",
			    "[env] LEAD = ' x' cannot be written in a profile: the value "
			    "starts or ends with a blank" },
			{ "TRAIL=x ",
			    "[env] TRAIL = 'x ' cannot be written in a profile: the value "
			    "starts or ends with a blank" },
			{ "CMT=a ;b",
			    "[env] CMT = 'a ;b' cannot be written in a profile: the value "
			    "holds ' ;', which starts a comment" },
		};

		for (size_t i = 0; i < SBX_ARRAY_LEN(unprintable); i++) {
			if (merge_ok(&p, NULL, ARGS("-e", unprintable[i].arg, "-e", "OK=1"),
				unprintable[i].arg)) {
				char *ini = sbx_policy_to_ini(&p, &err);

				ok(ini == NULL, "-e '%s' runs but does not print",
				    unprintable[i].arg);
				is_str(err.msg, unprintable[i].want, "... the message says which");
				free(ini);
			}
			sbx_policy_free(&p);
		}
	}

	pattern = sbx_xasprintf("%s/profiles/*.ini", srcdir ? srcdir : ".");
	if (ok(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc > 0, "shipped profiles found in %s",
		pattern)) {
		for (size_t i = 0; i < g.gl_pathc; i++) {
			sbx_policy_init(&p, HOME);
			if (is_int(sbx_profile_load_file(&p, g.gl_pathv[i], &err), 0, "%s loads",
				g.gl_pathv[i]))
				round_trip(&p, g.gl_pathv[i]);
			else
				diag("error: %s", err.msg);
			sbx_policy_free(&p);
		}
		globfree(&g);
	}
	free(pattern);
}

/* print -> parse -> print is the identity, for adversarial policies built
 * from flags and from profile lines: whatever is accepted prints as a
 * profile that reads back equal and prints the same again, or the print is
 * refused; nothing accepted prints as lines it did not have. */
static void
roundtrip_or_refused(const struct sbx_policy *p, const char *what)
{
	struct sbx_err err = { 0 };
	char *ini = sbx_policy_to_ini(p, &err);

	if (ini == NULL) {
		like(err.msg, "cannot be written in a profile", "%s: the print is refused", what);
		ini = sbx_policy_to_ini_origins(p, &err);
		ok(ini == NULL, "%s: ... with origins too", what);
		free(ini);
		return;
	}
	free(ini);
	round_trip(p, what);
}

static void
test_adversarial_round_trips(void)
{
	/* Flags: each is either refused as input or round trips. */
	static const char *const flag_cases[][3] = {
		{ "--mount", "/src:a\n[ports]\nloopback = 22", "a target holding a newline" },
		{ "--mount", "/src:a=b", "a target holding '='" },
		{ "--mount", "/src:;t", "a target starting with ';'" },
		{ "--mount", "/src:#t", "a target starting with '#'" },
		{ "--mount", "/src:[ports]", "a target starting with '['" },
		{ "--mount", "/src: t", "a target starting with a blank" },
		{ "--mount", "/src:t ", "a target ending with a blank" },
		{ "--mount", "/src:a ;b", "a target holding ' ;'" },
		{ "--mount", "/src:a;b", "a target holding ';' after no blank" },
		{ "--mount", "/src:a\tb", "a target holding a tab" },
		{ "--mount", "/src:a\rb", "a target holding a CR" },
		{ "--mount", "/src:a\x7f", "a target holding DEL" },
		{ "--mount", "/s\nrc:t", "a mount source holding a newline" },
		{ "--mount", ";/src:t", "a mount source starting with ';'" },
		{ "--mount", "/src=x:t", "a mount source holding '='" },
		{ "--workdir", "/w\n[proxy]\nallow = evil.com", "a workdir holding a newline" },
		{ "--workdir", ";w", "a workdir starting with ';'" },
		{ "--workdir", "/w ;x", "a workdir holding ' ;'" },
		{ "--workdir", "/w ", "a workdir ending with a blank" },
		{ "--allow-read", "/r\x1b[31m", "a read path holding ESC" },
		{ "--deny-read", "/d\n", "a deny path ending with a newline" },
		{ "--protect", "p\nq", "a protected path holding a newline" },
		{ "--protect", ";p", "a protected path starting with ';'" },
		{ "--trace", "t\r", "a trace path holding a CR" },
		{ "--env", "X=a\nb", "an env value holding a newline" },
		{ "--env", "X=;v", "an env value starting with ';'" },
		{ "--env", "X=;", "an env value that is ';'" },
		{ "--env", "X==", "an env value that is '='" },
		{ "--env", "X=#", "an env value that is '#'" },
		{ "--env", "X=[env]", "an env value that looks like a header" },
		{ "--env", "X\n=v", "an env name holding a newline" },
		{ "--env", "X=a ; b", "an env value holding ' ; '" },
		{ "--pass-env", "A\nB", "a passed env name holding a newline" },
		{ "--allow-host", "a.com\nallow = b.com", "a host holding a newline" },
		{ "--allow-host", "a.com:22\ndeny = b.com", "a host:port holding a newline" },
		{ "--allow-host", "a.com:22 ;x", "a host:port holding ' ;'" },
		{ "--allow-host", "a.com: 22", "a port after a blank" },
		{ "--deny-host", "a.com\n[proxy]\nallow = b.com",
		    "a denied host holding a newline" },
		{ "--deny-host", ";a.com", "a denied host starting with ';'" },
		{ "--allow-method", "GET\n[proxy]\nallow = b.com", "a method holding a newline" },
		{ "--allow-method", "GET ;POST", "a method list holding ' ;'" },
		{ "--allow-method", "#GET", "a method starting with '#'" },
		{ "--allow-method", "[proxy]", "a method that looks like a header" },
		{ "--docker-image", "img\n", "a docker image holding a newline" },
	};
	/* Profile lines: the same line parses the same whether it is shorter
	 * or longer than inih's 200-byte buffer; what loads round trips. */
	static const char *const line_cases[][2] = {
		{ "[mounts]", "a ;b = /src" },
		{ "[mounts]", "a;b = /src" },
		{ "[mounts]", "t =;/src" },
		{ "[mounts]", "t = ;/src" },
		{ "[mounts]", "t = /src ;c" },
		{ "[mounts]", "t = /src;c" },
		{ "[mounts]", "t: /src" },
		{ "[env]", "X =;v" },
		{ "[env]", "X = ;v" },
		{ "[env]", "X = a ; b" },
		{ "[env]", "X = a;b" },
		{ "[env]", "X ;= v" },
		{ "[sandbox]", "workdir =;w" },
		{ "[sandbox]", "workdir = /w" },
		{ "[protect]", "path = p=q" },
		{ "[protect]", "path = p:q" },
		{ "[proxy]", "allow = a.com:22 ;c" },
		{ "[proxy]", "allow = a.com:22;c" },
		{ "[proxy]", "deny = a.com ;c" },
		{ "[proxy]", "methods = GET ;POST" },
		{ "[proxy]", "methods = GET,#POST" },
		{ "[proxy]", "methods: GET" },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(flag_cases); i++) {
		struct sbx_policy p;
		struct sbx_err err;
		int r = merge(&p, NULL, ARGS(flag_cases[i][0], flag_cases[i][1]), &err);

		if (r != 0) {
			ok(strchr(err.msg, '\n') == NULL &&
				strncmp(err.msg, flag_cases[i][0], strlen(flag_cases[i][0])) == 0,
			    "%s: refused at input, naming the flag (%s)", flag_cases[i][2],
			    err.msg);
		} else {
			roundtrip_or_refused(&p, flag_cases[i][2]);
		}
		sbx_policy_free(&p);
	}
	/* The ones that must be refused at input, whatever the writer does. */
	{
		static const char *const must_refuse[][2] = {
			{ "-m", "/src:a\n[ports]\nloopback = 22" },
			{ "-m", "/src:a=b" },
			{ "-m", "/src:;t" },
			{ "-m", "/src:[ports]" },
			{ "-m", "/src:a ;b" },
			{ "-w", "/w\n[proxy]\nallow = evil.com" },
			{ "-e", "X=a\nb" },
			{ "--protect", "p\nq" },
		};

		for (size_t i = 0; i < SBX_ARRAY_LEN(must_refuse); i++) {
			struct sbx_policy p;
			struct sbx_err err;

			is_int(merge(&p, NULL, ARGS(must_refuse[i][0], must_refuse[i][1]), &err),
			    -1, "%s '%s' is refused at input", must_refuse[i][0],
			    must_refuse[i][1]);
			sbx_policy_free(&p);
		}
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(line_cases); i++) {
		/* The long form pads the value side with a comment or the key
		 * side with nothing; only the length must differ, so the
		 * padding is a trailing comment after a blank. */
		char *pad = sbx_xasprintf("%0250d", 0);
		char *shortp = sbx_xasprintf("%s\n%s\n", line_cases[i][0], line_cases[i][1]);
		char *longp =
		    sbx_xasprintf("%s\n%s ;%s\n", line_cases[i][0], line_cases[i][1], pad);
		struct sbx_policy a, b;
		struct sbx_err ea = { 0 }, eb = { 0 };
		int ra, rb;

		sbx_policy_init(&a, HOME);
		sbx_policy_init(&b, HOME);
		ra = sbx_profile_load_string(&a, "t.ini", shortp, &ea);
		rb = sbx_profile_load_string(&b, "t.ini", longp, &eb);
		is_int(rb, ra, "'%s' under 200 bytes and over: same verdict", line_cases[i][1]);
		if (ra == 0 && rb == 0) {
			const char *d = policy_diff(&a, &b);

			if (!ok(d == NULL, "'%s' short and long: the same policy",
				line_cases[i][1]))
				diag("first difference: %s", d);
			roundtrip_or_refused(&a, line_cases[i][1]);
		} else {
			is_str(eb.msg, ea.msg, "'%s' short and long: the same message",
			    line_cases[i][1]);
		}
		sbx_policy_free(&a);
		sbx_policy_free(&b);
		free(pad);
		free(shortp);
		free(longp);
	}
}

/* The line expected in --print-policy for a value of origin from. */
static char *
origin_line(const char *kv, const char *from)
{
	return sbx_xasprintf("\n%-32s ; %s\n", kv, from);
}

static void
like_line(const char *ini, const char *kv, const char *from)
{
	char *want = origin_line(kv, from);

	if (!like(ini, want, "origin of '%s' is %s", kv, from))
		diag("printed:\n%s", ini);
	free(want);
}

/* Each value's origin: built in, FILE:LINE or the flag; a scalar's is the
 * last that set it, a list entry's every one that gave it. */
static void
test_origins(void)
{
	static const char profile[] = "; a comment\n"
				      "[sandbox]\n"
				      "network = on\n"
				      "timeout = 5s\n"
				      "[ports]\n"
				      "listen = 8080, 8081\n"
				      "[read]\n"
				      "path = /usr\n"
				      "[mounts]\n"
				      "t = /s\n"
				      "[env]\n"
				      "pass = TERM\n";
	struct sbx_policy p;
	struct sbx_err err = { 0 };
	char *ini;

	if (!merge_ok(&p, profile,
		ARGS("--timeout", "9s", "--listen", "8081", "--listen", "9000,10", "-r", "/usr",
		    "-r", "/opt", "--fs", "allowlist", "-e", "K=v", "-m", "/s2:t", "--pass-env",
		    "TERM", "--allow-host", "X.org"),
		"a profile and flags")) {
		sbx_policy_free(&p);
		return;
	}
	is_str(sbx_policy_origin(&p, "sandbox", "backend", NULL), NULL,
	    "a value never set has no origin (built in)");
	is_str(sbx_policy_origin(&p, "sandbox", "network", NULL), "t.ini:3",
	    "a value from a profile: FILE:LINE");
	is_str(sbx_policy_origin(&p, "sandbox", "timeout", NULL), "--timeout",
	    "a value set by a profile, then a flag: the flag");
	is_str(
	    sbx_policy_origin(&p, "ports", "listen", "8080"), "t.ini:6", "a port from a profile");
	is_str(sbx_policy_origin(&p, "ports", "listen", "8081"), "t.ini:6, --listen",
	    "a port given by a profile and a flag: both");
	is_str(sbx_policy_origin(&p, "ports", "listen", "10"), "--listen",
	    "each port of a flag's list has the flag");
	is_str(sbx_policy_origin(&p, "read", "path", "/usr"), "t.ini:8, --allow-read",
	    "a path given twice: both origins");
	is_str(sbx_policy_origin(&p, "read", "path", "/opt"), "--allow-read", "a path of a flag");
	is_str(sbx_policy_origin(&p, "mounts", "t", NULL), "--mount",
	    "a mount target remounted by a flag: the flag");
	is_str(sbx_policy_origin(&p, "env", "K", NULL), "--env", "a variable of a flag");
	is_str(sbx_policy_origin(&p, "env", "pass", "TERM"), "t.ini:12, --pass-env",
	    "a passed variable given twice");
	is_str(sbx_policy_origin(&p, "proxy", "allow", "x.org"), "--allow-host",
	    "a host, by its normalised name");

	ini = sbx_policy_to_ini_origins(&p, &err);
	if (ok(ini != NULL, "the policy prints with origins")) {
		like(ini, "; After each value", "a first comment line says what the comments are");
		like_line(ini, "backend = auto", "built-in");
		like_line(ini, "keep = no", "built-in");
		like_line(ini, "protect_defaults = yes", "built-in");
		like_line(ini, "network = on", "t.ini:3");
		like_line(ini, "timeout = 9s", "--timeout");
		like_line(ini, "fs = allowlist", "--fs");
		/* Sorted ports, a line per run of one origin. */
		like_line(ini, "listen = 10", "--listen");
		like_line(ini, "listen = 8080", "t.ini:6");
		like_line(ini, "listen = 8081", "t.ini:6, --listen");
		like_line(ini, "listen = 9000", "--listen");
		like_line(ini, "path = /usr", "t.ini:8, --allow-read");
		like_line(ini, "path = /opt", "--allow-read");
		like_line(ini, "t = /s2:ro", "--mount");
		like_line(ini, "K = v", "--env");
		like_line(ini, "pass = TERM", "t.ini:12, --pass-env");
		like_line(ini, "allow = x.org", "--allow-host");
	}
	free(ini);
	round_trip(&p, "a profile and flags, with origins");
	sbx_policy_free(&p);

	/* One origin for adjacent ports: one line. */
	if (merge_ok(&p, NULL, ARGS("--listen", "1,2,3", "--connect", "4"), "--listen 1,2,3")) {
		ini = sbx_policy_to_ini_origins(&p, &err);
		like_line(ini, "listen = 1, 2, 3", "--listen");
		like_line(ini, "connect = 4", "--connect");
		free(ini);
	}
	sbx_policy_free(&p);

	/* A long line: the comment goes after one blank. */
	{
		char *wd = sbx_xasprintf("/srv/%060d", 1);
		char *want = sbx_xasprintf("\nworkdir = %s ; --workdir\n", wd);

		if (merge_ok(&p, NULL, ARGS("-w", wd), "a long workdir")) {
			ini = sbx_policy_to_ini_origins(&p, &err);
			like(ini, want, "a line past the comment column: one blank, then ';'");
			free(ini);
		}
		sbx_policy_free(&p);
		free(want);
		free(wd);
	}

	/* A profile's name can hold anything a file name can: a newline, a
	 * header, " ; ". Its origins stay comments on their own lines. */
	{
		static const char *const names[] = {
			"a\n[ports]\nloopback = 22\n.ini",
			"x ; y = z.ini",
			"\r[env]\rX = 1.ini",
			"=;#[].ini",
		};

		for (size_t i = 0; i < SBX_ARRAY_LEN(names); i++) {
			char *plain;
			int lines = 0, plain_lines = 0;

			sbx_policy_init(&p, HOME);
			if (!is_int(
				sbx_profile_load_string(&p, names[i],
				    "[sandbox]\nnetwork = on\n[read]\npath = /r\n[env]\nE = ;\n",
				    &err),
				0, "a profile named '%s' loads", names[i])) {
				diag("error: %s", err.msg);
				sbx_policy_free(&p);
				continue;
			}
			ini = sbx_policy_to_ini_origins(&p, &err);
			plain = sbx_policy_to_ini(&p, &err);
			for (const char *c = ini; c && *c; c++)
				lines += *c == '\n';
			for (const char *c = plain; c && *c; c++)
				plain_lines += *c == '\n';
			is_int(lines, plain_lines + 2,
			    "profile '%s': two lines more than without origins (the first comment, "
			    "a blank)",
			    names[i]);
			ok(strstr(ini, "\n[ports]") == NULL && strstr(ini, "\r") == NULL,
			    "profile '%s': no header and no CR slip out of a comment", names[i]);
			round_trip(&p, names[i]);
			free(ini);
			free(plain);
			sbx_policy_free(&p);
		}
	}
	{
		char *ini2;

		sbx_policy_init(&p, HOME);
		sbx_profile_load_string(&p, "a\nb\x7f.ini", "[sandbox]\nkeep = yes\n", &err);
		ini2 = sbx_policy_to_ini_origins(&p, &err);
		like_line(ini2, "keep = yes", "a\\x0ab\\x7f.ini:2");
		free(ini2);
		sbx_policy_free(&p);
	}
	/* The built-in protect list: on unless a profile or the flag drops
	 * it, and --print-policy says which did. */
	if (merge_ok(&p, "[sandbox]\nprotect_defaults = yes\n", ARGS("--no-protect-defaults"),
		"--no-protect-defaults after a profile")) {
		char *ini2 = sbx_policy_to_ini_origins(&p, &err);

		ok(!p.protect_defaults, "--no-protect-defaults drops the built-in protect list");
		like_line(ini2, "protect_defaults = no", "--no-protect-defaults");
		round_trip(&p, "a policy without the built-in protect list");
		free(ini2);
	}
	sbx_policy_free(&p);
}

/* The edit distance and the suggestions made from it. */
static void
test_suggest(void)
{
	static const struct {
		const char *a, *b;
		size_t d;
	} dist[] = {
		{ "", "", 0 },
		{ "", "abc", 3 },
		{ "abc", "", 3 },
		{ "listen", "listen", 0 },
		{ "listn", "listen", 1 },
		{ "alow-read", "allow-read", 1 },
		{ "netwrok", "network", 1 },
		{ "ab", "ba", 1 },
		{ "FS", "fs", 0 },
		{ "kitten", "sitting", 3 },
		{ "ca", "abc", 3 }, /* a swap, then no edit of it again */
		{ "flaw", "lawn", 2 },
	};
	static const char *const keys[] = { "listen", "connect", "loopback" };
	static const char *const near[] = { "pids", "cpu", "fs", "keep" };

	for (size_t i = 0; i < SBX_ARRAY_LEN(dist); i++) {
		is_int((long long)sbx_edit_distance(dist[i].a, dist[i].b), (long long)dist[i].d,
		    "edit distance '%s' to '%s'", dist[i].a, dist[i].b);
		is_int((long long)sbx_edit_distance(dist[i].b, dist[i].a), (long long)dist[i].d,
		    "... and back");
	}
	is_str(sbx_suggest("listn", keys, 3), "listen", "'listn': did you mean 'listen'");
	is_str(sbx_suggest("conect", keys, 3), "connect", "'conect': 'connect'");
	is_str(sbx_suggest("lopback", keys, 3), "loopback", "'lopback': 'loopback'");
	is_str(sbx_suggest("bind", keys, 3), NULL, "'bind': nothing close");
	is_str(sbx_suggest("lstn", keys, 3), "listen", "two edits in six letters: still close");
	is_str(sbx_suggest("x", near, 4), NULL, "one letter: never a suggestion");
	is_str(sbx_suggest("cp", near, 4), "cpu", "'cp': 'cpu'");
	{
		static const char *const two[] = { "lister", "listen" };

		is_str(sbx_suggest("liste", two, 2), NULL, "one edit from two candidates: a tie");
	}
	is_str(sbx_suggest("pid", near, 4), "pids", "'pid': 'pids'");
	is_str(sbx_suggest("anything", keys, 0), NULL, "no candidates: nothing");

	{
		static const char *const msgs[][3] = {
			{ "ports", "listn",
			    "unknown key 'listn' in [ports]; did you mean 'listen'?" },
			{ "sandbox", "listen",
			    "unknown key 'listen' in [sandbox]; it belongs in [ports]" },
			{ "sandbox", "allow",
			    "unknown key 'allow' in [sandbox]; it belongs in [proxy]" },
			{ "sandbox", "zzz", "unknown key 'zzz' in [sandbox]" },
			{ "prots", NULL, "unknown section [prots]; did you mean [ports]?" },
			{ "enc", NULL, "unknown section [enc]; did you mean [env]?" },
			{ "network", NULL, "unknown section [network]" },
		};

		for (size_t i = 0; i < SBX_ARRAY_LEN(msgs); i++) {
			char *m = sbx_policy_unknown_msg(msgs[i][0], msgs[i][1]);

			is_str(m, msgs[i][2], "the message for [%s] %s", msgs[i][0],
			    msgs[i][1] ? msgs[i][1] : "(section)");
			free(m);
		}
	}

	/* Flags. */
	flag_fails(ARGS("--alow-read", "/x"),
	    "unknown option '--alow-read'; did you mean '--allow-read'?", "--alow-read");
	flag_fails(ARGS("--alow-read=/x"),
	    "unknown option '--alow-read'; did you mean '--allow-read'?", "--alow-read=/x");
	flag_fails(
	    ARGS("--lisen", "80"), "unknown option '--lisen'; did you mean '--listen'?", "--lisen");
	flag_fails(ARGS("--print-polcy"),
	    "unknown option '--print-polcy'; did you mean '--print-policy'?", "--print-polcy");
	flag_fails(ARGS("--frobnicate"), "unknown option '--frobnicate'", "--frobnicate");
	flag_fails(ARGS("--allow", "x"),
	    "option '--allow' is ambiguous: --allow-read, --allow-host, --allow-method, "
	    "--allow-degraded",
	    "--allow (an abbreviation of four)");
	flag_fails(ARGS("--keep=yes"), "option '--keep' takes no argument", "--keep=yes");
	flag_fails(ARGS("-Z"), "unknown option '-Z'", "-Z");
}

static void
test_check(void)
{
	struct sbx_policy p;
	struct sbx_err err = { 0 };

	if (merge_ok(
		&p, NULL, ARGS("--listen", "8080", "--loopback", "8080"), "listen = loopback")) {
		is_int(
		    sbx_policy_check(&p, &err), -1, "a port both listen and loopback is refused");
		like(err.msg, "port 8080 is both a listen and a loopback port ([ports] listen",
		    "... message, naming the keys");
	}
	sbx_policy_free(&p);
	if (merge_ok(&p, NULL, ARGS("--listen", "8080", "--connect", "8080", "--loopback", "8081"),
		"listen = connect"))
		is_int(sbx_policy_check(&p, &err), 0, "a port both listen and connect is fine");
	sbx_policy_free(&p);
	if (merge_ok(&p, NULL, ARGS("-r", "/data"), "-r under fs strict")) {
		is_int(sbx_policy_check(&p, &err), -1, "a read path under fs strict is refused");
		like(err.msg, "need fs = allowlist", "... message");
	}
	sbx_policy_free(&p);
	if (merge_ok(&p, NULL, ARGS("-r", "/data", "--fs", "allowlist"), "-r with allowlist"))
		is_int(sbx_policy_check(&p, &err), 0, "a read path under fs allowlist is fine");
	sbx_policy_free(&p);
	sbx_policy_init(&p, HOME);
	is_int(sbx_policy_check(&p, &err), 0, "the default policy is consistent");
	sbx_policy_free(&p);
}

static void
test_rules(void)
{
	const uint32_t base = SBX_RULE_BIT(SBX_RULE_FS) | SBX_RULE_BIT(SBX_RULE_DENY) |
	    SBX_RULE_BIT(SBX_RULE_PROTECT) | SBX_RULE_BIT(SBX_RULE_NETWORK) |
	    SBX_RULE_BIT(SBX_RULE_PROCESSES);
	static const struct {
		const char *flag, *value;
		enum sbx_rule rule;
	} cases[] = {
		{ "-m", "/s:t", SBX_RULE_MOUNTS },
		{ "--listen", "80", SBX_RULE_LISTEN },
		{ "--connect", "443", SBX_RULE_CONNECT },
		{ "--loopback", "5432", SBX_RULE_LOOPBACK },
		{ "--allow-host", "a.com", SBX_RULE_PROXY },
		{ "-t", "5s", SBX_RULE_TIMEOUT },
		{ "--memory", "1G", SBX_RULE_MEMORY },
		{ "--pids", "5", SBX_RULE_PIDS },
		{ "--cpu", "5s", SBX_RULE_CPU },
		{ "--file-size", "1M", SBX_RULE_FILE_SIZE },
		{ "--open-files", "64", SBX_RULE_OPEN_FILES },
	};
	static const char *const names[SBX_RULE__COUNT] = {
		"fs",
		"deny",
		"protect",
		"mounts",
		"network",
		"listen",
		"connect",
		"loopback",
		"proxy",
		"processes",
		"timeout",
		"memory",
		"pids",
		"cpu",
		"file_size",
		"open_files",
	};
	struct sbx_policy p;
	uint32_t all = base;

	for (int r = 0; r < SBX_RULE__COUNT; r++)
		is_str(
		    sbx_rule_name((enum sbx_rule)r), names[r], "rule %d is named %s", r, names[r]);
	is_int(sbx_limit_rule(SBX_LIMIT_MEMORY), SBX_RULE_MEMORY, "limit memory -> rule memory");
	is_int(sbx_limit_rule(SBX_LIMIT_PIDS), SBX_RULE_PIDS, "limit pids -> rule pids");
	is_int(sbx_limit_rule(SBX_LIMIT_CPU), SBX_RULE_CPU, "limit cpu -> rule cpu");
	is_int(sbx_limit_rule(SBX_LIMIT_FILE_SIZE), SBX_RULE_FILE_SIZE, "limit file_size -> rule");
	is_int(
	    sbx_limit_rule(SBX_LIMIT_OPEN_FILES), SBX_RULE_OPEN_FILES, "limit open_files -> rule");

	sbx_policy_init(&p, HOME);
	is_int(sbx_rules_requested(&p), base,
	    "the default policy requests fs, deny, protect, network and processes");
	sbx_policy_free(&p);
	if (merge_ok(&p, NULL, ARGS("--network", "on", "--fs", "open"), "network on, fs open"))
		is_int(
		    sbx_rules_requested(&p), base, "network on and fs open request the same rules");
	sbx_policy_free(&p);
	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		if (merge_ok(&p, NULL, ARGS(cases[i].flag, cases[i].value), cases[i].flag))
			is_int(sbx_rules_requested(&p), base | SBX_RULE_BIT(cases[i].rule),
			    "%s %s requests exactly the rule %s too", cases[i].flag, cases[i].value,
			    names[cases[i].rule]);
		sbx_policy_free(&p);
		all |= SBX_RULE_BIT(cases[i].rule);
	}
	sbx_policy_init(&p, HOME);
	if (is_int(sbx_profile_load_string(&p, "every.ini", every_key, NULL), 0, "every key"))
		is_int(
		    sbx_rules_requested(&p), all, "a policy setting every key requests every rule");
	is_int(all, (1 << SBX_RULE__COUNT) - 1, "(every rule is reachable)");
	sbx_policy_free(&p);
}

static void
test_exec(void)
{
	static char *const caller_env[] = {
		"PATH=/caller/bin",
		"HOME=/home/u",
		"FAKE_API_KEY=sk-secret",
		"TERM=xterm",
		"LANG=de_DE.UTF-8",
		"LD_PRELOAD=/evil.so",
		"SSH_AUTH_SOCK=/tmp/agent",
		NULL,
	};
	struct sbx_caller caller = { .uid = 1000, .gid = 1000, .user = "alice", .home = "/home/u" };
	struct sbx_exec x = { 0 };
	struct sbx_policy p;
	struct sbx_err err = { 0 };
	char *cmd[] = { "ls", "-l", NULL };
	struct sbx_strv extra = { 0 };

	if (merge_ok(&p, NULL,
		ARGS("--pass-env", "TERM", "--pass-env", "UNSET_VAR", "-e", "A=1", "-e",
		    "HOME=/override"),
		"exec policy") &&
	    is_int(sbx_exec_build(
		       &x, &p, "/w", "/tmp", NULL, NULL, NULL, &caller, caller_env, NULL, &err),
		0, "exec: a script from stdin")) {
		size_t n = 0;

		ok(!strcmp(x.argv[0], "/bin/sh") && !strcmp(x.argv[1], "-s") && x.argv[2] == NULL,
		    "a script runs as /bin/sh -s");
		is_str(sbx_env_get(x.envp, "PATH"), SBX_SANDBOX_PATH,
		    "PATH is sbxrun's, not the caller's");
		is_str(sbx_env_get(x.envp, "TMPDIR"), "/tmp", "TMPDIR");
		is_str(sbx_env_get(x.envp, "LANG"), "de_DE.UTF-8", "LANG from the caller");
		is_str(sbx_env_get(x.envp, "USER"), "alice", "USER");
		is_str(sbx_env_get(x.envp, "LOGNAME"), "alice", "LOGNAME");
		is_str(sbx_env_get(x.envp, "PWD"), "/w", "PWD is the workdir");
		is_str(sbx_env_get(x.envp, "SHELL"), "/bin/sh", "SHELL");
		is_str(sbx_env_get(x.envp, "TERM"), "xterm", "--pass-env TERM copies it");
		is_str(sbx_env_get(x.envp, "UNSET_VAR"), NULL,
		    "--pass-env of an unset variable: absent");
		is_str(sbx_env_get(x.envp, "A"), "1", "-e A=1");
		is_str(
		    sbx_env_get(x.envp, "HOME"), "/override", "-e HOME=... is the user's choice");
		is_str(sbx_env_get(x.envp, "FAKE_API_KEY"), NULL, "FAKE_API_KEY is not inherited");
		is_str(sbx_env_get(x.envp, "LD_PRELOAD"), NULL, "LD_PRELOAD is not inherited");
		is_str(
		    sbx_env_get(x.envp, "SSH_AUTH_SOCK"), NULL, "SSH_AUTH_SOCK is not inherited");
		for (; x.envp[n]; n++)
			;
		is_u64(n, 10, "exactly the 8 built variables plus TERM and A");
		is_str(x.cwd, "/w", "cwd is the workdir");
		is_int(x.stdin_fd, -1, "stdin is passed through");
	}
	sbx_exec_free(&x);
	sbx_policy_free(&p);

	sbx_policy_init(&p, HOME);
	sbx_strv_push(&extra, "HTTPS_PROXY=http://127.0.0.1:1");
	sbx_strv_push(&extra, "BROKEN");
	if (is_int(
		sbx_exec_build(&x, &p, "/w", "/tmp", cmd, NULL, NULL, &caller, NULL, &extra, &err),
		0, "exec: a COMMAND, no caller environment")) {
		ok(!strcmp(x.argv[0], "ls") && !strcmp(x.argv[1], "-l") && x.argv[2] == NULL,
		    "COMMAND argv as given");
		is_str(sbx_env_get(x.envp, "HOME"), "/w", "HOME is the workdir");
		is_str(sbx_env_get(x.envp, "LANG"), "C.UTF-8", "LANG defaults to C.UTF-8");
		is_str(sbx_env_get(x.envp, "HTTPS_PROXY"), "http://127.0.0.1:1", "extra variables");
		is_str(
		    sbx_env_get(x.envp, "BROKEN"), NULL, "an extra entry without '=' is dropped");
	}
	sbx_exec_free(&x);
	if (is_int(sbx_exec_build(&x, &p, "/w", "/tmp", NULL, "python3", "/w/.sbxrun/main.py",
		       &caller, NULL, NULL, &err),
		0, "exec: --interp"))
		ok(!strcmp(x.argv[0], "python3") && !strcmp(x.argv[1], "/w/.sbxrun/main.py") &&
			x.argv[2] == NULL,
		    "--interp runs PROG FILE");
	sbx_exec_free(&x);
	{
		char *empty[] = { "", NULL };

		is_int(sbx_exec_build(
			   &x, &p, "/w", "/tmp", empty, NULL, NULL, &caller, NULL, NULL, &err),
		    -1, "an empty COMMAND is refused");
		is_str(err.msg, "empty command", "... message");
	}
	sbx_strv_free(&extra);
	sbx_policy_free(&p);

	{
		static const struct {
			const char *interp, *name;
		} names[] = {
			{ "python3", "main.py" },
			{ "/usr/bin/python3.11", "main.py" },
			{ "pypy3", "main.py" },
			{ "node", "main.js" },
			{ "nodejs", "main.js" },
			{ "deno", "main.js" },
			{ "sh", "main.sh" },
			{ "/bin/bash", "main.sh" },
			{ "dash", "main.sh" },
			{ "ruby", "main" },
			{ "perl", "main" },
		};

		for (size_t i = 0; i < SBX_ARRAY_LEN(names); i++) {
			char *n = sbx_exec_script_name(names[i].interp);

			is_str(n, names[i].name, "--interp %s: default script name %s",
			    names[i].interp, names[i].name);
			free(n);
		}
	}
}

/* sbx_cli_parse() must start afresh each time: a failure in the middle of
 * "-Zv" leaves glibc's getopt inside that word, and "optind = 1" does not
 * reset it ("optind = 0" does). Run last: it leaves getopt's state dirty. */
static void
test_parse_again(void)
{
	struct sbx_cli cli;
	struct sbx_err err = { 0 };
	struct args a;

	args_set(&a, ARGS("-Zv"));
	is_int(sbx_cli_parse(&cli, a.n, a.v, &err), -1, "'-Zv' is refused");
	sbx_cli_free(&cli);
	a.n = 0;
	a.v[a.n++] = (char *)"sbxrun";
	a.v[a.n++] = (char *)"--fs";
	a.v[a.n++] = (char *)"open";
	a.v[a.n] = NULL;
	is_int(sbx_cli_parse(&cli, a.n, a.v, &err), 0, "a parse after a failed one");
	ok(cli.nsettings == 1 && cli.verbose == 0,
	    "a parse after a failed '-Zv' sees only its own argv (got %zu settings, verbose %d)",
	    cli.nsettings, cli.verbose);
	sbx_cli_free(&cli);
}

/* The lists every policy is made of grow by doubling (util.c): every entry
 * stays, in order and NULL-terminated, across the growth steps and after
 * the list is cut short and grown again. Under --enable-sanitizers a write
 * past the array aborts here. */
static void
test_strv_growth(void)
{
	struct sbx_strv sv = { 0 };
	char name[16];
	bool same = true;

	for (size_t i = 0; i < 1000; i++) {
		snprintf(name, sizeof(name), "e%zu", i);
		sbx_strv_push(&sv, name);
		same = same && sv.v[sv.n] == NULL;
	}
	for (size_t i = 0; i < sv.n; i++) {
		snprintf(name, sizeof(name), "e%zu", i);
		same = same && strcmp(sv.v[i], name) == 0;
	}
	ok(sv.n == 1000 && same, "1000 pushes: every entry kept, in order, NULL after the last");
	while (sv.n > 5)
		free(sv.v[--sv.n]);
	sv.v[sv.n] = NULL;
	for (size_t i = 0; i < 100; i++)
		sbx_strv_push(&sv, "again");
	ok(sv.n == 105 && strcmp(sv.v[4], "e4") == 0 && strcmp(sv.v[104], "again") == 0 &&
		sv.v[105] == NULL,
	    "a list cut short grows again");
	sbx_strv_free(&sv);
	ok(sv.v == NULL && sv.n == 0, "a freed list is empty");
	sbx_strv_push(&sv, "one");
	ok(sv.n == 1 && strcmp(sv.v[0], "one") == 0 && sv.v[1] == NULL, "and takes entries again");
	sbx_strv_free(&sv);
}

int
main(void)
{
	test_scalars_override();
	test_lists_extend();
	test_mount_flag();
	test_mount_override();
	test_env_flag();
	test_bad_flags();
	test_parse_misc();
	test_round_trips();
	test_adversarial_round_trips();
	test_origins();
	test_suggest();
	test_check();
	test_rules();
	test_exec();
	test_parse_again();
	test_strv_growth();
	return done_testing();
}
