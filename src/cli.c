#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <string.h>

#include "cli.h"
#include "docker-argv.h"

static const char usage[] =
    "Usage: sbxrun [OPTION]... [--] [COMMAND [ARG]...]\n"
    "Run a script (read from standard input) or COMMAND in a kernel-enforced jail.\n"
    "\n"
    "Policy:\n"
    "  -p, --profile NAME|FILE      load a profile (repeatable, applied in order)\n"
    "      --backend B              auto, namespaces, landlock, seatbelt, docker, none\n"
    "      --docker-image IMG       image for the docker backend\n"
    "                               (default debian:stable-slim)\n"
    "      --docker-keep NAME       run in the long-lived container NAME (made on\n"
    "                               first use, kept after): state persists\n"
    "      --fs MODE                strict, allowlist or open\n"
    "  -r, --allow-read PATH        add a readable path (allowlist mode)\n"
    "      --deny-read PATH         add a never-readable path\n"
    "      --protect PATH           keep PATH (relative to the workdir) read-only\n"
    "      --no-protect-defaults    drop the built-in protect list (.envrc, .vscode/,\n"
    "                               shell rc files in a home, ...; sbxrun.profile(5))\n"
    "  -m, --mount SRC:TARGET[:ro|:rw]\n"
    "                               mount SRC at WORKDIR/TARGET (read-only by default)\n"
    "  -w, --workdir DIR            the workdir (default: a fresh temporary directory)\n"
    "      --keep                   keep the temporary workdir\n"
    "      --network on|off         outbound network\n"
    "      --listen P[,P..]         ports a server inside may bind (repeatable)\n"
    "      --connect P[,P..]        remote TCP ports that may be reached (repeatable)\n"
    "      --loopback P[,P..]       host loopback TCP ports given back (repeatable)\n"
    "      --allow-host HOST[:PORT] a host the built-in proxy (HTTP and SOCKS5) lets\n"
    "                               through: exact or *.suffix, on PORT, or on 80\n"
    "                               and 443 when no port is given (repeatable)\n"
    "      --deny-host HOST[:PORT]  refused by the proxy even when allowed; without\n"
    "                               a port, on every port (repeatable)\n"
    "      --allow-method M[,M..]   plain-HTTP methods the proxy passes (default:\n"
    "                               all; CONNECT and SOCKS5 follow the host rules)\n"
    "  -e, --env NAME=VALUE         set a variable in the sandbox\n"
    "      --pass-env NAME          copy a variable from the caller, if set\n"
    "  -t, --timeout DUR            kill the whole tree after DUR (exit 124)\n"
    "      --memory SIZE            memory limit (default: half the machine's)\n"
    "      --pids N                 process limit (default 1024)\n"
    "      --cpu DUR                CPU time limit\n"
    "      --file-size SIZE         largest file that may be written\n"
    "      --open-files N           open file descriptor limit\n"
    "      --allow-degraded         run even if some requested rule is not enforceable\n"
    "\n"
    "Running:\n"
    "      --interp PROG            store the script as a file and run PROG FILE\n"
    "      --script-name NAME       name of that file (default main.py, main.js,\n"
    "                               main.sh or main)\n"
    "      --trace FILE             a JSON Lines trace of what the run touched: files,\n"
    "                               programs, connections, name lookups, refusals\n"
    "      --trace-all              keep the noise too (reads of the system's trees)\n"
    "      --diag DEST              diagnostics line to stderr, fd:N, PATH or none\n"
    "\n"
    "Inspection:\n"
    "      --print-policy           print the merged policy as a profile, each value\n"
    "                               with where it came from, and exit\n"
    "      --print-backend          print what the backend would build and exit\n"
    "      --probe                  print this machine's isolation capabilities and exit\n"
    "      --list-profiles          list the profiles -p NAME finds (name, file,\n"
    "                               first comment line) and exit\n"
    "      --docker-rm NAME         remove the kept container NAME and exit\n"
    "      --selftest               try known escapes against this machine's jail\n"
    "                               (default policy, network on; takes --backend\n"
    "                               and --allow-degraded); exit 0 if all stopped\n"
    "  -v, --verbose                say what is being built, and each refusal as it\n"
    "                               happens\n"
    "  -q, --quiet                  print no messages of sbxrun's own (the diagnostics\n"
    "                               line still goes to --diag)\n"
    "  -h, --help                   print this help and exit\n"
    "  -V, --version                print the version and what was built in, and exit\n"
    "\n"
    "Durations take ms, s, m or h; sizes K, M, G or T. Exit status: the child's, 128+N\n"
    "when killed by signal N, 124 on timeout, 125 when sbxrun failed before running\n"
    "anything, 126/127 when COMMAND cannot be run. See sbxrun(1), sbxrun.profile(5).\n";

