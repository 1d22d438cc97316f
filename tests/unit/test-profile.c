/* Profiles: every key of every section, every error with its exact
 * "FILE:LINE: message", lists, comments, BOM and line endings, profile
 * lookup, and the shipped profiles. */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "policy.h"
#include "profile.h"
#include "tap.h"

#define HOME "/home/u"

static char tmpdir[] = "/tmp/sbx-test-profile.XXXXXX";

/* Loads text into a fresh policy p; returns the loader's result. */
static int
load(struct sbx_policy *p, const char *text, struct sbx_err *err)
{
	memset(err, 0, sizeof(*err));
	sbx_policy_init(p, HOME);
	return sbx_profile_load_string(p, "t.ini", text, err);
}

/* The text must load without error. */
static bool
load_ok(struct sbx_policy *p, const char *text, const char *what)
{
	struct sbx_err err;

	if (!is_int(load(p, text, &err), 0, "%s: loads", what)) {
		diag("error: %s", err.msg);
		return false;
	}
	return true;
}

/* The text must fail with exactly the message want. */
static void
load_fails(const char *text, const char *want, const char *what)
{
	struct sbx_policy p;
	struct sbx_err err;

	is_int(load(&p, text, &err), -1, "%s: refused", what);
	is_str(err.msg, want, "%s: message", what);
	sbx_policy_free(&p);
}

static char *
write_file(const char *name, const void *data, size_t n)
{
	char *path = sbx_xasprintf("%s/%s", tmpdir, name);
	FILE *f = fopen(path, "we");

	if (f == NULL || fwrite(data, 1, n, f) != n || fclose(f) != 0) {
		diag("cannot write %s", path);
		exit(1);
	}
	return path;
}

/* The example profile of sbxrun.profile(5), comments included. */
static const char spec_example[] =
    "[sandbox]\n"
    "backend = auto          ; auto|namespaces|landlock|seatbelt|docker|none\n"
    "fs = strict             ; strict|allowlist|open\n"
    "network = off           ; off|on\n"
    "workdir = ~/proj        ; default: fresh private temp dir, removed after\n"
    "keep = no               ; keep the temp workdir\n"
    "allow_degraded = no     ; run even if some rule cannot be enforced\n"
    "timeout = 30s           ; s, m, h; 0 = none\n"
    "memory = 512M           ; K, M, G\n"
    "pids = 256\n"
    "cpu = 60s\n"
    "file_size = 1G\n"
    "open_files = 1024\n"
    "trace = run.trace.jsonl\n"
    "docker_image = debian:stable-slim\n"
    "\n"
    "[read]                  ; allowlist mode: extra readable paths\n"
    "path = /opt/datasets\n"
    "\n"
    "[deny]                  ; added to the built-in secret list\n"
    "path = ~/.config/gh\n"
    "\n"
    "[mounts]                ; TARGET = SOURCE[:ro|:rw], TARGET relative to workdir\n"
    "data = /srv/data:ro\n"
    "\n"
    "[ports]\n"
    "listen = 8080, 8081\n"
    "connect = 443\n"
    "loopback = 8899\n"
    "\n"
    "[proxy]                 ; built-in allowlist proxy (section 8)\n"
    "allow = api.example.com\n"
    "allow = *.example.org\n"
    "\n"
    "[protect]               ; read-only inside the workdir (besides .git/hooks, .git/config)\n"
    "path = .envrc\n"
    "\n"
    "[env]\n"
    "LANG = C.UTF-8          ; set\n"
    "pass = TERM             ; copy from the caller, if set\n";

static void
test_spec_example(void)
{
	struct sbx_policy p;

	if (!load_ok(&p, spec_example, "the example profile of sbxrun.profile(5)")) {
		sbx_policy_free(&p);
		return;
	}
	is_int(p.backend, SBX_BACKEND_AUTO, "backend = auto");
	is_int(p.fs, SBX_FS_STRICT, "fs = strict");
	ok(!p.network, "network = off");
	is_str(p.workdir, HOME "/proj", "workdir = ~/proj is expanded");
	ok(!p.keep, "keep = no");
	ok(!p.allow_degraded, "allow_degraded = no");
	is_u64(p.timeout_ms, 30000, "timeout = 30s");
	ok(p.limits[SBX_LIMIT_MEMORY].set, "memory is set");
	is_u64(p.limits[SBX_LIMIT_MEMORY].value, 536870912, "memory = 512M");
	is_u64(p.limits[SBX_LIMIT_PIDS].value, 256, "pids = 256");
	is_u64(p.limits[SBX_LIMIT_CPU].value, 60000, "cpu = 60s (ms)");
	is_u64(p.limits[SBX_LIMIT_FILE_SIZE].value, UINT64_C(1) << 30, "file_size = 1G");
	is_u64(p.limits[SBX_LIMIT_OPEN_FILES].value, 1024, "open_files = 1024");
	ok(p.limits[SBX_LIMIT_PIDS].set && p.limits[SBX_LIMIT_CPU].set &&
		p.limits[SBX_LIMIT_FILE_SIZE].set && p.limits[SBX_LIMIT_OPEN_FILES].set,
	    "every limit is marked set");
	is_str(p.trace, "run.trace.jsonl", "trace");
	is_str(p.docker_image, "debian:stable-slim", "docker_image");
	ok(p.read.n == 1 && strcmp(p.read.v[0], "/opt/datasets") == 0, "[read] path");
	ok(p.deny.n == 1 && strcmp(p.deny.v[0], HOME "/.config/gh") == 0,
	    "[deny] path, ~ expanded");
	if (is_u64(p.nmounts, 1, "[mounts] one mount")) {
		is_str(p.mounts[0].target, "data", "mount target");
		is_str(p.mounts[0].source, "/srv/data", "mount source without the mode");
		ok(!p.mounts[0].rw, "mount :ro is read-only");
	}
	ok(p.listen.n == 2 && p.listen.v[0] == 8080 && p.listen.v[1] == 8081,
	    "listen = 8080, 8081");
	ok(p.connect.n == 1 && p.connect.v[0] == 443, "connect = 443");
	ok(p.loopback.n == 1 && p.loopback.v[0] == 8899, "loopback = 8899");
	ok(p.proxy_allow.n == 2 && strcmp(p.proxy_allow.v[0], "api.example.com") == 0 &&
		strcmp(p.proxy_allow.v[1], "*.example.org") == 0,
	    "[proxy] allow, twice");
	ok(p.protect.n == 1 && strcmp(p.protect.v[0], ".envrc") == 0, "[protect] path");
	if (is_u64(p.nenv, 1, "[env] one variable set")) {
		is_str(p.env[0].name, "LANG", "env name");
		is_str(p.env[0].value, "C.UTF-8", "env value, inline comment stripped");
	}
	ok(p.env_pass.n == 1 && strcmp(p.env_pass.v[0], "TERM") == 0, "[env] pass = TERM");
	is_u64(p.warnings.n, 0, "no warnings");
	sbx_policy_free(&p);
}

