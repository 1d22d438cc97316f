/* The Seatbelt profile generator. The profile starts from (allow default)
 * and takes away, in an order where the last matching rule wins:
 *
 *   writes       deny all; give back the workdir, the private temp dir, rw
 *                mount sources and a few devices; no hard links or clones
 *   reads        (strict, allowlist) deny all but metadata; give back the
 *                system roots, [read] paths, mount sources, the workdir
 *   protect      .git, the built-in protect list and [protect] stay
 *                read-only (and cannot be made)
 *   hidden       the secret list and [deny]: no read, no write, in every
 *                mode; emitted after every allow so that nothing reopens it
 *   processes    signals within the sandbox only; no launchd job, no
 *                LaunchServices open, no Apple Event; no keychain,
 *                pasteboard or preference writes through their daemons
 *   network      off, connect ports, listen ports, DNS with outbound; the
 *                host's loopback denied last, then each loopback port
 *
 * Nothing here depends on the OS it runs on: the system roots are the
 * macOS ones, always, and paths are canonicalised the way macOS resolves
 * them (/tmp, /var and /etc are symlinks into /private there). */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fsplan.h"
#include "seatbelt.h"

/* The macOS counterparts of the strict roots (/usr /bin /sbin /lib* /etc
 * /opt and the Nix store): /System and /Library hold the frameworks, the
 * dyld cache and the Command Line Tools that /usr/bin's shims (python3,
 * git, clang) run; /Applications holds Xcode when it is the selected
 * developer dir; /opt holds Homebrew on Apple silicon and MacPorts. Never
 * /Users, /Volumes, /private/tmp or /private/var as a whole. A missing root
 * costs nothing, so the list does not depend on the machine. */
const char *const sbx_seatbelt_roots[] = {
	"/usr",
	"/bin",
	"/sbin",
	"/System",
	"/Library",
	"/Applications",
	"/opt",
	"/nix/store",
	"/private/etc",
	/* /etc/localtime and /usr/share/zoneinfo point here. */
	"/private/var/db/timezone",
	/* /bin/sh reads /private/var/select/sh to pick the shell it runs. */
	"/private/var/select",
	NULL,
};

/* Single files strict mode needs, besides the roots. "/", "/etc", "/tmp"
 * and "/var" are the symlinks themselves (readlink, ls -l /), written as
 * they are: sbx_seatbelt_canon() would turn them into their targets. */
static const char *const read_literals[] = {
	"/",
	"/etc",
	"/tmp",
	"/var",
	/* xcrun (behind /usr/bin/python3, git, clang) reads the selected
	 * developer directory here. */
	"/private/var/db/xcode_select_link",
	/* /etc/resolv.conf points here (resolvers that do not use
	 * mDNSResponder); harmless without network rules that allow DNS. */
	"/private/var/run/resolv.conf",
	NULL,
};

struct device {
	const char *path;
	bool tree; /* subpath, else literal */
	bool write;
};

/* Devices. Not all of /dev: the raw disks would be readable and writable
 * by root, which bypasses every path rule. */
static const struct device devices[] = {
	{ "/dev", false, false },
	{ "/dev/null", false, true },
	{ "/dev/zero", false, true },
	{ "/dev/random", false, false },
	{ "/dev/urandom", false, false },
	{ "/dev/tty", false, true },
	{ "/dev/dtracehelper", false, true },
	{ "/dev/autofs_nowait", false, false },
	{ "/dev/stdin", false, false },
	{ "/dev/stdout", false, false },
	{ "/dev/stderr", false, false },
	{ "/dev/fd", true, true },
};

#define TMPDIR_FILTER "(subpath (param \"" SBX_SEATBELT_TMPDIR_PARAM "\"))"

/* A path for an error message: control bytes as \xNN, cut to fit. */
static const char *
printable(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	for (const unsigned char *c = (const unsigned char *)s; *c && n + 5 < len; c++) {
		if (*c < 0x20 || *c == 0x7f)
			n += (size_t)snprintf(buf + n, len - n, "\\x%02x", *c);
		else
			buf[n++] = (char)*c;
	}
	buf[n] = '\0';
	return buf;
}

