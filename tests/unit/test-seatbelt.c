/* The Seatbelt profile generator: string escaping, macOS path
 * canonicalisation, the rule order that security rests on, and every
 * shipped profile and a set of edge cases against the checked-in texts in
 * $GOLDEN/seatbelt/NAME.sb. Those texts are the spec of what a macOS run
 * gets; after a deliberate change, regenerate them with
 *
 *	SBX_UPDATE_GOLDEN=1 make check TESTS=tests/unit/test-seatbelt
 *
 * and read the diff. The filesystem view is fixed (home /Users/alice,
 * workdir /Users/alice/proj), so the texts are the same on every machine. */
#include "config.h"

#include <errno.h>
#include <glob.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "policy.h"
#include "profile.h"
#include "resolve.h"
#include "seatbelt.h"
#include "tap.h"
#include "golden.h"

#define HOME "/Users/alice"
#define WORKDIR HOME "/proj"

/* What resolve would find for the glob patterns of the secret list on a
 * Mac; a pattern missing here fails the test, so that a new one is seen. */
static const struct {
	const char *pattern;
	const char *matches[4];
} glob_matches[] = {
	{ "/etc/sudoers*", { "/etc/sudoers", "/etc/sudoers.d", NULL } },
	{ "/etc/ssh/ssh_host_*_key",
	    { "/etc/ssh/ssh_host_ecdsa_key", "/etc/ssh/ssh_host_ed25519_key",
		"/etc/ssh/ssh_host_rsa_key", NULL } },
};

/* The view sbx_resolve() would give on a Mac, without touching the disk:
 * the secret list of HOME, the system one, [deny], and [read] as written. */
static void
fake_view(struct sbx_fsview *v, const struct sbx_policy *p, const char *workdir)
{
	struct sbx_strv raw = { 0 };

	memset(v, 0, sizeof(*v));
	v->workdir = sbx_xstrdup(workdir);
	sbx_strv_push(&v->homes, HOME);
	sbx_secret_list(HOME, &raw);
	sbx_secret_list_system(&raw);
	sbx_strv_copy(&raw, &p->deny);
	for (size_t i = 0; i < raw.n; i++) {
		bool found = false;

		if (strpbrk(raw.v[i], "*?[") == NULL) {
			sbx_strv_push(&v->hidden, raw.v[i]);
			continue;
		}
		for (size_t k = 0; k < SBX_ARRAY_LEN(glob_matches); k++) {
			if (strcmp(raw.v[i], glob_matches[k].pattern) != 0)
				continue;
			found = true;
			for (size_t m = 0; glob_matches[k].matches[m]; m++)
				sbx_strv_push(&v->hidden, glob_matches[k].matches[m]);
		}
		if (!found) {
			printf("Bail out! no fake matches for the secret pattern %s\n", raw.v[i]);
			exit(1);
		}
	}
	sbx_strv_free(&raw);
	sbx_strv_copy(&v->read, &p->read);
}

/* A reader for the SBPL the generator writes, to catch what a Mac would
 * refuse to compile: unbalanced parentheses, unterminated strings, and
 * operation or filter names that are not the ones the generator means to
 * use. Not a full grammar: a known name in a wrong place passes. */
struct reader {
	const char *s;
	int line;
	const char *why;
};

static const char *const known_operations[] = {
	"default",
	"file-read*",
	"file-write*",
	"file-read-metadata",
	"file-link",
	"file-clone",
	"process-exec",
	"signal",
	"job-creation",
	"lsopen",
	"appleevent-send",
	"network*",
	"network-bind",
	"network-inbound",
	"network-outbound",
	"user-preference-write",
	"mach-lookup",
	NULL,
};

static const char *const known_heads[] = {
	"subpath",
	"literal",
	"regex",
	"path-regex",
	"param",
	"local",
	"remote",
	"target",
	"global-name",
	NULL,
};

static const char *const known_atoms[] = {
	"tcp",
	"ip",
	"unix-socket",
	"self",
	"same-sandbox",
	NULL,
};

static bool
in_list(const char *s, const char *const *list)
{
	for (size_t i = 0; list[i]; i++)
		if (strcmp(s, list[i]) == 0)
			return true;
	return false;
}

static void
skip_blank(struct reader *r)
{
	for (;;) {
		if (*r->s == '\n')
			r->line++;
		if (*r->s == ' ' || *r->s == '\t' || *r->s == '\n')
			r->s++;
		else if (*r->s == ';')
			r->s += strcspn(r->s, "\n");
		else
			return;
	}
}