static void
test_sandbox_values(void)
{
	static const struct {
		const char *value;
		enum sbx_backend_id id;
	} backends[] = {
		{ "auto", SBX_BACKEND_AUTO },
		{ "namespaces", SBX_BACKEND_NAMESPACES },
		{ "landlock", SBX_BACKEND_LANDLOCK },
		{ "seatbelt", SBX_BACKEND_SEATBELT },
		{ "docker", SBX_BACKEND_DOCKER },
		{ "none", SBX_BACKEND_NONE },
	};
	static const struct {
		const char *value;
		enum sbx_fs_mode m;
	} fss[] = {
		{ "strict", SBX_FS_STRICT },
		{ "allowlist", SBX_FS_ALLOWLIST },
		{ "open", SBX_FS_OPEN },
	};
	struct sbx_policy p;
	char *text;

	for (size_t i = 0; i < SBX_ARRAY_LEN(backends); i++) {
		text = sbx_xasprintf("[sandbox]\nbackend = %s\n", backends[i].value);
		if (load_ok(&p, text, "backend"))
			is_int(p.backend, backends[i].id, "backend = %s", backends[i].value);
		sbx_policy_free(&p);
		free(text);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(fss); i++) {
		text = sbx_xasprintf("[sandbox]\nfs = %s\n", fss[i].value);
		if (load_ok(&p, text, "fs"))
			is_int(p.fs, fss[i].m, "fs = %s", fss[i].value);
		is_u64(p.warnings.n, 0, "fs = %s: no warning", fss[i].value);
		sbx_policy_free(&p);
		free(text);
	}
	if (load_ok(
		&p, "[sandbox]\nnetwork = on\nkeep = yes\nallow_degraded = true\n", "booleans on"))
		ok(p.network && p.keep && p.allow_degraded,
		    "network = on, keep = yes, allow_degraded = true");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\nnetwork = off\nkeep = no\nallow_degraded = false\n",
		"booleans off"))
		ok(!p.network && !p.keep && !p.allow_degraded,
		    "network = off, keep = no, allow_degraded = false");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\ntimeout = 0\n", "timeout = 0"))
		is_u64(p.timeout_ms, 0, "timeout = 0 means none");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\nworkdir = /srv/w\ntrace = ~/t.jsonl\n", "absolute workdir"))
		ok(strcmp(p.workdir, "/srv/w") == 0 && strcmp(p.trace, HOME "/t.jsonl") == 0,
		    "workdir kept, trace ~ expanded");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\nworkdir = ~\n", "workdir = ~"))
		is_str(p.workdir, HOME, "workdir = ~ is the home");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\nmemory = 1g\nfile_size = 10K\ncpu = 2m\npids = 1073741824\n",
		"limit units"))
		ok(p.limits[SBX_LIMIT_MEMORY].value == UINT64_C(1) << 30 &&
			p.limits[SBX_LIMIT_FILE_SIZE].value == 10240 &&
			p.limits[SBX_LIMIT_CPU].value == 120000 &&
			p.limits[SBX_LIMIT_PIDS].value == UINT64_C(1) << 30,
		    "memory 1g, file_size 10K, cpu 2m, pids 2^30");
	ok(!p.limits[SBX_LIMIT_MEMORY].builtin && !p.limits[SBX_LIMIT_PIDS].builtin,
	    "a limit in a profile is asked for, not the default");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\nfs = open\n", "no limits"))
		ok(p.limits[SBX_LIMIT_MEMORY].builtin && p.limits[SBX_LIMIT_PIDS].builtin &&
			p.limits[SBX_LIMIT_PIDS].value == SBX_DEFAULT_PIDS &&
			!p.limits[SBX_LIMIT_CPU].set && !p.limits[SBX_LIMIT_FILE_SIZE].set &&
			!p.limits[SBX_LIMIT_OPEN_FILES].set && p.timeout_ms == 0 &&
			p.workdir == NULL && p.trace == NULL && p.docker_image == NULL,
		    "defaults: memory and pids built in, no other limit, no timeout, "
		    "no workdir, no trace, no image");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\ndocker_image = ghcr.io/o/img@sha256:abc\n", "docker image"))
		is_str(p.docker_image, "ghcr.io/o/img@sha256:abc", "docker image with a digest");
	sbx_policy_free(&p);
}