int
sbx_seatbelt_quote(struct sbx_buf *out, const char *s, struct sbx_err *err)
{
	char shown[200];

	/* SBPL strings are Scheme strings: only '"' and '\' need a backslash.
	 * Control characters could be escaped too, but how the profile reader
	 * takes each escape cannot be checked here; a path holding one is
	 * refused rather than guessed at. */
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return sbx_err_set(err, EINVAL,
			    "'%s' cannot be written in a Seatbelt profile: it holds the control "
			    "character 0x%02x",
			    printable(s, shown, sizeof(shown)), *c);
	sbx_buf_putc(out, '"');
	for (const char *c = s; *c; c++) {
		if (*c == '"' || *c == '\\')
			sbx_buf_putc(out, '\\');
		sbx_buf_putc(out, *c);
	}
	sbx_buf_putc(out, '"');
	return 0;
}

char *
sbx_seatbelt_canon(const char *path)
{
	static const char *const private_links[] = { "tmp", "var", "etc" };
	struct sbx_strv parts = { 0 };
	struct sbx_buf b = { 0 };

	if (path == NULL || path[0] != '/')
		return NULL;
	for (const char *c = path; *c != '\0';) {
		size_t n;

		while (*c == '/')
			c++;
		n = strcspn(c, "/");
		if (n == 0)
			break;
		if (n == 2 && c[0] == '.' && c[1] == '.') {
			if (parts.n > 0) {
				free(parts.v[--parts.n]);
				parts.v[parts.n] = NULL;
			}
		} else if (!(n == 1 && c[0] == '.')) {
			sbx_strv_push_take(&parts, sbx_xstrndup(c, n));
		}
		c += n;
	}
	for (size_t i = 0; parts.n > 0 && i < SBX_ARRAY_LEN(private_links); i++)
		if (strcmp(parts.v[0], private_links[i]) == 0)
			sbx_buf_puts(&b, "/private");
	for (size_t i = 0; i < parts.n; i++)
		sbx_buf_printf(&b, "/%s", parts.v[i]);
	if (b.len == 0)
		sbx_buf_putc(&b, '/');
	sbx_strv_free(&parts);
	return sbx_buf_steal(&b);
}

/* The filters of one rule, rendered, without duplicates. */
static void
add_filter(struct sbx_strv *f, char *filter)
{
	if (sbx_strv_contains(f, filter))
		free(filter);
	else
		sbx_strv_push_take(f, filter);
}

/* Adds (kind "path") with path written as it is (already canonical). */
static int
add_exact(struct sbx_strv *f, const char *kind, const char *path, struct sbx_err *err)
{
	struct sbx_buf b = { 0 };

	sbx_buf_printf(&b, "(%s ", kind);
	if (sbx_seatbelt_quote(&b, path, err) < 0) {
		sbx_buf_free(&b);
		return -1;
	}
	sbx_buf_putc(&b, ')');
	add_filter(f, sbx_buf_steal(&b));
	return 0;
}

/* The canonical form of path, or -1 with err when it has none. */
static int
canon(const char *path, char **out, struct sbx_err *err)
{
	char shown[200];

	*out = sbx_seatbelt_canon(path);
	if (*out == NULL)
		return sbx_err_set(err, EINVAL,
		    "'%s' cannot be written in a Seatbelt profile: it is not an absolute path",
		    printable(path ? path : "", shown, sizeof(shown)));
	return 0;
}

/* Adds (kind "canonical path"). */
static int
add_path(struct sbx_strv *f, const char *kind, const char *path, struct sbx_err *err)
{
	_cleanup_free_ char *c = NULL;

	if (canon(path, &c, err) < 0)
		return -1;
	return add_exact(f, kind, c, err);
}

/* Writes the rule "(head filter...)" and empties f; a rule without
 * filters is left out (it would match everything). */
