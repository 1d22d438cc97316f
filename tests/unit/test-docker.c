/* The docker backend's command lines against the checked-in texts in
 * $GOLDEN/docker/NAME.argv: each is the spec of what one kind of run asks
 * the engine for. After a deliberate change, regenerate them with
 *
 *	SBX_UPDATE_GOLDEN=1 make check TESTS=tests/unit/test-docker
 *
 * and read the diff. Also: the hardening every run carries, whatever the
 * policy; what the --mount syntax cannot be tricked into; the environment
 * (built, never the caller's; passed values by name only); and the parser
 * of "docker inspect". */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "docker-argv.h"
#include "policy.h"
#include "profile.h"
#include "tap.h"
#include "golden.h"

#define HOME "/home/alice"
#define WORKDIR HOME "/proj"

static char *sh_argv[] = { "/bin/sh", "-s", NULL };
static char *base_env[] = { "PATH=/usr/local/bin:/usr/bin:/bin", "HOME=" WORKDIR, "TMPDIR=/tmp",
	"LANG=C.UTF-8", "USER=alice", "LOGNAME=alice", "PWD=" WORKDIR, "SHELL=/bin/sh", NULL };
static char *caller_env[] = { "TOKEN=s3cret", "PATH=/usr/bin:/bin", "HOME=" HOME,
	"AWS_SECRET_ACCESS_KEY=caller-only", "TERM=xterm", NULL };

static void
policy_from(struct sbx_policy *p, const char *profile)
{
	struct sbx_err err = { 0 };

	sbx_policy_init(p, HOME);
	/* The default memory is half the machine's: fixed here, so that the
	 * golden lines do not depend on the machine. */
	p->limits[SBX_LIMIT_MEMORY].value = UINT64_C(4) << 30;
	if (profile && sbx_profile_load_string(p, "test.ini", profile, &err) < 0) {
		printf("Bail out! profile: %s\n", err.msg);
		exit(1);
	}
}

static struct sbx_docker_run
default_run(void)
{
	return (struct sbx_docker_run){
		.name = "sbxrun-1-0123456789abcdef",
		.workdir = WORKDIR,
		.uid = 1000,
		.gid = 1000,
		.envp = base_env,
		.caller_env = caller_env,
		.argv = sh_argv,
	};
}

/* Builds, renders and compares one run; returns the argv for more checks
 * (the caller frees it). */
static struct sbx_strv
golden(const char *name, const char *profile, const struct sbx_docker_run *run)
{
	struct sbx_policy p;
	struct sbx_strv argv = { 0 };
	struct sbx_buf text = { 0 };
	struct sbx_err err = { 0 };

	policy_from(&p, profile);
	if (!ok(sbx_docker_argv(&p, run, &argv, &err) == 0, "%s: built", name))
		diag("%s", err.msg);
	sbx_docker_render(argv.v, &text);
	golden_check("docker", name, "argv", text.data ? text.data : "");
	sbx_buf_free(&text);
	sbx_policy_free(&p);
	return argv;
}

static bool
has(const struct sbx_strv *v, const char *s)
{
	return sbx_strv_contains(v, s);
}

static size_t
index_of(const struct sbx_strv *v, const char *s)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->v[i], s) == 0)
			return i;
	return (size_t)-1;
}

/* What every run carries, whatever the policy asks. */
static void
check_hardening(const char *name, const struct sbx_strv *v)
{
	static const char *const always[] = { "run", "-i", "--label=sbxrun", "--log-driver=none",
		"--init", "--cap-drop=ALL", "--security-opt=no-new-privileges", "--read-only",
		"--mount=type=bind,source=" WORKDIR ",target=/work", "--workdir=/work",
		"--env=HOME=/work", "--env=PWD=/work" };
	size_t image = (size_t)-1;
	bool user_ok = false;

	for (size_t i = 0; i < SBX_ARRAY_LEN(always); i++)
		if (!ok(has(v, always[i]), "%s: has %s", name, always[i]))
			return;
	for (size_t i = 0; i < v->n; i++) {
		if (sbx_str_has_prefix(v->v[i], "--user="))
			user_ok = strcmp(v->v[i], "--user=0:0") != 0 &&
			    !sbx_str_has_prefix(v->v[i], "--user=0:");
		if (image == (size_t)-1 && i >= 2 && v->v[i][0] != '-')
			image = i;
	}
	ok(user_ok, "%s: a non-root --user", name);
	ok(image != (size_t)-1 && index_of(v, "--entrypoint=/bin/sh") < image,
	    "%s: the entrypoint is replaced, before the image", name);
	/* The caller's own environment never reaches the container. */
	for (size_t i = 0; i < v->n; i++)
		if (strstr(v->v[i], "caller-only") || strstr(v->v[i], "AWS_SECRET") ||
		    strstr(v->v[i], "TERM")) {
			ok(0, "%s: the caller's environment leaked: %s", name, v->v[i]);
			return;
		}
	ok(1, "%s: nothing of the caller's environment", name);
}