static void
test_sections(void)
{
	struct sbx_policy p;

	if (load_ok(&p, "[read]\npath = /a\npath = /b\npath = /a\npath = ~/c\n", "[read] list")) {
		ok(p.read.n == 3 && strcmp(p.read.v[0], "/a") == 0 &&
			strcmp(p.read.v[1], "/b") == 0 && strcmp(p.read.v[2], HOME "/c") == 0,
		    "[read] path repeats, in order, without duplicates");
	}
	sbx_policy_free(&p);
	if (load_ok(&p, "[deny]\npath = ~/.config/x\npath = /srv/secret\n", "[deny] list"))
		ok(p.deny.n == 2 && strcmp(p.deny.v[0], HOME "/.config/x") == 0 &&
			strcmp(p.deny.v[1], "/srv/secret") == 0,
		    "[deny] path repeats");
	sbx_policy_free(&p);
	if (load_ok(
		&p, "[protect]\npath = .envrc\npath = Makefile\npath = .envrc\n", "[protect] list"))
		ok(p.protect.n == 2 && strcmp(p.protect.v[1], "Makefile") == 0,
		    "[protect] path repeats without duplicates");
	sbx_policy_free(&p);
	if (load_ok(&p,
		"[mounts]\ndata = /srv/data\nout = ~/out:rw\nsub/dir = /srv/x:ro\n"
		"my data = /srv/y\n",
		"[mounts]")) {
		if (is_u64(p.nmounts, 4, "four mounts")) {
			ok(strcmp(p.mounts[0].target, "data") == 0 &&
				strcmp(p.mounts[0].source, "/srv/data") == 0 && !p.mounts[0].rw,
			    "mount without a mode is read-only");
			ok(strcmp(p.mounts[1].target, "out") == 0 &&
				strcmp(p.mounts[1].source, HOME "/out") == 0 && p.mounts[1].rw,
			    "mount :rw, source ~ expanded");
			ok(strcmp(p.mounts[2].target, "sub/dir") == 0 && !p.mounts[2].rw,
			    "mount target with a slash");
			ok(strcmp(p.mounts[3].target, "my data") == 0, "mount target with a space");
			ok(sbx_policy_find_mount(&p, "out") == &p.mounts[1] &&
				sbx_policy_find_mount(&p, "nope") == NULL,
			    "sbx_policy_find_mount");
		}
	}
	sbx_policy_free(&p);
	if (load_ok(&p,
		"[ports]\nlisten = 8080\nlisten = 8081, 8080\nconnect = 443\nconnect = 80\n"
		"loopback = 5432\nloopback = 6379\n",
		"[ports] lists")) {
		ok(p.listen.n == 2 && p.listen.v[0] == 8080 && p.listen.v[1] == 8081,
		    "listen repeats and merges");
		ok(p.connect.n == 2 && p.connect.v[0] == 80 && p.connect.v[1] == 443,
		    "connect repeats, sorted");
		ok(p.loopback.n == 2 && p.loopback.v[0] == 5432 && p.loopback.v[1] == 6379,
		    "loopback repeats");
	}
	sbx_policy_free(&p);
	if (load_ok(&p, "[proxy]\nallow = A.example.com\nallow = a.example.com\nallow = *.b.org\n",
		"[proxy] list"))
		ok(p.proxy_allow.n == 2 && strcmp(p.proxy_allow.v[0], "a.example.com") == 0 &&
			strcmp(p.proxy_allow.v[1], "*.b.org") == 0,
		    "allow repeats, lower-cased, without duplicates");
	sbx_policy_free(&p);
	if (load_ok(&p,
		"[env]\nLANG = C.UTF-8\nEMPTY =\n_X1 = a = b ; c\npass = TERM\npass = HOME\n"
		"pass = TERM\n",
		"[env]")) {
		if (is_u64(p.nenv, 3, "three variables set")) {
			ok(strcmp(p.env[1].name, "EMPTY") == 0 && strcmp(p.env[1].value, "") == 0,
			    "a variable may be set to the empty string");
			is_str(p.env[2].value, "a = b",
			    "a value may hold '='; the inline comment goes");
		}
		ok(p.env_pass.n == 2 && strcmp(p.env_pass.v[0], "TERM") == 0 &&
			strcmp(p.env_pass.v[1], "HOME") == 0,
		    "pass repeats, without duplicates");
	}
	sbx_policy_free(&p);
	/* A section may be opened again; lists keep growing. */
	if (load_ok(&p, "[read]\npath = /a\n[sandbox]\nfs = allowlist\n[read]\npath = /b\n",
		"a section opened twice"))
		ok(p.read.n == 2 && p.fs == SBX_FS_ALLOWLIST, "both [read] parts apply");
	sbx_policy_free(&p);
	if (load_ok(&p, "", "an empty profile"))
		ok(p.backend == SBX_BACKEND_AUTO && p.fs == SBX_FS_STRICT && !p.network,
		    "an empty profile keeps the defaults (auto, strict, network off)");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\n[read]\n[deny]\n[mounts]\n[ports]\n[proxy]\n[protect]\n[env]\n",
		"every section, empty"))
		ok(p.read.n == 0 && p.nmounts == 0 && p.nenv == 0, "empty sections change nothing");
	sbx_policy_free(&p);
}