static void
emit(struct sbx_buf *out, const char *head, struct sbx_strv *f)
{
	if (f->n == 1) {
		sbx_buf_printf(out, "(%s %s)\n", head, f->v[0]);
	} else if (f->n > 1) {
		sbx_buf_printf(out, "(%s", head);
		for (size_t i = 0; i < f->n; i++)
			sbx_buf_printf(out, "\n    %s", f->v[i]);
		sbx_buf_puts(out, ")\n");
	}
	sbx_strv_free(f);
}

/* Adds a (literal ...) for each directory strictly between root and path
 * (both canonical), when path lies strictly below root: renaming or
 * replacing one of them would move path out from under its rule. */
static int
add_ancestors(struct sbx_strv *f, const char *root, const char *path, struct sbx_err *err)
{
	_cleanup_free_ char *copy = NULL;
	size_t base = strlen(root);

	if (strcmp(root, "/") == 0 || !sbx_path_is_under(path, root) || path[base] == '\0')
		return 0;
	copy = sbx_xstrdup(path);
	for (char *c = copy + base + 1; (c = strchr(c, '/')) != NULL; c++) {
		*c = '\0';
		if (add_exact(f, "literal", copy, err) < 0)
			return -1;
		*c = '/';
	}
	return 0;
}

static int
section_writes(const struct sbx_fsplan *v, struct sbx_buf *out, struct sbx_err *err)
{
	struct sbx_strv f = { 0 };

	sbx_buf_puts(out,
	    "\n;; Writes: the workdir, the private temp dir, rw mount sources and the\n"
	    ";; devices programs write to. Nothing else.\n"
	    "(deny file-write*)\n");
	if (add_path(&f, "subpath", v->workdir, err) < 0)
		goto fail;
	add_filter(&f, sbx_xstrdup(TMPDIR_FILTER));
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].origin == SBX_FSO_MOUNT && v->v[i].disp == SBX_FSD_RW &&
		    add_path(&f, "subpath", v->v[i].path, err) < 0)
			goto fail;
	for (size_t i = 0; i < SBX_ARRAY_LEN(devices); i++)
		if (devices[i].write &&
		    add_exact(&f, devices[i].tree ? "subpath" : "literal", devices[i].path, err) <
			0)
			goto fail;
	emit(out, "allow file-write*", &f);
	sbx_buf_puts(out,
	    ";; A hard link or a clone is a second name for a file, which the path\n"
	    ";; rules above and below would not cover.\n"
	    "(deny file-link file-clone)\n");
	return 0;
fail:
	sbx_strv_free(&f);
	return -1;
}

/* The readable entries of the view: [read] paths and mount sources, each
 * at its own path. The system roots are left out: macOS has its own,
 * fixed (sbx_seatbelt_roots). */
static int
add_readable(const struct sbx_fsplan *v, struct sbx_strv *f, struct sbx_err *err)
{
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].origin == SBX_FSO_READ && add_path(f, "subpath", v->v[i].path, err) < 0)
			return -1;
	for (size_t i = 0; i < v->n; i++)
		if (v->v[i].origin == SBX_FSO_MOUNT &&
		    add_path(f, "subpath", v->v[i].path, err) < 0)
			return -1;
	return 0;
}

static int
section_reads(
    enum sbx_fs_mode mode, const struct sbx_fsplan *v, struct sbx_buf *out, struct sbx_err *err)
{
	struct sbx_strv f = { 0 };