static void
test_runs(void)
{
	struct sbx_docker_run run = default_run();
	struct sbx_strv v;

	v = golden("default", NULL, &run);
	check_hardening("default", &v);
	ok(has(&v, "--network=none"), "default: network none");
	ok(has(&v, "local/sbx-base") == false && has(&v, SBX_DOCKER_DEFAULT_IMAGE),
	    "default: the default image");
	ok(v.n >= 2 && strcmp(v.v[v.n - 1], "-s") == 0, "default: sh -s reads stdin");
	sbx_strv_free(&v);

	v = golden("limits",
	    "[sandbox]\nmemory = 512M\npids = 256\ncpu = 90s\nfile_size = 1G\nopen_files = 1024\n"
	    "docker_image = local/sbx-base\n",
	    &run);
	check_hardening("limits", &v);
	ok(has(&v, "--memory=536870912") && has(&v, "--memory-swap=536870912"),
	    "limits: swap equals memory");
	ok(has(&v, "--pids-limit=256"), "limits: pids by the container's cgroup");
	sbx_strv_free(&v);

	v = golden("listen", "[ports]\nlisten = 8080, 8081\n", &run);
	check_hardening("listen", &v);
	ok(has(&v, "--network=bridge") && has(&v, "--publish=127.0.0.1:8080:8080/tcp") &&
		has(&v, "--publish=127.0.0.1:8081:8081/tcp"),
	    "listen: published on the host's loopback only");
	sbx_strv_free(&v);

	v = golden("network-on", "[sandbox]\nnetwork = on\n", &run);
	check_hardening("network-on", &v);
	ok(has(&v, "--network=bridge"), "network-on: bridge");
	sbx_strv_free(&v);

	{
		static const struct sbx_docker_bind binds[] = {
			{ "/srv/data", "/work/data", true },
			{ "/srv/out", "/work/out", false },
			{ WORKDIR "/.git", "/work/.git", true },
			{ "/dev/null", "/work/.netrc", true },
			{ NULL, "/work/.ssh", true },
		};

		run.binds = binds;
		run.nbinds = SBX_ARRAY_LEN(binds);
		v = golden("binds", NULL, &run);
		check_hardening("binds", &v);
		ok(has(&v, "--mount=type=tmpfs,target=/work/.ssh,readonly"),
		    "binds: a hidden directory is covered");
		sbx_strv_free(&v);
		run = default_run();
	}

	{
		static char *env[] = { "PATH=/bin", "HOME=" WORKDIR, "PWD=" WORKDIR, "TOKEN=s3cret",
			"TERM=vt100", "QUOTED=it's \"x\"\nline two", NULL };

		struct sbx_strv cenv = { 0 };

		run.envp = env;
		run.client_env = &cenv;
		v = golden("env", "[env]\npass = TOKEN\npass = TERM\n", &run);
		ok(has(&v, "--env=TOKEN"), "env: a passed value goes by name only");
		ok(!has(&v, "--env=TOKEN=s3cret") && !has(&cenv, "TOKEN=s3cret"),
		    "env: ... never on the command line, and the caller's value is the client's");
		ok(has(&v, "--env=TERM") && has(&cenv, "TERM=vt100"),
		    "env: a passed name whose value was replaced: by name, its value in the "
		    "client's environment");
		ok(has(&v, "--env=QUOTED") && has(&cenv, "QUOTED=it's \"x\"\nline two"),
		    "env: any value, unchanged, in the client's environment");
		for (size_t i = 0; i < v.n; i++)
			if (strstr(v.v[i], "vt100") || strstr(v.v[i], "line two"))
				ok(0, "env: a value on the command line: %s", v.v[i]);
		ok(has(&v, "--env=PATH=/bin") && has(&v, "--env=HOME=/work") &&
			!has(&cenv, "PATH=/bin") && !sbx_str_has_prefix(cenv.v[0], "HOME="),
		    "env: PATH and HOME, which the client reads itself, stay on the command line");
		ok(sbx_docker_client_reads("DOCKER_HOST") &&
			sbx_docker_client_reads("LD_PRELOAD") &&
			sbx_docker_client_reads("https_proxy") &&
			!sbx_docker_client_reads("TOKEN") && !sbx_docker_client_reads("LANG"),
		    "env: the names the client reads itself");
		sbx_strv_free(&v);
		sbx_strv_free(&cenv);
		run = default_run();
	}

	{
		static char *interp[] = { "python3", WORKDIR "/.sbxrun/main.py", NULL };

		run.argv = interp;
		v = golden("interp", NULL, &run);
		ok(has(&v, "--entrypoint=python3") && v.n > 0 &&
			strcmp(v.v[v.n - 1], "/work/.sbxrun/main.py") == 0,
		    "interp: the script file as the container sees it");
		sbx_strv_free(&v);
		run = default_run();
	}

	{
		static char *cmd[] = { "-weird", "a b", "$(id)", NULL };

		run.argv = cmd;
		run.uid = run.gid = 65534;
		v = golden("command", "[sandbox]\ndocker_image = local/sbx-base\n", &run);
		ok(has(&v, "--entrypoint=-weird") && has(&v, "--user=65534:65534"),
		    "command: an entrypoint starting with '-' stays a value");
		sbx_strv_free(&v);
		run = default_run();
	}
}