static void
test_syntax(void)
{
	struct sbx_policy p;

	if (load_ok(&p,
		"; comment\n# comment\n\n   \n\t\n[sandbox]\n  ; indented comment\n"
		"\t# indented comment\nfs = open ; inline comment\nnetwork=on\n",
		"comments and blanks"))
		ok(p.fs == SBX_FS_OPEN && p.network,
		    "comments ignored, inline '; ...' stripped, "
		    "spaces around '=' optional");
	sbx_policy_free(&p);
	if (load_ok(&p, "\xef\xbb\xbf[sandbox]\nfs = open\n", "a UTF-8 BOM"))
		is_int(p.fs, SBX_FS_OPEN, "the BOM is skipped");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\r\nfs = open\r\nnetwork = on\r\n", "CRLF line ends"))
		ok(p.fs == SBX_FS_OPEN && p.network, "CRLF lines read like LF lines");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\nfs = open", "no newline at the end"))
		is_int(p.fs, SBX_FS_OPEN, "the last line counts without a newline");
	sbx_policy_free(&p);
	if (load_ok(&p, "[sandbox]\nfs    =    open   \n", "padded value"))
		is_int(p.fs, SBX_FS_OPEN, "spaces around the value are stripped");
	sbx_policy_free(&p);
	/* inih: ';' after whitespace starts a comment, even right after '='. */
	if (load_ok(&p, "[env]\nX = ;a comment\nY = a;b\n", "';' in values"))
		ok(p.nenv == 2 && strcmp(p.env[0].value, "") == 0 &&
			strcmp(p.env[1].value, "a;b") == 0,
		    "'X = ;c' sets X to the empty string; 'Y = a;b' keeps the ';'");
	sbx_policy_free(&p);
	/* The longest line inih's buffer takes. */
	{
		char *path = sbx_xasprintf("/%0150d", 0);
		char *text = sbx_xasprintf("[read]\npath = %s\n", path);

		if (load_ok(&p, text, "a 158-character line"))
			ok(p.read.n == 1 && strcmp(p.read.v[0], path) == 0, "long line kept whole");
		sbx_policy_free(&p);
		free(text);
		free(path);
	}
}

static void
test_fs_fallback(void)
{
	static const char *const values[] = { "bogus", "OPEN", "Strict", "opne", "allow-list" };
	struct sbx_policy p;

	for (size_t i = 0; i < SBX_ARRAY_LEN(values); i++) {
		char *text = sbx_xasprintf("[sandbox]\nfs = %s\nnetwork = on\n", values[i]);
		char *want = sbx_xasprintf("unknown fs value '%s' replaced by strict", values[i]);

		if (load_ok(&p, text, "fs = <unknown>")) {
			is_int(p.fs, SBX_FS_STRICT, "fs = %s falls back to strict, never open",
			    values[i]);
			ok(p.network, "fs = %s: the rest of the profile still applies", values[i]);
			if (is_u64(p.warnings.n, 1, "fs = %s: one warning", values[i]))
				is_str(p.warnings.v[0], want, "fs = %s: the warning", values[i]);
		}
		sbx_policy_free(&p);
		free(text);
		free(want);
	}
	/* An unknown value still counts as the one value of the key. */
	load_fails("[sandbox]\nfs = bogus\nfs = open\n",
	    "t.ini:3: duplicated key 'fs' in [sandbox]", "fs given twice, first one unknown");
}