	if (mode == SBX_FS_OPEN) {
		sbx_buf_puts(
		    out, "\n;; Reads (open): the whole disk, but for the hidden paths below.\n");
		return 0;
	}
	if (mode == SBX_FS_ALLOWLIST)
		sbx_buf_puts(out,
		    "\n;; Reads (allowlist): the system roots, [read] paths, mount sources, the\n"
		    ";; workdir and the private temp dir, to read and to exec. The metadata of\n"
		    ";; any path stays readable: lookups and getcwd() stat the directories.\n");
	else
		sbx_buf_puts(out,
		    "\n;; Reads (strict): the system roots, mount sources, the workdir and the\n"
		    ";; private temp dir, to read and to exec. The metadata of any path stays\n"
		    ";; readable: lookups and getcwd() stat the directories on the way.\n");
	sbx_buf_puts(out, "(deny file-read* process-exec)\n(allow file-read-metadata)\n");
	for (size_t i = 0; read_literals[i]; i++)
		if (add_exact(&f, "literal", read_literals[i], err) < 0)
			goto fail;
	for (size_t i = 0; sbx_seatbelt_roots[i]; i++)
		if (add_exact(&f, "subpath", sbx_seatbelt_roots[i], err) < 0)
			goto fail;
	for (size_t i = 0; i < SBX_ARRAY_LEN(devices); i++)
		if (add_exact(&f, devices[i].tree ? "subpath" : "literal", devices[i].path, err) <
		    0)
			goto fail;
	emit(out, "allow file-read* process-exec", &f);

	if (add_readable(v, &f, err) < 0)
		goto fail;
	emit(out, "allow file-read* process-exec", &f);

	if (add_path(&f, "subpath", v->workdir, err) < 0)
		goto fail;
	add_filter(&f, sbx_xstrdup(TMPDIR_FILTER));
	emit(out, "allow file-read* process-exec", &f);
	return 0;
fail:
	sbx_strv_free(&f);
	return -1;
}

/* The protected entries of the view, .git whole among them, and the
 * directories between each and the workdir (no rename, no swap). Seatbelt
 * judges names, so a placeholder (a name that does not exist) cannot be
 * made either. */
static int
section_protect(const struct sbx_fsplan *v, struct sbx_buf *out, struct sbx_err *err)
{
	struct sbx_strv f = { 0 }, up = { 0 };
	_cleanup_free_ char *wd = NULL;
	int rc = -1;

	if (canon(v->workdir, &wd, err) < 0)
		return -1;
	for (size_t i = 0; i < v->n; i++) {
		_cleanup_free_ char *c = NULL;

		if (v->v[i].disp != SBX_FSD_PROTECTED && v->v[i].disp != SBX_FSD_PLACEHOLDER)
			continue;
		if (canon(v->v[i].path, &c, err) < 0 || add_exact(&f, "subpath", c, err) < 0 ||
		    add_ancestors(&up, wd, c, err) < 0)
			goto out;
	}
	for (size_t i = 0; i < up.n; i++)
		add_filter(&f, sbx_xstrdup(up.v[i]));
	sbx_buf_puts(out,
	    "\n;; Read-only inside the workdir: .git, the built-in protect list and\n"
	    ";; [protect], and the directories between them and the workdir (no rename,\n"
	    ";; no swap).\n");
	emit(out, "deny file-write*", &f);
	rc = 0;
out:
	sbx_strv_free(&f);
	sbx_strv_free(&up);
	return rc;
}

/* The hidden entries of the view; a hidden path inside a writable entry
 * (the workdir is the home, say) keeps its parents in place. */
static int
section_hidden(const struct sbx_fsplan *v, struct sbx_buf *out, struct sbx_err *err)
{
	struct sbx_strv f = { 0 }, up = { 0 }, roots = { 0 };
	int rc = -1;

	for (size_t i = 0; i < v->n; i++) {
		char *c;

		if (v->v[i].disp != SBX_FSD_RW)
			continue;
		if (canon(v->v[i].path, &c, err) < 0)
			goto out;
		sbx_strv_push_take(&roots, c);
	}
	for (size_t i = 0; i < v->n; i++) {
		_cleanup_free_ char *c = NULL;

		if (v->v[i].disp != SBX_FSD_HIDDEN)
			continue;
		if (canon(v->v[i].path, &c, err) < 0 || add_exact(&f, "subpath", c, err) < 0)
			goto out;
		for (size_t k = 0; k < roots.n; k++)
			if (add_ancestors(&up, roots.v[k], c, err) < 0)
				goto out;
	}
	sbx_buf_puts(out,
	    "\n;; Hidden in every mode: the secret list and [deny], neither readable nor\n"
	    ";; writable. After every allow above, so that nothing reopens them.\n");
	emit(out, "deny file-read* file-write*", &f);
	if (up.n > 0) {
		sbx_buf_puts(out, ";; Their parents inside a writable tree stay where they are.\n");
		emit(out, "deny file-write*", &up);
	}
	sbx_buf_puts(out,
	    ";; Raw disks: whoever may open one (root) reads past every path rule.\n"
	    "(deny file-read* file-write*\n"
	    "    (regex #\"^/dev/disk\")\n"
	    "    (regex #\"^/dev/rdisk\"))\n");
	rc = 0;
out:
	sbx_strv_free(&f);
	sbx_strv_free(&up);
	sbx_strv_free(&roots);
	return rc;
}