static bool
read_string(struct reader *r)
{
	r->s++; /* the opening quote */
	for (; *r->s != '"'; r->s++) {
		if (*r->s == '\0' || *r->s == '\n') {
			r->why = "unterminated string";
			return false;
		}
		if (*r->s == '\\' && r->s[1] != '\0')
			r->s++;
	}
	r->s++;
	return true;
}

static size_t
atom_len(const char *s)
{
	return strcspn(s, " \t\n();\"");
}

/* Reads one list at r->s; context is the head of the enclosing list. */
static bool
read_list(struct reader *r, const char *context)
{
	char head[64];
	size_t n;
	bool top = context == NULL;

	r->s++; /* '(' */
	skip_blank(r);
	n = atom_len(r->s);
	if (n == 0 || n >= sizeof(head)) {
		r->why = "a list without a head";
		return false;
	}
	memcpy(head, r->s, n);
	head[n] = '\0';
	r->s += n;
	if (top && strcmp(head, "version") != 0 && strcmp(head, "allow") != 0 &&
	    strcmp(head, "deny") != 0) {
		r->why = "a top-level form that is not version, allow or deny";
		return false;
	}
	if (!top && !in_list(head, known_heads)) {
		r->why = "an unknown filter";
		return false;
	}
	for (;;) {
		skip_blank(r);
		if (*r->s == ')') {
			r->s++;
			return true;
		}
		if (*r->s == '\0') {
			r->why = "unbalanced parentheses";
			return false;
		}
		if (*r->s == '(') {
			if (!read_list(r, head))
				return false;
		} else if (*r->s == '"') {
			if (!read_string(r))
				return false;
		} else if (r->s[0] == '#' && r->s[1] == '"') {
			r->s++;
			if (!read_string(r))
				return false;
		} else {
			char atom[64];

			n = atom_len(r->s);
			if (n == 0 || n >= sizeof(atom)) {
				r->why = "a stray character";
				return false;
			}
			memcpy(atom, r->s, n);
			atom[n] = '\0';
			r->s += n;
			if (strcmp(head, "version") == 0 ? strcmp(atom, "1") != 0
				: top                    ? !in_list(atom, known_operations)
							 : !in_list(atom, known_atoms)) {
				r->why = "an unknown operation or symbol";
				return false;
			}
		}
	}
}

static bool
sbpl_well_formed(const char *text, int *line, const char **why)
{
	struct reader r = { .s = text, .line = 1, .why = NULL };

	for (;;) {
		skip_blank(&r);
		if (*r.s == '\0')
			return true;
		if (*r.s != '(') {
			r.why = "text outside a form";
			break;
		}
		if (!read_list(&r, NULL))
			break;
	}
	*line = r.line;
	*why = r.why;
	return false;
}

/* The offset of the last occurrence of needle, or -1. */
static long
last_of(const char *hay, const char *needle)
{
	long at = -1;

	for (const char *c = hay; (c = strstr(c, needle)) != NULL; c++)
		at = c - hay;
	return at;
}

/* Generates the profile of p with the fake view (workdir may be NULL for
 * WORKDIR), checks it against its golden text and its form. */
static void
check_profile(const char *name, const struct sbx_policy *p, const char *workdir,
    const struct sbx_seatbelt_opts *opts)
{
	struct sbx_fsview v;
	struct sbx_buf out = { 0 }, again = { 0 };
	struct sbx_err err = { 0 };
	const char *why = NULL;
	int line = 0;

	fake_view(&v, p, workdir ? workdir : WORKDIR);
	if (!is_int(sbx_seatbelt_profile(p, &v, opts, &out, &err), 0, "%s: generated", name)) {
		diag("error: %s", err.msg);
		goto out;
	}
	golden_check("seatbelt", name, "sb", out.data);
	if (!ok(sbpl_well_formed(out.data, &line, &why), "%s: well-formed SBPL", name))
		diag("line %d: %s", line, why);
	sbx_seatbelt_profile(p, &v, opts, &again, &err);
	ok(again.data && strcmp(out.data, again.data) == 0, "%s: the same text twice", name);

	/* The order security rests on (last match wins): the hidden list
	 * after every allow of reads and writes, the loopback deny after
	 * every network allow but the loopback ports. */
	ok(last_of(out.data, "(allow file-") < last_of(out.data, "(deny file-read* file-write*"),
	    "%s: the hidden list comes after every file allow", name);
	ok(last_of(out.data, "(remote ip \"localhost:*\"))") >
		last_of(out.data, "(allow network-outbound (literal"),
	    "%s: the loopback deny comes after the DNS allow", name);
	ok(strstr(
	       out.data + last_of(out.data, "(deny network-outbound (remote ip \"localhost:*\"))"),
	       "*:") == NULL,
	    "%s: nothing but loopback ports after the loopback deny", name);
out:
	sbx_buf_free(&out);
	sbx_buf_free(&again);
	sbx_fsview_free(&v);
}