static void
test_errors(void)
{
	char *text, *want;

	load_fails("[sandbox]\nfs = open\n[sandbx]\n",
	    "t.ini:3: unknown section [sandbx]; did you mean [sandbox]?",
	    "unknown section without keys");
	load_fails("[sandbox]\nfs = open\n\n[bogus]\nx = 1\n", "t.ini:4: unknown section [bogus]",
	    "unknown section with keys");
	load_fails("[Sandbox]\n", "t.ini:1: unknown section [Sandbox]; did you mean [sandbox]?",
	    "section names are case-sensitive");
	load_fails("[]\n", "t.ini:1: unknown section []", "empty section name");
	load_fails("  [sandbox]\nfs = open\n[ports ]\n",
	    "t.ini:3: unknown section [ports ]; did you mean [ports]?",
	    "section name with a space");
	load_fails("[sandbox]\n\nfss = open\n",
	    "t.ini:3: unknown key 'fss' in [sandbox]; did you mean 'fs'?", "unknown key");
	load_fails("[sandbox]\nFS = open\n",
	    "t.ini:2: unknown key 'FS' in [sandbox]; did you mean 'fs'?",
	    "keys are case-sensitive");
	load_fails("[read]\npaths = /x\n",
	    "t.ini:2: unknown key 'paths' in [read]; did you mean 'path'?",
	    "unknown key in [read]");
	load_fails("[deny]\nfile = /x\n", "t.ini:2: unknown key 'file' in [deny]",
	    "unknown key in [deny]");
	load_fails("[protect]\nfile = x\n", "t.ini:2: unknown key 'file' in [protect]",
	    "unknown key in [protect]");
	load_fails("[ports]\nbind = 80\n", "t.ini:2: unknown key 'bind' in [ports]",
	    "unknown key in [ports]");
	load_fails("[proxy]\nhost = a.com\n", "t.ini:2: unknown key 'host' in [proxy]",
	    "unknown key in [proxy]");
	load_fails("[sandbox]\n= open\n", "t.ini:2: unknown key '' in [sandbox]", "empty key");
	load_fails(
	    "fs = open\n", "t.ini:1: key 'fs' outside of any section", "key before any section");
	load_fails("; comment\n\nnetwork = on\n[sandbox]\n",
	    "t.ini:3: key 'network' outside of any section",
	    "key after comments, before any section");
	load_fails("[sandbox\nfs = open\n", "t.ini:1: unterminated section header",
	    "unterminated section header");
	load_fails("[sandbox]\nfs open\n",
	    "t.ini:2: syntax error (want 'key = value' or '[section]')", "line without '='");
	load_fails("[sandbox]\nfs = open\n  network = on\n",
	    "t.ini:3: indented line 'network = on' (continuation lines are not allowed)",
	    "indented line (continuation)");
	load_fails("[read]\npath = /a\n\t/b\n",
	    "t.ini:3: indented line '/b' (continuation lines are not allowed)",
	    "tab-indented line");
	load_fails("  fs = open\n",
	    "t.ini:1: indented line 'fs = open' (continuation lines are not allowed)",
	    "indented first line");

	/* Duplicated scalars, each key of [sandbox]. */
	{
		static const char *const kv[] = {
			"backend = none",
			"fs = open",
			"network = on",
			"workdir = /srv/w",
			"keep = yes",
			"allow_degraded = yes",
			"timeout = 1s",
			"memory = 1M",
			"pids = 5",
			"cpu = 1s",
			"file_size = 1M",
			"open_files = 64",
			"trace = t.jsonl",
			"docker_image = alpine",
		};

		for (size_t i = 0; i < SBX_ARRAY_LEN(kv); i++) {
			size_t klen = strcspn(kv[i], " ");

			text = sbx_xasprintf("[sandbox]\n%s\n; same again\n%s\n", kv[i], kv[i]);
			want = sbx_xasprintf(
			    "t.ini:4: duplicated key '%.*s' in [sandbox]", (int)klen, kv[i]);
			load_fails(text, want, "duplicated scalar");
			free(text);
			free(want);
		}
	}
	load_fails("[sandbox]\nfs = open\n[read]\npath = /x\n[sandbox]\nfs = strict\n",
	    "t.ini:6: duplicated key 'fs' in [sandbox]",
	    "duplicated scalar across a reopened section");
	load_fails("[env]\nA = 1\nA = 2\n", "t.ini:3: duplicated key 'A' in [env]",
	    "duplicated [env] variable");
	load_fails("[mounts]\nx = /a\nx = /b\n", "t.ini:3: duplicated key 'x' in [mounts]",
	    "duplicated mount target");

	/* Bad values name the key and the line. */
	load_fails("[sandbox]\nmemory = lots\n",
	    "t.ini:2: memory: bad size 'lots' (want a number with K, M, G or T)", "memory = lots");
	load_fails("[ports]\nlisten = 70000\n",
	    "t.ini:2: listen: port 70000 is out of range (1-65535)", "listen = 70000");
	load_fails("[ports]\nconnect = 443, https\n", "t.ini:2: connect: bad port 'https'",
	    "connect = 443, https");
	load_fails("[ports]\nloopback = 0\n", "t.ini:2: loopback: port 0 is out of range (1-65535)",
	    "loopback = 0");
	load_fails("[sandbox]\nbackend = bwrap\n",
	    "t.ini:2: backend: unknown backend 'bwrap' (want auto, namespaces, landlock, seatbelt, "
	    "docker or none)",
	    "backend = bwrap");
	load_fails("[sandbox]\nnetwork = maybe\n",
	    "t.ini:2: network: bad network value 'maybe' (want on or off)", "network = maybe");
	load_fails("[sandbox]\nkeep = perhaps\n",
	    "t.ini:2: keep: bad boolean 'perhaps' (want yes or no)", "keep = perhaps");
	load_fails("[sandbox]\nallow_degraded = 2\n",
	    "t.ini:2: allow_degraded: bad boolean '2' (want yes or no)", "allow_degraded = 2");
	load_fails("[sandbox]\ntimeout = 1d\n",
	    "t.ini:2: timeout: bad duration '1d' (want a number with ms, s, m or h)",
	    "timeout = 1d");
	load_fails("[sandbox]\ncpu = forever\n",
	    "t.ini:2: cpu: bad duration 'forever' (want a number with ms, s, m or h)",
	    "cpu = forever");
	load_fails(
	    "[sandbox]\npids = 0\n", "t.ini:2: pids: pids must be greater than 0", "pids = 0");
	load_fails("[sandbox]\nmemory = 0\n", "t.ini:2: memory: memory must be greater than 0",
	    "memory = 0");
	load_fails("[sandbox]\ncpu = 0\n", "t.ini:2: cpu: cpu must be greater than 0", "cpu = 0");
	load_fails("[sandbox]\nfile_size = 0K\n",
	    "t.ini:2: file_size: file_size must be greater than 0", "file_size = 0K");
	load_fails("[sandbox]\nopen_files = 0\n",
	    "t.ini:2: open_files: open_files must be greater than 0", "open_files = 0");
	load_fails("[sandbox]\npids = 1073741825\n",
	    "t.ini:2: pids: number 1073741825 is out of range (at most 1073741824)",
	    "pids = 2^30+1");
	load_fails("[sandbox]\nopen_files = many\n", "t.ini:2: open_files: bad number 'many'",
	    "open_files = many");
	load_fails("[sandbox]\ndocker_image = debian stable\n",
	    "t.ini:2: docker_image: bad docker image name 'debian stable'",
	    "docker image with a space");
	load_fails("[sandbox]\ndocker_image = --privileged\n",
	    "t.ini:2: docker_image: bad docker image name '--privileged'",
	    "docker image like a flag");
	load_fails("[sandbox]\nworkdir = ~bob/w\n",
	    "t.ini:2: workdir: '~bob/w': only ~ and ~/ are expanded, not ~user",
	    "workdir = ~bob/w");
	load_fails("[sandbox]\nfs =\n", "t.ini:2: fs: empty value for 'fs' in [sandbox]", "fs =");
	load_fails("[sandbox]\nworkdir =   \n",
	    "t.ini:2: workdir: empty value for 'workdir' in [sandbox]", "workdir = (blank)");
	load_fails("[read]\npath =\n", "t.ini:2: path: empty value for 'path' in [read]",
	    "empty [read] path");
	load_fails("[deny]\npath = ~x\n",
	    "t.ini:2: path: '~x': only ~ and ~/ are expanded, not ~user", "[deny] path = ~x");
	load_fails("[protect]\npath = /etc/passwd\n",
	    "t.ini:2: path: protected path '/etc/passwd' must be relative to the workdir",
	    "absolute [protect] path");
	load_fails("[protect]\npath = a/../../b\n",
	    "t.ini:2: path: protected path 'a/../../b' may not contain '..'",
	    "[protect] path with ..");
	load_fails("[mounts]\n../up = /srv\n",
	    "t.ini:2: ../up: mount target '../up' may not contain '..'", "mount target with ..");
	load_fails("[mounts]\n/abs = /srv\n",
	    "t.ini:2: /abs: mount target '/abs' must be relative to the workdir",
	    "absolute mount target");
	load_fails("[mounts]\ndata =\n", "t.ini:2: data: empty value for 'data' in [mounts]",
	    "empty mount source");
	load_fails("[mounts]\ndata = ~u/x:rw\n",
	    "t.ini:2: data: '~u/x': only ~ and ~/ are expanded, not ~user", "mount source ~user");
	load_fails("[proxy]\nallow = bad host\n", "t.ini:2: allow: bad host name 'bad host'",
	    "allow = bad host");
	load_fails("[proxy]\nallow = a*.example.com\n",
	    "t.ini:2: allow: bad host pattern 'a*.example.com' (want a name or *.suffix)",
	    "allow = a*.example.com");
	load_fails("[env]\n1X = y\n", "t.ini:2: 1X: bad environment variable name '1X'",
	    "env name starting with a digit");
	load_fails("[env]\nA-B = y\n", "t.ini:2: A-B: bad environment variable name 'A-B'",
	    "env name with '-'");
	load_fails("[env]\npass = A-B\n", "t.ini:2: pass: bad environment variable name 'A-B'",
	    "env pass with a bad name");
	load_fails(
	    "[env]\npass =\n", "t.ini:2: pass: empty value for 'pass' in [env]", "empty env pass");

	/* The first error stops the parse: nothing after it applies. */
	{
		struct sbx_policy p;
		struct sbx_err err;

		is_int(load(&p, "[sandbox]\nfss = 1\nfs = open\nnetwork = on\n", &err), -1,
		    "error then more keys: refused");
		ok(p.fs == SBX_FS_STRICT && !p.network,
		    "keys after the first error are not applied");
		sbx_policy_free(&p);
	}
	/* Each of these errors sits before a second one: the message must
	 * name the first, or a user fixes the wrong line. */
	load_fails("[sandbox]\ngarbage\nfs = open\nfs = strict\n",
	    "t.ini:2: syntax error (want 'key = value' or '[section]')",
	    "a syntax error is reported even when a later line is bad too");
	/* A typo in a security file is never ignored: text after a section
	 * header would silently drop a [deny] rule. */
	load_fails("[deny] path = /srv/secret\n",
	    "t.ini:1: text after the section header: 'path = /srv/secret'",
	    "text after a section header is refused (one-line '[deny] path = ...')");
	/* An indented section header is not a header to inih but the
	 * continuation of the previous value: "[deny]" would become a [read]
	 * path and the deny path under it a readable path. The reader hands
	 * inih every line without its indentation: a header stays a header. */
	{
		struct sbx_policy p;
		struct sbx_err err;

		ok(load(&p,
		       "[sandbox]\nfs = allowlist\n[read]\npath = /opt/data\n  [deny]\n"
		       "path = /home/u/secret\n",
		       &err) == 0 &&
			p.read.n == 1 && p.deny.n == 1 &&
			strcmp(p.deny.v[0], "/home/u/secret") == 0,
		    "an indented section header is a header, never a continuation");
		diag("message: '%s'; [read] has %zu paths", err.msg, p.read.n);
		sbx_policy_free(&p);
	}
	/* With a BOM the first line is still a section header like any other. */
	{
		struct sbx_policy p;
		struct sbx_err err;

		ok(load(&p, "\xef\xbb\xbf[bogus]\n", &err) == -1 &&
			strcmp(err.msg, "t.ini:1: unknown section [bogus]") == 0,
		    "BOM then an unknown section without keys: refused at line 1");
		if (err.msg[0])
			diag("message: %s", err.msg);
		sbx_policy_free(&p);
		ok(load(&p, "\xef\xbb\xbf[bogus]\nx = 1\n", &err) == -1 &&
			strcmp(err.msg, "t.ini:1: unknown section [bogus]") == 0,
		    "BOM then an unknown section with keys: refused at line 1");
		if (err.msg[0])
			diag("message: %s", err.msg);
		sbx_policy_free(&p);
	}
}