static void
section_processes(struct sbx_buf *out)
{
	sbx_buf_puts(out,
	    "\n;; Processes: signals reach this sandbox only. No launchd job, no\n"
	    ";; LaunchServices open, no Apple Event: each would run code outside it.\n"
	    "(deny signal)\n"
	    "(allow signal\n"
	    "    (target self)\n"
	    "    (target same-sandbox))\n"
	    "(deny job-creation)\n"
	    "(deny lsopen)\n"
	    "(deny appleevent-send)\n"
	    ";; Services that would read or write for the sandbox outside it: the\n"
	    ";; keychains, the pasteboard, and preferences (cfprefsd writes them).\n"
	    "(deny user-preference-write)\n"
	    "(deny mach-lookup\n"
	    "    (global-name \"com.apple.SecurityServer\")\n"
	    "    (global-name \"com.apple.securityd.xpc\")\n"
	    "    (global-name \"com.apple.pasteboard.1\"))\n");
}

static void
add_ports(struct sbx_strv *f, const char *kind, const char *host, const struct sbx_ports *ports)
{
	for (size_t i = 0; i < ports->n; i++)
		add_filter(f, sbx_xasprintf("(%s tcp \"%s:%u\")", kind, host, ports->v[i]));
}

static int
section_network(const struct sbx_policy *p, const char *workdir,
    const struct sbx_seatbelt_opts *opts, struct sbx_buf *out, struct sbx_err *err)
{
	struct sbx_strv f = { 0 };
	_cleanup_free_ char *wd = NULL;
	struct sbx_buf tree = { 0 };
	bool outbound = p->network || p->connect.n > 0;

	if (p->network) {
		sbx_buf_puts(out,
		    "\n;; Network on: every address but the host's loopback (Seatbelt cannot\n"
		    ";; name this machine's other addresses). Only listed TCP ports may be\n"
		    ";; bound and served; host Unix sockets stay out of reach.\n"
		    "(deny network-bind (local tcp \"*:*\"))\n"
		    "(deny network-inbound (local tcp \"*:*\"))\n"
		    "(deny network-outbound (remote unix-socket (path-regex #\"^/\")))\n");
	} else {
		sbx_buf_puts(out,
		    "\n;; Network off: nothing but what is given back below.\n"
		    "(deny network*)\n");
		if (p->connect.n > 0) {
			sbx_buf_puts(out, ";; Outbound TCP to the connect ports.\n");
			add_ports(&f, "remote", "*", &p->connect);
			emit(out, "allow network-outbound", &f);
		}
	}
	if (p->listen.n > 0) {
		sbx_buf_puts(out, ";; Servers on the listen ports.\n");
		add_ports(&f, "local", "*", &p->listen);
		emit(out, "allow network-bind", &f);
		add_ports(&f, "local", "*", &p->listen);
		emit(out, "allow network-inbound", &f);
	}
	if (outbound)
		sbx_buf_puts(out,
		    ";; DNS through mDNSResponder, with outbound access only.\n"
		    "(allow network-outbound (literal \"/private/var/run/mDNSResponder\"))\n");

	/* The sandbox's own Unix sockets, in the trees it may write. */
	if (canon(workdir, &wd, err) < 0 || sbx_seatbelt_quote(&tree, wd, err) < 0) {
		sbx_buf_free(&tree);
		return -1;
	}
	sbx_buf_puts(
	    out, ";; Unix sockets made by the sandbox itself, in the workdir and temp dir.\n");
	add_filter(&f, sbx_xasprintf("(local unix-socket (subpath %s))", tree.data));
	add_filter(&f, sbx_xstrdup("(local unix-socket " TMPDIR_FILTER ")"));
	emit(out, "allow network-bind", &f);
	add_filter(&f, sbx_xasprintf("(remote unix-socket (subpath %s))", tree.data));
	add_filter(&f, sbx_xstrdup("(remote unix-socket " TMPDIR_FILTER ")"));
	emit(out, "allow network-outbound", &f);
	sbx_buf_free(&tree);

	sbx_buf_puts(out,
	    ";; The host's loopback, always, even with the network on; then each\n"
	    ";; loopback port given back.\n"
	    "(deny network-outbound (remote ip \"localhost:*\"))\n");
	add_ports(&f, "remote", "localhost", &p->loopback);
	emit(out, "allow network-outbound", &f);
	if (opts && opts->proxy_port) {
		sbx_buf_puts(
		    out, ";; The built-in proxy (--allow-host): Seatbelt matches no host names.\n");
		sbx_buf_printf(out, "(allow network-outbound (remote tcp \"localhost:%u\"))\n",
		    opts->proxy_port);
	}
	return 0;
}