static void
load(struct sbx_policy *p, const char *text)
{
	struct sbx_err err = { 0 };

	sbx_policy_init(p, HOME);
	if (sbx_profile_load_string(p, "t.ini", text, &err) < 0 || sbx_policy_check(p, &err) < 0) {
		printf("Bail out! test profile refused: %s\n", err.msg);
		exit(1);
	}
}

static void
test_quote(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/usr", "\"/usr\"" },
		{ "/a b", "\"/a b\"" },
		{ "/a\"b", "\"/a\\\"b\"" },
		{ "/a\\b", "\"/a\\\\b\"" },
		{ "/a\\\"", "\"/a\\\\\\\"\"" },
		{ "/caf\xc3\xa9", "\"/caf\xc3\xa9\"" },
		{ "/a;b(c)#d", "\"/a;b(c)#d\"" },
		{ "", "\"\"" },
	};
	static const char *const refused[] = { "/a\nb", "/a\tb", "/a\rb", "/a\x7f", "/\x1b[31m" };

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		struct sbx_buf b = { 0 };
		struct sbx_err err = { 0 };

		is_int(sbx_seatbelt_quote(&b, cases[i].in, &err), 0, "quote %zu: accepted", i);
		is_str(b.data, cases[i].out, "quote %zu: escaped", i);
		sbx_buf_free(&b);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(refused); i++) {
		struct sbx_buf b = { 0 };
		struct sbx_err err = { 0 };

		is_int(sbx_seatbelt_quote(&b, refused[i], &err), -1,
		    "quote: control character %zu refused", i);
		like(err.msg, "control character", "quote: the message says why (%zu)", i);
		unlike(err.msg, "\n", "quote: the message stays on one line (%zu)", i);
		sbx_buf_free(&b);
	}
	{
		struct sbx_buf b = { 0 };
		struct sbx_err err = { 0 };

		sbx_seatbelt_quote(&b, "/Users/a\nb", &err);
		like(err.msg, "/Users/a\\x0ab", "quote: the path is shown with \\xNN");
		sbx_buf_free(&b);
	}
}

static void
test_canon(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "/", "/" },
		{ "/tmp", "/private/tmp" },
		{ "/tmp/", "/private/tmp" },
		{ "/tmp/x/y", "/private/tmp/x/y" },
		{ "/var/folders/ab/T/sbxrun.1", "/private/var/folders/ab/T/sbxrun.1" },
		{ "/var", "/private/var" },
		{ "/etc/hosts", "/private/etc/hosts" },
		{ "/private/tmp/x", "/private/tmp/x" },
		{ "/private/var/run", "/private/var/run" },
		{ "/tmpfoo", "/tmpfoo" },
		{ "/Users/tmp", "/Users/tmp" },
		{ "/Users//alice/./x/../y/", "/Users/alice/y" },
		{ "//tmp", "/private/tmp" },
		{ "/..", "/" },
		{ "/../tmp/x", "/private/tmp/x" },
		{ "/Users/alice/..", "/Users" },
		{ "/a/b/../../tmp", "/private/tmp" },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		char *c = sbx_seatbelt_canon(cases[i].in);

		is_str(c, cases[i].out, "canon '%s'", cases[i].in);
		free(c);
	}
	is_str(sbx_seatbelt_canon("tmp/x"), NULL, "canon: a relative path has no canonical form");
	is_str(sbx_seatbelt_canon(""), NULL, "canon: nor has the empty string");
	is_str(sbx_seatbelt_canon(NULL), NULL, "canon: nor NULL");
}