static void
test_long_lines(void)
{
	char *value = sbx_xasprintf("/%01000d", 0);
	char *text =
	    sbx_xasprintf("[read]\npath = /short\n; next line is long\npath = %s\n", value);

	/* Longer than inih's 200-byte line buffer: split by the reader. */
	{
		struct sbx_policy p;
		struct sbx_err err;

		is_int(load(&p, text, &err), 0, "a 1008-character line loads");
		ok(p.read.n == 2 && strcmp(p.read.v[1], value) == 0,
		    "a 1008-character line: the whole value is read");
		sbx_policy_free(&p);
		free(text);
		text = sbx_xasprintf("; %s\n[sandbox]\nfs = open ; %s\n", value, value);
		is_int(load(&p, text, &err), 0, "a long comment line is ignored");
		ok(p.fs == SBX_FS_OPEN, "a long inline comment is cut like a short one");
		sbx_policy_free(&p);
	}
	free(text);
	free(value);
}

#define GOOD "[sandbox]\nfs = open\n[ports]\nlisten = 80\n"
#define BAD "[sandbox]\n\n; c\nmemory = lots\n"

static void
test_files(void)
{
	static const char nul_text[] = "[sandbox]\nfs = st\0rict\n";
	struct sbx_policy p;
	struct sbx_err err = { 0 };
	char *path, *want;

	path = write_file("good.ini", GOOD, strlen(GOOD));
	sbx_policy_init(&p, HOME);
	is_int(sbx_profile_load_file(&p, path, &err), 0, "a profile file loads");
	ok(p.fs == SBX_FS_OPEN && p.listen.n == 1, "its values apply");
	sbx_policy_free(&p);
	free(path);

	path = write_file("nul.ini", nul_text, sizeof(nul_text) - 1);
	want = sbx_xasprintf("%s:2: NUL byte in line", path);
	sbx_policy_init(&p, HOME);
	is_int(sbx_profile_load_file(&p, path, &err), -1, "a NUL byte is refused");
	is_str(err.msg, want, "NUL byte message names FILE:LINE");
	ok(p.fs == SBX_FS_STRICT, "the line with the NUL byte is not applied");
	sbx_policy_free(&p);
	free(want);
	free(path);

	path = write_file("bad.ini", BAD, strlen(BAD));
	want =
	    sbx_xasprintf("%s:4: memory: bad size 'lots' (want a number with K, M, G or T)", path);
	sbx_policy_init(&p, HOME);
	is_int(sbx_profile_load_file(&p, path, &err), -1, "a bad file is refused");
	is_str(err.msg, want, "the message names the file path and the line");
	sbx_policy_free(&p);
	free(want);
	free(path);

	path = sbx_xasprintf("%s/missing.ini", tmpdir);
	want = sbx_xasprintf("%s: No such file or directory", path);
	sbx_policy_init(&p, HOME);
	is_int(sbx_profile_load_file(&p, path, &err), -1, "a missing file is refused");
	is_str(err.msg, want, "missing file message");
	is_int(err.errnum, ENOENT, "missing file errnum");
	sbx_policy_free(&p);
	free(want);
	free(path);

	sbx_policy_init(&p, HOME);
	is_int(sbx_profile_load_file(&p, tmpdir, &err), -1, "a directory is refused");
	like(err.msg, tmpdir, "the message names the directory");
	sbx_policy_free(&p);
}