/* A path may hold anything; --mount must still get exactly its fields. */
static void
test_mount_syntax(void)
{
	struct sbx_docker_run run = default_run();
	struct sbx_docker_bind bind = { "/srv/a,readonly=false,source=/etc", "/work/x\"y", true };
	struct sbx_strv v = { 0 };
	struct sbx_policy p;
	struct sbx_err err = { 0 };

	run.workdir = "/home/al,ice/pr\"oj";
	run.binds = &bind;
	run.nbinds = 1;
	policy_from(&p, NULL);
	ok(sbx_docker_argv(&p, &run, &v, &err) == 0, "odd paths: built");
	ok(has(&v, "--mount=type=bind,\"source=/home/al,ice/pr\"\"oj\",target=/work"),
	    "a comma or a quote in the workdir is quoted CSV");
	ok(has(&v,
	       "--mount=type=bind,\"source=/srv/a,readonly=false,source=/etc\",\"target=/work/"
	       "x\"\"y\",readonly"),
	    "a path cannot add fields of its own");
	sbx_strv_free(&v);

	bind.source = "relative";
	ok(sbx_docker_argv(&p, &run, &v, &err) < 0, "a relative mount source is refused");
	sbx_strv_free(&v);
	/* The client's CSV reader turns "\r\n" into "\n" inside quotes. */
	bind.source = "/srv/key\r\nfile";
	ok(sbx_docker_argv(&p, &run, &v, &err) < 0 && strstr(err.msg, "/srv/key\\x0d\\x0afile"),
	    "a control character in a mount source is refused, the path named");
	sbx_strv_free(&v);
	bind.source = "/srv/a";
	bind.target = "/work/key\r\nfile";
	ok(sbx_docker_argv(&p, &run, &v, &err) < 0, "... in a mount target too");
	sbx_strv_free(&v);
	bind.target = "/work/x";
	run.workdir = "/home/proj\r\nx";
	ok(sbx_docker_argv(&p, &run, &v, &err) < 0, "... and in the workdir");
	sbx_strv_free(&v);
	run.workdir = "/home/proj\tx";
	ok(sbx_docker_argv(&p, &run, &v, &err) < 0, "... any control character (a tab)");
	sbx_strv_free(&v);
	run.workdir = "/home/proj";
	run.nbinds = 0;
	run.argv = (char *[]){ NULL };
	ok(sbx_docker_argv(&p, &run, &v, &err) < 0, "an empty command is refused");
	sbx_strv_free(&v);
	sbx_policy_free(&p);
}