/* Paths the generator must refuse rather than write. */
static void
test_refused(void)
{
	struct sbx_policy p;
	struct sbx_fsview v;
	struct sbx_buf out = { 0 };
	struct sbx_err err = { 0 };

	load(&p, "");
	fake_view(&v, &p, HOME "/pro\nj");
	is_int(sbx_seatbelt_profile(&p, &v, NULL, &out, &err), -1,
	    "a newline in the workdir is refused");
	like(err.msg, "control character 0x0a", "  and the message says which");
	sbx_fsview_free(&v);
	sbx_buf_free(&out);

	fake_view(&v, &p, WORKDIR);
	sbx_strv_push(&v.hidden, HOME "/.config/a\x01");
	is_int(sbx_seatbelt_profile(&p, &v, NULL, &out, &err), -1,
	    "a control character in a hidden path is refused");
	sbx_fsview_free(&v);
	sbx_buf_free(&out);

	fake_view(&v, &p, WORKDIR);
	sbx_strv_push(&v.hidden, "relative/secret");
	is_int(sbx_seatbelt_profile(&p, &v, NULL, &out, &err), -1,
	    "a relative hidden path is refused");
	like(err.msg, "not an absolute path", "  and the message says why");
	sbx_fsview_free(&v);
	sbx_buf_free(&out);

	fake_view(&v, &p, WORKDIR);
	free(v.workdir);
	v.workdir = NULL;
	is_int(sbx_seatbelt_profile(&p, &v, NULL, &out, &err), -1, "no workdir, no profile");
	sbx_fsview_free(&v);
	sbx_buf_free(&out);
	sbx_policy_free(&p);
}

/* A path as written and as resolved on a Mac is one rule, not two. */
static void
test_dedup(void)
{
	struct sbx_policy p;
	struct sbx_fsview v;
	struct sbx_buf out = { 0 };
	struct sbx_err err = { 0 };
	const char *first;

	load(&p, "");
	fake_view(&v, &p, WORKDIR);
	sbx_strv_push(&v.hidden, "/private/etc/sudoers");
	sbx_strv_push(&v.hidden, "/etc/sudoers/");
	is_int(sbx_seatbelt_profile(&p, &v, NULL, &out, &err), 0, "dedup: generated");
	first = strstr(out.data, "(subpath \"/private/etc/sudoers\")");
	ok(first != NULL && strstr(first + 1, "(subpath \"/private/etc/sudoers\")") == NULL,
	    "dedup: /etc/sudoers and /private/etc/sudoers give one rule");
	unlike(out.data, "\"/etc/", "dedup: no path under the /etc symlink is written");
	sbx_fsview_free(&v);
	sbx_buf_free(&out);
	sbx_policy_free(&p);
}

static void
test_shipped(void)
{
	const char *srcdir = getenv("SRCDIR");
	char *pattern = sbx_xasprintf("%s/profiles/*.ini", srcdir ? srcdir : ".");
	glob_t g;
	size_t n = 0;

	if (glob(pattern, 0, NULL, &g) == 0) {
		n = g.gl_pathc;
		for (size_t i = 0; i < g.gl_pathc; i++) {
			struct sbx_policy p;
			struct sbx_err err = { 0 };
			char *copy = sbx_xstrdup(g.gl_pathv[i]);
			char *base = basename(copy);
			char *name;

			base[strcspn(base, ".")] = '\0';
			name = sbx_xasprintf("profile-%s", base);
			sbx_policy_init(&p, HOME);
			if (is_int(sbx_profile_load_file(&p, g.gl_pathv[i], &err), 0, "%s loads",
				g.gl_pathv[i]))
				check_profile(name, &p, NULL, NULL);
			else
				diag("error: %s", err.msg);
			sbx_policy_free(&p);
			free(name);
			free(copy);
		}
		globfree(&g);
	}
	ok(n >= 6, "the shipped profiles are there (%zu in %s)", n, pattern);
	free(pattern);
}

static void
test_edges(void)
{
	static const struct {
		const char *name;
		const char *workdir; /* NULL: WORKDIR */
		const char *ini;
	} cases[] = {
		{ "empty-allowlist", NULL, "[sandbox]\nfs = allowlist\n" },
		{ "allowlist", NULL,
		    "[sandbox]\nfs = allowlist\n"
		    "[read]\npath = /opt/datasets\npath = /tmp/shared/data\npath = ~/models\n"
		    "path = /var/db/../lib/x/\n" },
		{ "loopback-only", NULL, "[ports]\nloopback = 8899, 5432\n" },
		{ "quotes-spaces", HOME "/my \"proj\" dir\\1",
		    "[sandbox]\nfs = allowlist\n"
		    "[read]\npath = /Volumes/My Data/set \"a\"\npath = /opt/back\\slash\n"
		    "[deny]\npath = ~/Library/Application Support/My \"App\"\n"
		    "[protect]\npath = my config.json\n" },
		{ "open-deny", NULL,
		    "[sandbox]\nfs = open\n"
		    "[deny]\npath = ~/.config/op\npath = /Volumes/Secrets\n" },
		{ "network-on", NULL,
		    "[sandbox]\nnetwork = on\n[ports]\nlisten = 3000\nloopback = 5432\n" },
		{ "connect", NULL, "[ports]\nconnect = 443, 80\n" },
		{ "listen-connect-loopback", NULL,
		    "[ports]\nlisten = 8080, 8081\nconnect = 443\nloopback = 8899\n" },
		{ "mounts", NULL,
		    "[mounts]\ndata = /srv/data:ro\nout = ~/out:rw\ncache = /tmp/cache:rw\n" },
		{ "workdir-home", HOME, "" },
		{ "workdir-tmp", "/tmp/sbxrun.Ab12Cd", "" },
		{ "protect", NULL, "[protect]\npath = .envrc\npath = config/deploy/secrets.yml\n" },
		/* Only .git and [protect] stay: the built-in list is dropped, in
		 * a home too. */
		{ "no-protect-defaults", HOME,
		    "[sandbox]\nprotect_defaults = no\n[protect]\npath = .envrc\n" },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		struct sbx_policy p;

		load(&p, cases[i].ini);
		check_profile(cases[i].name, &p, cases[i].workdir, NULL);
		sbx_policy_free(&p);
	}
	{
		struct sbx_policy p;
		struct sbx_seatbelt_opts opts = { .proxy_port = 41000 };

		load(&p, "[proxy]\nallow = pypi.org\nallow = *.pythonhosted.org\n");
		check_profile("proxy-port", &p, NULL, &opts);
		sbx_policy_free(&p);
	}
}