static void
test_lookup(void)
{
	char *d1 = sbx_xasprintf("%s/d1", tmpdir), *d2 = sbx_xasprintf("%s/d2", tmpdir);
	const char *dirs[] = { d1, d2, NULL }, *none[] = { NULL };
	struct sbx_err err = { 0 };
	char *path = NULL, *want, *f;

	ok(!sbx_profile_arg_is_file("ci"), "'ci' is a name");
	ok(!sbx_profile_arg_is_file("my-profile_2"), "'my-profile_2' is a name");
	ok(sbx_profile_arg_is_file("ci.ini"), "'ci.ini' is a file");
	ok(sbx_profile_arg_is_file("./ci"), "'./ci' is a file");
	ok(sbx_profile_arg_is_file("/etc/sbxrun/x"), "an absolute path is a file");

	mkdir(d1, 0755);
	mkdir(d2, 0755);
	f = sbx_xasprintf("%s/ci.ini", d2);
	free(write_file("d2/ci.ini", "", 0));
	is_int(sbx_profile_find("ci", dirs, &path, &err), 0, "a name is found in the second dir");
	is_str(path, f, "found path");
	free(path);
	path = NULL;
	free(f);
	f = sbx_xasprintf("%s/ci.ini", d1);
	free(write_file("d1/ci.ini", "", 0));
	is_int(sbx_profile_find("ci", dirs, &path, &err), 0, "a name in both dirs");
	is_str(path, f, "the first dir wins");
	free(path);
	path = NULL;
	free(f);

	want = sbx_xasprintf("profile 'nope' not found (looked for nope.ini in %s, %s)", d1, d2);
	is_int(sbx_profile_find("nope", dirs, &path, &err), -1, "a missing name");
	is_str(err.msg, want, "the message lists where it looked");
	is_int(err.errnum, ENOENT, "missing name errnum");
	ok(path == NULL, "no path for a missing name");
	free(want);
	is_int(sbx_profile_find("x", none, &path, &err), -1, "no directories");
	like(err.msg, "not found", "no directories message");

	{
		static const char *const bad[] = { "../ci", "a/b", ".hidden", "", "a b", "ci;rm",
			"~ci" };

		for (size_t i = 0; i < SBX_ARRAY_LEN(bad); i++) {
			char *m = sbx_xasprintf("bad profile name '%s'", bad[i]);

			is_int(sbx_profile_find(bad[i], dirs, &path, &err), -1,
			    "name '%s' is refused", bad[i]);
			is_str(err.msg, m, "name '%s': message", bad[i]);
			free(m);
		}
	}
	free(d1);
	free(d2);
}

static void
test_shipped(void)
{
	const char *srcdir = getenv("SRCDIR");
	char *pattern = sbx_xasprintf("%s/profiles/*.ini", srcdir ? srcdir : ".");
	glob_t g;
	size_t n = 0;

	ok(srcdir != NULL, "SRCDIR is set (make check sets it)");
	if (glob(pattern, 0, NULL, &g) == 0) {
		n = g.gl_pathc;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct sbx_policy p;
			struct sbx_err err = { 0 };

			sbx_policy_init(&p, HOME);
			if (!is_int(sbx_profile_load_file(&p, g.gl_pathv[i], &err), 0,
				"shipped profile %s parses", g.gl_pathv[i]))
				diag("error: %s", err.msg);
			else if (!is_int(sbx_policy_check(&p, &err), 0,
				     "shipped profile %s is consistent", g.gl_pathv[i]))
				diag("error: %s", err.msg);
			is_u64(
			    p.warnings.n, 0, "shipped profile %s gives no warning", g.gl_pathv[i]);
			sbx_policy_free(&p);
		}
		globfree(&g);
	}
	ok(n >= 6, "the shipped profiles are there (%zu found in %s)", n, pattern);
	free(pattern);
}

/* --list-profiles: every NAME.ini the lookup could find, the shadowed
 * ones marked, with the first comment line. */