static void
test_inspect(void)
{
	bool running, oom, started;
	int code;

	ok(sbx_docker_parse_inspect(
	       "false true 137 2026-12-01T21:18:18.5Z\n", &running, &oom, &code, &started) == 0 &&
		!running && oom && code == 137 && started,
	    "inspect: an OOM-killed container");
	ok(sbx_docker_parse_inspect(
	       "true false 0 2026-12-01T21:18:18Z", &running, &oom, &code, &started) == 0 &&
		running && !oom && code == 0 && started,
	    "inspect: a running one");
	ok(sbx_docker_parse_inspect(
	       "false false 128 0001-01-01T00:00:00Z", &running, &oom, &code, &started) == 0 &&
		!started,
	    "inspect: created, never started");
	ok(sbx_docker_parse_inspect("", &running, &oom, &code, &started) < 0,
	    "inspect: empty output refused");
	ok(sbx_docker_parse_inspect("yes no 1 x", &running, &oom, &code, &started) < 0,
	    "inspect: not booleans refused");
	ok(sbx_docker_parse_inspect("false false 12x 2026", &running, &oom, &code, &started) < 0,
	    "inspect: a bad code refused");
}

/* A kept container (--docker-keep): the same options as a run's own,
 * its labels, and each run an exec wrapped into a process group of its
 * own. */
static void
test_keep(void)
{
	struct sbx_docker_run run = default_run();
	struct sbx_policy p;
	struct sbx_strv create = { 0 }, exec = { 0 }, plain = { 0 };
	struct sbx_buf text = { 0 };
	struct sbx_err err = { 0 };
	char *spec = NULL, *spec2 = NULL;
	bool same = true;
	size_t i, j;

	run.name = "dev";
	policy_from(&p,
	    "[sandbox]\ndocker_keep = dev\nmemory = 512M\npids = 256\n"
	    "docker_image = local/sbx-base\n");
	is_str(p.docker_keep, "dev", "keep: docker_keep from a profile");
	ok(sbx_docker_keep_argv(&p, &run, &create, &spec, &err) == 0, "keep: create built");
	sbx_docker_render(create.v, &text);
	golden_check("docker", "keep-create", "argv", text.data);
	sbx_buf_free(&text);
	ok(has(&create, "--detach") && !has(&create, "-i") && !has(&create, "--label=sbxrun"),
	    "keep: detached, not labelled as a run's container");
	ok(has(&create, "--label=sbxrun.keep=dev") &&
		has(&create, "--label=sbxrun.keep.workdir=" WORKDIR) &&
		has(&create, "--label=sbxrun.keep.image=local/sbx-base"),
	    "keep: labelled with its name, workdir and image");
	ok(create.n >= 2 && strcmp(create.v[create.n - 1], "infinity") == 0 &&
		has(&create, "--entrypoint=sleep"),
	    "keep: it only sleeps");
	/* Every option of a run's own container is there too. */
	ok(sbx_docker_argv(&p, &run, &plain, &err) == 0, "keep: a run's argv built");
	for (i = 4; i < plain.n && plain.v[i][0] == '-'; i++)
		if (!sbx_str_has_prefix(plain.v[i], "--env") &&
		    !sbx_str_has_prefix(plain.v[i], "--entrypoint") &&
		    !sbx_str_has_prefix(plain.v[i], "--label") && !has(&create, plain.v[i])) {
			diag("missing: %s", plain.v[i]);
			same = false;
		}
	ok(same, "keep: the same hardening, limits and mounts as a run's container");
	for (j = 0; j < create.n; j++)
		if (sbx_str_has_prefix(create.v[j], "--env"))
			same = false;
	ok(same, "keep: no environment at creation");
	sbx_strv_free(&plain);

	ok(sbx_docker_exec_argv(&p, &run, "/tmp/.sbxrun-run-X", &exec, &err) == 0,
	    "keep: exec built");
	sbx_docker_render(exec.v, &text);
	golden_check("docker", "keep-exec", "argv", text.data);
	sbx_buf_free(&text);
	i = index_of(&exec, "dev");
	ok(i != (size_t)-1 && i + 3 < exec.n && strcmp(exec.v[i + 1], SBX_DOCKER_INIT) == 0 &&
		strcmp(exec.v[i - 1], "--") == 0,
	    "keep: the run goes through the engine's init, the name after --");
	ok(has(&exec, "--user=1000:1000") && has(&exec, "--workdir=/work") &&
		has(&exec, "--env=HOME=/work") && has(&exec, "/tmp/.sbxrun-run-X"),
	    "keep: the run's ids, /work, its environment, its group file");
	ok(sbx_docker_exec_argv(&p, &run, "rel", &exec, &err) < 0,
	    "keep: a relative group file is refused");
	sbx_strv_free(&exec);
	sbx_strv_free(&create);

	/* The fingerprint follows the options. */
	p.limits[SBX_LIMIT_PIDS].value = 257;
	ok(sbx_docker_keep_argv(&p, &run, &create, &spec2, &err) == 0 && strcmp(spec, spec2) != 0,
	    "keep: another limit, another fingerprint");
	sbx_strv_free(&create);
	free(spec2);
	p.limits[SBX_LIMIT_PIDS].value = 256;
	ok(sbx_docker_keep_argv(&p, &run, &create, &spec2, &err) == 0 && strcmp(spec, spec2) == 0,
	    "keep: the same options, the same fingerprint");
	sbx_strv_free(&create);
	free(spec2);
	free(spec);
	sbx_policy_free(&p);

	sbx_docker_kill_argv(NULL, "dev", 1000, 1000, "/tmp/.sbxrun-run-X", &exec);
	ok(exec.n == 9 && strcmp(exec.v[1], "exec") == 0 && strcmp(exec.v[4], "dev") == 0 &&
		strcmp(exec.v[8], "/tmp/.sbxrun-run-X") == 0 && strstr(exec.v[7], "0|1)") &&
		strstr(exec.v[7], "kill -KILL -"),
	    "keep: the kill ends one group, never 0 or 1");
	sbx_strv_free(&exec);
}