int
sbx_seatbelt_lower(const struct sbx_fsplan *v, const struct sbx_policy *p,
    const struct sbx_seatbelt_opts *opts, struct sbx_buf *out, struct sbx_err *err)
{
	bool mounts = false;

	if (v->workdir == NULL)
		return sbx_err_set(err, EINVAL, "no workdir to write a Seatbelt profile for");
	for (size_t i = 0; i < v->n; i++)
		mounts |= v->v[i].origin == SBX_FSO_MOUNT;
	sbx_buf_printf(out,
	    ";; sbxrun: the Seatbelt profile of one run (fs %s, network %s).\n"
	    ";; Run as: " SBX_SEATBELT_EXEC " -D " SBX_SEATBELT_TMPDIR_PARAM
	    "=DIR -p PROFILE COMMAND...\n"
	    ";; where DIR is the run's private temp dir. The last matching rule wins.\n"
	    "(version 1)\n"
	    "\n"
	    ";; Start from allow and take away: deny-by-default would also cut off the\n"
	    ";; mach services that every program needs.\n"
	    "(allow default)\n",
	    sbx_fs_name(p->fs), p->network ? "on" : "off");
	if (mounts)
		sbx_buf_puts(out,
		    ";; [mounts]: Seatbelt cannot place a source inside the workdir; each one\n"
		    ";; is reachable at its own path instead, read-only or rw as declared.\n");
	if (section_writes(v, out, err) < 0 || section_reads(p->fs, v, out, err) < 0 ||
	    section_protect(v, out, err) < 0 || section_hidden(v, out, err) < 0)
		return -1;
	section_processes(out);
	return section_network(p, v->workdir, opts, out, err);
}

int
sbx_seatbelt_profile(const struct sbx_policy *p, const struct sbx_fsview *fs,
    const struct sbx_seatbelt_opts *opts, struct sbx_buf *out, struct sbx_err *err)
{
	struct sbx_fsplan v;
	int rc;

	if (fs->workdir == NULL)
		return sbx_err_set(err, EINVAL, "no workdir to write a Seatbelt profile for");
	/* Seatbelt judges names, but which names are protected depends on
	 * the host: a protected symlink's target is protected too. */
	if (sbx_fsplan_build(p, fs, opts ? opts->facts : NULL, &v, err) < 0)
		return -1;
	rc = sbx_seatbelt_lower(&v, p, opts, out, err);
	sbx_fsplan_free(&v);
	return rc;
}