static void
test_list(void)
{
	char *a = sbx_xasprintf("%s/list-a", tmpdir), *b = sbx_xasprintf("%s/list-b", tmpdir),
	     *c = sbx_xasprintf("%s/list-c", tmpdir), *missing = sbx_xasprintf("%s/nope", tmpdir);
	const char *dirs[] = { a, missing, b, c, NULL };
	static const struct {
		const char *dir, *name, *text;
	} files[] = {
		{ "list-a", "ci.ini", "; mine: CI with the network off\n[sandbox]\n" },
		{ "list-b", "ci.ini", "; sbxrun profile \"ci\": one CI step.\n" },
		{ "list-c", "ci.ini", "; the installed one\n" },
		{ "list-b", "bare.ini", "[sandbox]\nfs = open\n; late comment\n" },
		{ "list-c", "zz.ini", "\n   \n;\n#   \n  ;  after blanks  \n" },
		{ "list-c", "esc.ini", "; a \033[31mred\r title\n" },
		{ "list-a", ".hidden.ini", "; not a name -p finds\n" },
		{ "list-a", "bad name.ini", "; nor this\n" },
		{ "list-a", "notes.txt", "; not a profile\n" },
		{ "list-a", "unreadable.ini", "; mode 0\n" },
	};
	struct sbx_profile_list l;
	char *text;

	mkdir(a, 0700);
	mkdir(b, 0700);
	mkdir(c, 0700);
	for (size_t i = 0; i < SBX_ARRAY_LEN(files); i++) {
		char *rel = sbx_xasprintf("%s/%s", files[i].dir, files[i].name);

		free(write_file(rel, files[i].text, strlen(files[i].text)));
		free(rel);
	}
	{
		char *u = sbx_xasprintf("%s/unreadable.ini", a);

		chmod(u, 0);
		free(u);
	}
	sbx_profile_list(dirs, &l);
	/* root reads a mode-0 file: then it is listed, as -p finds it. */
	{
		size_t want = geteuid() == 0 ? 7 : 6, k = 0;

		is_int(
		    (long long)l.n, (long long)want, "every profile -p NAME could find is listed");
		if (l.n != want) {
			for (size_t i = 0; i < l.n; i++)
				diag("%s %s", l.v[i].name, l.v[i].path);
			goto out;
		}
		is_str(l.v[k].name, "bare", "sorted by name");
		is_str(l.v[k].summary, "", "no comment before the first section: no summary");
		k++;
		is_str(l.v[k].name, "ci", "ci, from the first directory");
		like(l.v[k].path, "/list-a/ci.ini", "... its file is the first directory's");
		ok(!l.v[k].shadowed, "... and it wins");
		is_str(
		    l.v[k].summary, "mine: CI with the network off", "... its first comment line");
		k++;
		is_str(l.v[k].name, "ci", "ci again");
		like(l.v[k].path, "/list-b/ci.ini", "... the second directory's, in lookup order");
		ok(l.v[k].shadowed, "... shadowed");
		is_str(l.v[k].summary, "one CI step.", "'sbxrun profile \"ci\": ' is dropped");
		k++;
		like(l.v[k].path, "/list-c/ci.ini", "... the third directory's, last");
		ok(l.v[k].shadowed, "... shadowed too");
		k++;
		is_str(l.v[k].name, "esc", "esc");
		k++;
		if (geteuid() == 0)
			is_str(l.v[k++].name, "unreadable", "a mode-0 file is read by root");
		is_str(l.v[k].name, "zz", "zz");
		is_str(l.v[k].summary, "after blanks", "empty comment lines are passed over");
	}
	text = sbx_profile_list_render(&l, dirs);
	{
		int w = 0;
		char *pa, *pb, *pc, *want_ci, *want_bare;

		for (size_t i = 0; i < l.n; i++)
			if ((int)strlen(l.v[i].path) > w)
				w = (int)strlen(l.v[i].path);
		pa = sbx_xasprintf("%s/ci.ini", a);
		pb = sbx_xasprintf("%s/ci.ini", b);
		pc = sbx_xasprintf("%s/ci.ini", c);
		want_ci = sbx_xasprintf("\nci          %-*s  mine: CI with the network off\n"
					"            %-*s  (shadowed by the file above)\n"
					"            %-*s  (shadowed by the file above)\n",
		    w, pa, w, pb, w, pc);
		want_bare = sbx_xasprintf("\nbare        %s/bare.ini\n", b);
		free(pa);
		free(pb);
		free(pc);
		like(text, "NAME        FILE", "a header");
		like(text, want_ci, "the name once, the file that wins, the shadowed ones marked");
		like(text, want_bare, "no blanks after a file without a summary");
		like(text, "a ?[31mred? title\n", "control bytes are shown as '?'");
		free(want_ci);
		free(want_bare);
	}
	free(text);
out:
	sbx_profile_list_free(&l);
	{
		const char *none[] = { missing, NULL };

		sbx_profile_list(none, &l);
		is_int((long long)l.n, 0, "no directory: nothing listed");
		text = sbx_profile_list_render(&l, none);
		{
			char *want = sbx_xasprintf("no profiles in %s\n", missing);

			is_str(text, want, "nothing found: where it looked");
			free(want);
		}
		free(text);
		sbx_profile_list_free(&l);
	}
	{
		char *u = sbx_profile_user_dir("/x", "/home/u");

		is_str(u, "/x/sbxrun/profiles", "the user's directory under XDG_CONFIG_HOME");
		free(u);
		u = sbx_profile_user_dir("rel", "/home/u");
		is_str(
		    u, "/home/u/.config/sbxrun/profiles", "a relative XDG_CONFIG_HOME is ignored");
		free(u);
		u = sbx_profile_user_dir(NULL, "/home/u");
		is_str(u, "/home/u/.config/sbxrun/profiles", "no XDG_CONFIG_HOME: ~/.config");
		free(u);
	}
	free(a);
	free(b);
	free(c);
	free(missing);
}

int
main(void)
{
	if (mkdtemp(tmpdir) == NULL) {
		perror("mkdtemp");
		return 1;
	}
	test_spec_example();
	test_sandbox_values();
	test_sections();
	test_syntax();
	test_fs_fallback();
	test_errors();
	test_long_lines();
	test_files();
	test_lookup();
	test_shipped();
	test_list();
	{
		char *cmd = sbx_xasprintf("rm -rf '%s'", tmpdir);

		if (system(cmd) != 0)
			diag("could not remove %s", tmpdir);
		free(cmd);
	}
	return done_testing();
}