static void
test_keep_parse(void)
{
	struct sbx_docker_kept k;
	struct sbx_err err = { 0 };

	ok(sbx_docker_parse_keep("true false\ndev\n/home/a b\nlocal/x\n0123\n", &k) == 0 &&
		k.running && !k.oom_killed && strcmp(k.keep, "dev") == 0 &&
		strcmp(k.workdir, "/home/a b") == 0 && strcmp(k.image, "local/x") == 0 &&
		strcmp(k.spec, "0123") == 0,
	    "keep inspect: all fields");
	sbx_docker_kept_free(&k);
	ok(sbx_docker_parse_keep("false true\n\n\n\n\n", &k) == 0 && !k.running && k.oom_killed &&
		k.keep[0] == '\0',
	    "keep inspect: a container without our labels");
	sbx_docker_kept_free(&k);
	ok(sbx_docker_parse_keep("true false\ndev\n", &k) < 0, "keep inspect: short refused");
	ok(sbx_docker_parse_keep("maybe false\na\nb\nc\nd\n", &k) < 0,
	    "keep inspect: not a boolean refused");
	ok(sbx_docker_name_check("dev-1.x_y", &err) == 0, "name: the engine's characters");
	ok(sbx_docker_name_check("-x", &err) < 0, "name: a leading '-' refused");
	ok(sbx_docker_name_check("a/b", &err) < 0, "name: a '/' refused");
	ok(sbx_docker_name_check("a", &err) < 0, "name: one character refused");
	ok(sbx_docker_name_check("a b", &err) < 0, "name: a space refused");
}

static void
test_helpers(void)
{
	struct sbx_strv v = { 0 };

	sbx_docker_rm_argv(NULL, "-n", &v);
	ok(v.n == 6 && strcmp(v.v[4], "--") == 0 && strcmp(v.v[5], "-n") == 0,
	    "rm: the name after --");
	ok(has(&v, "--volumes"), "rm: the container's anonymous volumes go with it");
	sbx_strv_free(&v);
	sbx_docker_info_argv("podman", &v);
	ok(v.n == 3 && strcmp(v.v[0], "podman") == 0 && strcmp(v.v[1], "info") == 0,
	    "info: asks the daemon");
	sbx_strv_free(&v);
}

int
main(void)
{
	golden_init();

	test_runs();
	test_mount_syntax();
	test_inspect();
	test_keep();
	test_keep_parse();
	test_helpers();
	return done_testing();
}