const char *
sbx_cli_usage(void)
{
	return usage;
}

enum {
	OPT_BACKEND = 256,
	OPT_DOCKER_IMAGE,
	OPT_DOCKER_KEEP,
	OPT_DOCKER_RM,
	OPT_FS,
	OPT_DENY_READ,
	OPT_PROTECT,
	OPT_NO_PROTECT_DEFAULTS,
	OPT_KEEP,
	OPT_NETWORK,
	OPT_LISTEN,
	OPT_CONNECT,
	OPT_LOOPBACK,
	OPT_ALLOW_HOST,
	OPT_DENY_HOST,
	OPT_ALLOW_METHOD,
	OPT_PASS_ENV,
	OPT_MEMORY,
	OPT_PIDS,
	OPT_CPU,
	OPT_FILE_SIZE,
	OPT_OPEN_FILES,
	OPT_INTERP,
	OPT_SCRIPT_NAME,
	OPT_TRACE,
	OPT_TRACE_ALL,
	OPT_DIAG,
	OPT_ALLOW_DEGRADED,
	OPT_PRINT_POLICY,
	OPT_PRINT_BACKEND,
	OPT_PROBE,
	OPT_SELFTEST,
	OPT_LIST_PROFILES,
};

static const struct option long_options[] = {
	{ "profile", required_argument, NULL, 'p' },
	{ "backend", required_argument, NULL, OPT_BACKEND },
	{ "docker-image", required_argument, NULL, OPT_DOCKER_IMAGE },
	{ "docker-keep", required_argument, NULL, OPT_DOCKER_KEEP },
	{ "docker-rm", required_argument, NULL, OPT_DOCKER_RM },
	{ "fs", required_argument, NULL, OPT_FS },
	{ "allow-read", required_argument, NULL, 'r' },
	{ "deny-read", required_argument, NULL, OPT_DENY_READ },
	{ "protect", required_argument, NULL, OPT_PROTECT },
	{ "no-protect-defaults", no_argument, NULL, OPT_NO_PROTECT_DEFAULTS },
	{ "mount", required_argument, NULL, 'm' },
	{ "workdir", required_argument, NULL, 'w' },
	{ "keep", no_argument, NULL, OPT_KEEP },
	{ "network", required_argument, NULL, OPT_NETWORK },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "connect", required_argument, NULL, OPT_CONNECT },
	{ "loopback", required_argument, NULL, OPT_LOOPBACK },
	{ "allow-host", required_argument, NULL, OPT_ALLOW_HOST },
	{ "deny-host", required_argument, NULL, OPT_DENY_HOST },
	{ "allow-method", required_argument, NULL, OPT_ALLOW_METHOD },
	{ "env", required_argument, NULL, 'e' },
	{ "pass-env", required_argument, NULL, OPT_PASS_ENV },
	{ "timeout", required_argument, NULL, 't' },
	{ "memory", required_argument, NULL, OPT_MEMORY },
	{ "pids", required_argument, NULL, OPT_PIDS },
	{ "cpu", required_argument, NULL, OPT_CPU },
	{ "file-size", required_argument, NULL, OPT_FILE_SIZE },
	{ "open-files", required_argument, NULL, OPT_OPEN_FILES },
	{ "interp", required_argument, NULL, OPT_INTERP },
	{ "script-name", required_argument, NULL, OPT_SCRIPT_NAME },
	{ "trace", required_argument, NULL, OPT_TRACE },
	{ "trace-all", no_argument, NULL, OPT_TRACE_ALL },
	{ "diag", required_argument, NULL, OPT_DIAG },
	{ "allow-degraded", no_argument, NULL, OPT_ALLOW_DEGRADED },
	{ "print-policy", no_argument, NULL, OPT_PRINT_POLICY },
	{ "print-backend", no_argument, NULL, OPT_PRINT_BACKEND },
	{ "probe", no_argument, NULL, OPT_PROBE },
	{ "list-profiles", no_argument, NULL, OPT_LIST_PROFILES },
	{ "selftest", no_argument, NULL, OPT_SELFTEST },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