/* The rules that do not show in a diff at a glance. */
static void
test_rules(void)
{
	struct sbx_policy p;
	struct sbx_fsview v;
	struct sbx_buf out = { 0 };
	struct sbx_err err = { 0 };

	load(&p, "[sandbox]\nfs = open\n");
	fake_view(&v, &p, WORKDIR);
	sbx_seatbelt_profile(&p, &v, NULL, &out, &err);
	unlike(out.data, "(deny file-read* process-exec)", "open: reads are not taken away");
	like(out.data, "(subpath \"/Users/alice/.ssh\")", "open: the secret list is still hidden");
	like(out.data, "(deny network*)", "open: the network is still off");
	unlike(out.data, "mDNSResponder", "network off: no DNS");
	unlike(out.data, "(subpath \"/dev\")", "/dev as a whole is never given");
	sbx_fsview_free(&v);
	sbx_buf_free(&out);
	sbx_policy_free(&p);

	load(&p, "[sandbox]\nnetwork = on\n");
	fake_view(&v, &p, WORKDIR);
	sbx_seatbelt_profile(&p, &v, NULL, &out, &err);
	unlike(out.data, "(deny network*)", "network on: not everything is denied");
	like(out.data, "(deny network-outbound (remote ip \"localhost:*\"))",
	    "network on: the host's loopback is still denied");
	like(out.data, "(deny network-bind (local tcp \"*:*\"))",
	    "network on: binding an undeclared TCP port is denied");
	like(out.data, "mDNSResponder", "network on: DNS");
	sbx_fsview_free(&v);
	sbx_buf_free(&out);
	sbx_policy_free(&p);

	load(&p, "[proxy]\nallow = example.org\n");
	fake_view(&v, &p, WORKDIR);
	sbx_seatbelt_profile(&p, &v, NULL, &out, &err);
	unlike(out.data, "example.org", "proxy: no host name reaches the profile");
	unlike(out.data, "mDNSResponder", "proxy: no DNS inside");
	sbx_fsview_free(&v);
	sbx_buf_free(&out);
	sbx_policy_free(&p);
}

/* The checker itself must catch what it is there to catch. */
static void
test_checker(void)
{
	static const struct {
		const char *text;
		bool good;
	} cases[] = {
		{ "(version 1)\n(allow default)\n", true },
		{ "(deny file-read* (subpath \"/a\\\"b\"))", true },
		{ "(allow network-outbound (remote tcp \"*:443\"))", true },
		{ "(allow file-read* (regex #\"^/dev/disk\"))", true },
		{ "(deny file-read* (subpath \"/a\")", false },
		{ "(deny file-read* (subpath \"/a))", false },
		{ "(deny file-reed* (subpath \"/a\"))", false },
		{ "(deny file-read* (subpth \"/a\"))", false },
		{ "(alow default)", false },
		{ "(version 1))", false },
	};

	for (size_t i = 0; i < SBX_ARRAY_LEN(cases); i++) {
		int line;
		const char *why;

		is_int(sbpl_well_formed(cases[i].text, &line, &why), cases[i].good,
		    "checker: case %zu is %s", i, cases[i].good ? "accepted" : "refused");
	}
}

int
main(void)
{
	golden_init();

	test_checker();
	test_quote();
	test_canon();
	test_refused();
	test_dedup();
	test_rules();
	test_shipped();
	test_edges();
	return done_testing();
}