/* Flags that stand for one profile key each. */
static const struct {
	int opt;
	const char *flag;
	const char *section;
	const char *key;
	const char *fixed; /* value for flags without an argument */
} key_flags[] = {
	{ OPT_BACKEND, "--backend", "sandbox", "backend", NULL },
	{ OPT_DOCKER_IMAGE, "--docker-image", "sandbox", "docker_image", NULL },
	{ OPT_DOCKER_KEEP, "--docker-keep", "sandbox", "docker_keep", NULL },
	{ OPT_FS, "--fs", "sandbox", "fs", NULL },
	{ 'r', "--allow-read", "read", "path", NULL },
	{ OPT_DENY_READ, "--deny-read", "deny", "path", NULL },
	{ OPT_PROTECT, "--protect", "protect", "path", NULL },
	{ OPT_NO_PROTECT_DEFAULTS, "--no-protect-defaults", "sandbox", "protect_defaults", "no" },
	{ 'w', "--workdir", "sandbox", "workdir", NULL },
	{ OPT_KEEP, "--keep", "sandbox", "keep", "yes" },
	{ OPT_NETWORK, "--network", "sandbox", "network", NULL },
	{ OPT_LISTEN, "--listen", "ports", "listen", NULL },
	{ OPT_CONNECT, "--connect", "ports", "connect", NULL },
	{ OPT_LOOPBACK, "--loopback", "ports", "loopback", NULL },
	{ OPT_ALLOW_HOST, "--allow-host", "proxy", "allow", NULL },
	{ OPT_DENY_HOST, "--deny-host", "proxy", "deny", NULL },
	{ OPT_ALLOW_METHOD, "--allow-method", "proxy", "methods", NULL },
	{ OPT_PASS_ENV, "--pass-env", "env", "pass", NULL },
	{ 't', "--timeout", "sandbox", "timeout", NULL },
	{ OPT_MEMORY, "--memory", "sandbox", "memory", NULL },
	{ OPT_PIDS, "--pids", "sandbox", "pids", NULL },
	{ OPT_CPU, "--cpu", "sandbox", "cpu", NULL },
	{ OPT_FILE_SIZE, "--file-size", "sandbox", "file_size", NULL },
	{ OPT_OPEN_FILES, "--open-files", "sandbox", "open_files", NULL },
	{ OPT_TRACE, "--trace", "sandbox", "trace", NULL },
	{ OPT_TRACE_ALL, "--trace-all", "sandbox", "trace_all", "yes" },
	{ OPT_ALLOW_DEGRADED, "--allow-degraded", "sandbox", "allow_degraded", "yes" },
};

static void
add_setting(
    struct sbx_cli *cli, const char *flag, const char *section, const char *key, const char *value)
{
	cli->settings =
	    sbx_xreallocarray(cli->settings, cli->nsettings + 1, sizeof(*cli->settings));
	cli->settings[cli->nsettings++] = (struct sbx_setting){
		.flag = flag,
		.section = sbx_xstrdup(section),
		.key = sbx_xstrdup(key),
		.value = sbx_xstrdup(value),
	};
}

/* "-m SRC:TARGET[:ro|:rw]" becomes the profile line "TARGET = SRC[:mode]".
 * The target is taken after the last colon, so a source may hold colons. */
static int
add_mount_flag(struct sbx_cli *cli, const char *arg, struct sbx_err *err)
{
	_cleanup_free_ char *spec = sbx_xstrdup(arg);
	_cleanup_free_ char *value = NULL;
	const char *mode = NULL;
	char *colon;
	size_t len = strlen(spec);

	if (len > 3 && (sbx_str_has_suffix(spec, ":ro") || sbx_str_has_suffix(spec, ":rw"))) {
		mode = spec + len - 2;
		spec[len - 3] = '\0';
	}
	colon = strrchr(spec, ':');
	if (colon == NULL || colon == spec || colon[1] == '\0')
		return sbx_err_set(err, EINVAL, "--mount: want SRC:TARGET[:ro|:rw], not '%s'", arg);
	/* "src:data:rx": a mode that is not ro or rw, not a target "rx" of a
	 * source "src:data" (a target named like a mode is written "./rx"). */
	if (mode == NULL && strchr(spec, ':') != colon && strlen(colon + 1) <= 3 &&
	    strspn(colon + 1, "rwxo") == strlen(colon + 1))
		return sbx_err_set(err, EINVAL,
		    "--mount: bad mode '%s' in '%s' (want ro or rw: SRC:TARGET[:ro|:rw])",
		    colon + 1, arg);
	*colon = '\0';
	/* The mode is always spelled out, so that a source which itself ends
	 * in ":rw" or ":ro" is not read as one. */
	value = sbx_xasprintf("%s:%s", spec, mode ? mode : "ro");
	add_setting(cli, "--mount", "mounts", colon + 1, value);
	return 0;
}

static int
add_env_flag(struct sbx_cli *cli, const char *arg, struct sbx_err *err)
{
	_cleanup_free_ char *name = NULL;
	const char *eq = strchr(arg, '=');

	if (eq == NULL || eq == arg)
		return sbx_err_set(err, EINVAL, "--env: want NAME=VALUE, not '%s'", arg);
	name = sbx_xstrndup(arg, (size_t)(eq - arg));
	if (strcmp(name, "pass") == 0)
		return sbx_err_set(err, EINVAL,
		    "--env: 'pass' is reserved in profiles; use --pass-env NAME to copy a "
		    "variable");
	add_setting(cli, "--env", "env", name, eq + 1);
	return 0;
}

int
sbx_diag_dest_parse(const char *s, struct sbx_diag_dest *out, struct sbx_err *err)
{
	struct sbx_diag_dest d = { 0 };

	if (strcmp(s, "stderr") == 0) {
		d.kind = SBX_DIAG_STDERR;
	} else if (strcmp(s, "none") == 0) {
		d.kind = SBX_DIAG_NONE;
	} else if (sbx_str_has_prefix(s, "fd:")) {
		uint64_t fd;

		if (sbx_parse_count(s + 3, 1 << 20, &fd, NULL) < 0)
			return sbx_err_set(err, EINVAL, "--diag: bad descriptor in '%s'", s);
		d.kind = SBX_DIAG_FD;
		d.fd = (int)fd;
	} else if (*s == '\0') {
		return sbx_err_set(err, EINVAL, "--diag: empty destination");
	} else {
		d.kind = SBX_DIAG_PATH;
		d.path = sbx_xstrdup(s);
	}
	free(out->path);
	*out = d;
	return 0;
}

static int
check_script_name(const char *name, struct sbx_err *err)
{
	if (*name == '\0' || strchr(name, '/') != NULL || strcmp(name, ".") == 0 ||
	    strcmp(name, "..") == 0)
		return sbx_err_set(
		    err, EINVAL, "--script-name: '%s' must be a plain file name", name);
	return 0;
}

/* "--alow-read": unknown, did you mean --allow-read? "--allow": an
 * abbreviation of more than one option, which getopt_long refuses. */
static int
unknown_option(const char *arg, struct sbx_err *err)
{
	const char *names[SBX_ARRAY_LEN(long_options)];
	_cleanup_free_ char *word = NULL;
	struct sbx_buf which = { 0 };
	const char *hint;
	size_t n = 0, nprefix = 0;
	int r;

	if (!sbx_str_has_prefix(arg, "--"))
		return sbx_err_set(err, EINVAL, "unknown option '%s'", arg);
	word = sbx_xstrndup(arg + 2, strcspn(arg + 2, "="));
	for (size_t i = 0; long_options[i].name; i++) {
		names[n++] = long_options[i].name;
		if (*word && sbx_str_has_prefix(long_options[i].name, word))
			sbx_buf_printf(
			    &which, "%s--%s", nprefix++ ? ", " : "", long_options[i].name);
	}
	if (nprefix > 1)
		r = sbx_err_set(err, EINVAL, "option '--%s' is ambiguous: %s", word, which.data);
	else if ((hint = sbx_suggest(word, names, n)) != NULL)
		r = sbx_err_set(
		    err, EINVAL, "unknown option '--%s'; did you mean '--%s'?", word, hint);
	else
		r = sbx_err_set(err, EINVAL, "unknown option '%s'", arg);
	sbx_buf_free(&which);
	return r;
}

int
sbx_cli_parse(struct sbx_cli *cli, int argc, char **argv, struct sbx_err *err)
{
	int c;

	memset(cli, 0, sizeof(*cli));
	cli->diag.kind = SBX_DIAG_STDERR;
	opterr = 0;
	optind = 0; /* glibc: 0 also resets getopt's internal state */
	/* "+": stop at the first non-option, so COMMAND keeps its own flags. */
	while ((c = getopt_long(argc, argv, "+:p:r:m:w:e:t:vqhV", long_options, NULL)) != -1) {
		bool done = false;

		for (size_t i = 0; i < SBX_ARRAY_LEN(key_flags); i++) {
			if (key_flags[i].opt != c)
				continue;
			add_setting(cli, key_flags[i].flag, key_flags[i].section, key_flags[i].key,
			    key_flags[i].fixed ? key_flags[i].fixed : optarg);
			done = true;
		}
		if (done)
			continue;
		switch (c) {
		case 'p': sbx_strv_push(&cli->profiles, optarg); break;
		case 'm':
			if (add_mount_flag(cli, optarg, err) < 0)
				return -1;
			break;
		case 'e':
			if (add_env_flag(cli, optarg, err) < 0)
				return -1;
			break;
		case OPT_INTERP:
			if (*optarg == '\0')
				return sbx_err_set(err, EINVAL, "--interp: empty program");
			free(cli->interp);
			cli->interp = sbx_xstrdup(optarg);
			break;
		case OPT_SCRIPT_NAME:
			if (check_script_name(optarg, err) < 0)
				return -1;
			free(cli->script_name);
			cli->script_name = sbx_xstrdup(optarg);
			break;
		case OPT_DIAG:
			if (sbx_diag_dest_parse(optarg, &cli->diag, err) < 0)
				return -1;
			break;
		case OPT_PRINT_POLICY: cli->print_policy = true; break;
		case OPT_PRINT_BACKEND: cli->print_backend = true; break;
		case OPT_PROBE: cli->probe = true; break;
		case OPT_LIST_PROFILES: cli->list_profiles = true; break;
		case OPT_SELFTEST: cli->selftest = true; break;
		case OPT_DOCKER_RM:
			if (sbx_docker_name_check(optarg, err) < 0)
				return sbx_err_wrap(err, "--docker-rm");
			free(cli->docker_rm);
			cli->docker_rm = sbx_xstrdup(optarg);
			break;
		case 'v': cli->verbose++; break;
		case 'q': cli->quiet = true; break;
		case 'h': cli->help = true; break;
		case 'V': cli->version = true; break;
		case ':':
			return sbx_err_set(
			    err, EINVAL, "option '%s' needs an argument", argv[optind - 1]);
		default:
			/* glibc: a long option given "=VALUE" it takes none of. */
			if (optopt != 0 && sbx_str_has_prefix(argv[optind - 1], "--")) {
				_cleanup_free_ char *name =
				    sbx_xstrndup(argv[optind - 1], strcspn(argv[optind - 1], "="));

				return sbx_err_set(
				    err, EINVAL, "option '%s' takes no argument", name);
			}
			if (optopt >= 32 && optopt < 127)
				return sbx_err_set(err, EINVAL, "unknown option '-%c'", optopt);
			return unknown_option(argv[optind - 1], err);
		}
	}
	if (optind < argc)
		cli->command = argv + optind;
	if (cli->script_name && cli->interp == NULL)
		return sbx_err_set(err, EINVAL, "--script-name needs --interp");
	if (cli->interp && cli->command)
		return sbx_err_set(err, EINVAL,
		    "--interp runs the script from standard input; it cannot be used with a "
		    "COMMAND");
	return 0;
}

int
sbx_cli_apply(const struct sbx_cli *cli, struct sbx_policy *p, struct sbx_err *err)
{
	for (size_t i = 0; i < cli->nsettings; i++) {
		const struct sbx_setting *s = &cli->settings[i];

		if (sbx_policy_set_from(p, s->section, s->key, s->value, s->flag, err) < 0)
			return sbx_err_wrap(err, "%s", s->flag);
	}
	return 0;
}

void
sbx_cli_free(struct sbx_cli *cli)
{
	sbx_strv_free(&cli->profiles);
	for (size_t i = 0; i < cli->nsettings; i++) {
		free(cli->settings[i].section);
		free(cli->settings[i].key);
		free(cli->settings[i].value);
	}
	free(cli->settings);
	free(cli->interp);
	free(cli->script_name);
	free(cli->docker_rm);
	free(cli->diag.path);
	memset(cli, 0, sizeof(*cli));
}
