#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "hostmatch.h"
#include "policy.h"

#include "docker-argv.h"

static const char *const backend_names[] = {
	[SBX_BACKEND_AUTO] = "auto",
	[SBX_BACKEND_NAMESPACES] = "namespaces",
	[SBX_BACKEND_LANDLOCK] = "landlock",
	[SBX_BACKEND_SEATBELT] = "seatbelt",
	[SBX_BACKEND_DOCKER] = "docker",
	[SBX_BACKEND_NONE] = "none",
};

static const char *const fs_names[] = {
	[SBX_FS_STRICT] = "strict",
	[SBX_FS_ALLOWLIST] = "allowlist",
	[SBX_FS_OPEN] = "open",
};

static const char *const limit_names[] = {
	[SBX_LIMIT_MEMORY] = "memory",
	[SBX_LIMIT_PIDS] = "pids",
	[SBX_LIMIT_CPU] = "cpu",
	[SBX_LIMIT_FILE_SIZE] = "file_size",
	[SBX_LIMIT_OPEN_FILES] = "open_files",
};

const char *
sbx_backend_name(enum sbx_backend_id id)
{
	return backend_names[id];
}

int
sbx_backend_parse(const char *s, enum sbx_backend_id *out)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(backend_names); i++) {
		if (strcmp(s, backend_names[i]) == 0) {
			*out = (enum sbx_backend_id)i;
			return 0;
		}
	}
	return -1;
}

const char *
sbx_fs_name(enum sbx_fs_mode m)
{
	return fs_names[m];
}

const char *
sbx_limit_name(enum sbx_limit_id id)
{
	return limit_names[id];
}

void
sbx_policy_init(struct sbx_policy *p, const char *home)
{
	memset(p, 0, sizeof(*p));
	p->home = sbx_xstrdup(home ? home : "/");
	p->backend = SBX_BACKEND_AUTO;
	p->fs = SBX_FS_STRICT;
	p->network = false;
	p->protect_defaults = true;
	/* Limits by default (sbxrun.profile(5)), so that a fork bomb or a leak
	 * under the default policy stays off the host's pids and memory. */
	{
		long pages = sysconf(_SC_PHYS_PAGES), size = sysconf(_SC_PAGESIZE);
		uint64_t phys = pages > 0 && size > 0 ? (uint64_t)pages * (uint64_t)size : 0;

		p->limits[SBX_LIMIT_MEMORY] = (struct sbx_limit){
			.set = true, .builtin = true, .value = sbx_default_memory(phys)
		};
		p->limits[SBX_LIMIT_PIDS] =
		    (struct sbx_limit){ .set = true, .builtin = true, .value = SBX_DEFAULT_PIDS };
	}
}

uint64_t
sbx_default_memory(uint64_t phys)
{
	const uint64_t mib = 1024 * 1024;
	uint64_t v = phys / 2 / mib * mib;

	return v < 256 * mib ? 256 * mib : v;
}

void
sbx_policy_free(struct sbx_policy *p)
{
	free(p->home);
	free(p->workdir);
	free(p->trace);
	free(p->docker_image);
	free(p->docker_keep);
	sbx_strv_free(&p->read);
	sbx_strv_free(&p->deny);
	sbx_strv_free(&p->protect);
	for (size_t i = 0; i < p->nmounts; i++) {
		free(p->mounts[i].target);
		free(p->mounts[i].source);
	}
	free(p->mounts);
	free(p->listen.v);
	free(p->connect.v);
	free(p->loopback.v);
	sbx_strv_free(&p->proxy_allow);
	sbx_strv_free(&p->proxy_deny);
	sbx_strv_free(&p->proxy_methods);
	for (size_t i = 0; i < p->nenv; i++) {
		free(p->env[i].name);
		free(p->env[i].value);
	}
	free(p->env);
	sbx_strv_free(&p->env_pass);
	sbx_strv_free(&p->warnings);
	for (size_t i = 0; i < p->norigins; i++) {
		free(p->origins[i].section);
		free(p->origins[i].key);
		free(p->origins[i].item);
		free(p->origins[i].from);
	}
	free(p->origins);
	memset(p, 0, sizeof(*p));
}

/* Value parsers. */

static bool
is_blank(const char *s)
{
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

/* Reads the leading decimal digits of s into *n; returns the rest or NULL
 * when there are no digits or the number overflows. */
static const char *
parse_digits(const char *s, uint64_t *n)
{
	uint64_t v = 0;
	const char *p = s;

	for (; isdigit((unsigned char)*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (UINT64_MAX - d) / 10)
			return NULL;
		v = v * 10 + d;
	}
	if (p == s)
		return NULL;
	*n = v;
	return p;
}

int
sbx_parse_duration_ms(const char *s, uint64_t *out, struct sbx_err *err)
{
	static const struct {
		const char *suffix;
		uint64_t ms;
	} units[] = {
		{ "", 1000 },
		{ "ms", 1 },
		{ "s", 1000 },
		{ "m", 60000 },
		{ "h", 3600000 },
	};
	const char *rest;
	uint64_t n;

	if (s == NULL || is_blank(s))
		return sbx_err_set(err, EINVAL, "empty duration");
	rest = parse_digits(s, &n);
	if (rest == NULL)
		return sbx_err_set(
		    err, EINVAL, "bad duration '%s' (want a number with ms, s, m or h)", s);
	for (size_t i = 0; i < SBX_ARRAY_LEN(units); i++) {
		if (strcmp(rest, units[i].suffix) != 0)
			continue;
		/* Cap at about a year: anything longer is a typo, not a limit. */
		if (n > UINT64_C(366) * 24 * 3600000 / units[i].ms)
			return sbx_err_set(err, ERANGE, "duration '%s' is too long", s);
		*out = n * units[i].ms;
		return 0;
	}
	return sbx_err_set(err, EINVAL, "bad duration '%s' (want a number with ms, s, m or h)", s);
}

int
sbx_parse_size(const char *s, uint64_t *out, struct sbx_err *err)
{
	static const struct {
		const char *suffix;
		unsigned shift;
	} units[] = {
		{ "", 0 },
		{ "b", 0 },
		{ "k", 10 },
		{ "kb", 10 },
		{ "kib", 10 },
		{ "m", 20 },
		{ "mb", 20 },
		{ "mib", 20 },
		{ "g", 30 },
		{ "gb", 30 },
		{ "gib", 30 },
		{ "t", 40 },
		{ "tb", 40 },
		{ "tib", 40 },
	};
	char unit[8];
	const char *rest;
	size_t len;
	uint64_t n;

	if (s == NULL || is_blank(s))
		return sbx_err_set(err, EINVAL, "empty size");
	rest = parse_digits(s, &n);
	len = rest ? strlen(rest) : 0;
	if (rest == NULL || len >= sizeof(unit))
		return sbx_err_set(
		    err, EINVAL, "bad size '%s' (want a number with K, M, G or T)", s);
	for (size_t i = 0; i <= len; i++)
		unit[i] = (char)tolower((unsigned char)rest[i]);
	for (size_t i = 0; i < SBX_ARRAY_LEN(units); i++) {
		if (strcmp(unit, units[i].suffix) != 0)
			continue;
		if (n > (UINT64_MAX >> 1) >> units[i].shift)
			return sbx_err_set(err, ERANGE, "size '%s' is too large", s);
		*out = n << units[i].shift;
		return 0;
	}
	return sbx_err_set(err, EINVAL, "bad size '%s' (want a number with K, M, G or T)", s);
}

int
sbx_parse_count(const char *s, uint64_t max, uint64_t *out, struct sbx_err *err)
{
	const char *rest;
	uint64_t n;

	if (s == NULL || is_blank(s))
		return sbx_err_set(err, EINVAL, "empty number");
	rest = parse_digits(s, &n);
	if (rest == NULL || *rest != '\0')
		return sbx_err_set(err, EINVAL, "bad number '%s'", s);
	if (n > max)
		return sbx_err_set(
		    err, ERANGE, "number %s is out of range (at most %" PRIu64 ")", s, max);
	*out = n;
	return 0;
}

int
sbx_parse_bool(const char *s, bool *out, struct sbx_err *err)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	for (size_t i = 0; i < SBX_ARRAY_LEN(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*out = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*out = false;
			return 0;
		}
	}
	return sbx_err_set(err, EINVAL, "bad boolean '%s' (want yes or no)", s);
}

int
sbx_parse_port(const char *s, uint16_t *out, struct sbx_err *err)
{
	uint64_t n;

	if (sbx_parse_count(s, UINT64_MAX, &n, NULL) < 0)
		return sbx_err_set(err, EINVAL, "bad port '%s'", s);
	if (n < 1 || n > 65535)
		return sbx_err_set(err, ERANGE, "port %s is out of range (1-65535)", s);
	*out = (uint16_t)n;
	return 0;
}

bool
sbx_ports_contains(const struct sbx_ports *ports, uint16_t port)
{
	for (size_t i = 0; i < ports->n; i++)
		if (ports->v[i] == port)
			return true;
	return false;
}

void
sbx_ports_add(struct sbx_ports *ports, uint16_t port)
{
	size_t i;

	if (sbx_ports_contains(ports, port))
		return;
	ports->v = sbx_xreallocarray(ports->v, ports->n + 1, sizeof(*ports->v));
	for (i = ports->n; i > 0 && ports->v[i - 1] > port; i--)
		ports->v[i] = ports->v[i - 1];
	ports->v[i] = port;
	ports->n++;
}

int
sbx_parse_port_list(const char *s, struct sbx_ports *ports, struct sbx_err *err)
{
	_cleanup_free_ char *copy = sbx_xstrdup(s);
	struct sbx_ports parsed = { 0 };
	char *save = NULL, *tok;

	if (is_blank(s))
		return sbx_err_set(err, EINVAL, "empty port list");
	for (tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		uint16_t port;

		if (sbx_parse_port(tok, &port, err) < 0) {
			free(parsed.v);
			return -1;
		}
		sbx_ports_add(&parsed, port);
	}
	if (parsed.n == 0)
		return sbx_err_set(err, EINVAL, "empty port list '%s'", s);
	for (size_t i = 0; i < parsed.n; i++)
		sbx_ports_add(ports, parsed.v[i]);
	free(parsed.v);
	return 0;
}

int
sbx_parse_host_pattern(const char *s, char **out, struct sbx_err *err)
{
	_cleanup_free_ char *h = NULL;
	const char *label, *colon;
	uint16_t port = 0;
	size_t len;

	if (s == NULL || is_blank(s))
		return sbx_err_set(err, EINVAL, "empty host name");
	/* "[IPv6]" or "[IPv6]:PORT": the address as the proxy compares it
	 * (canonical text, hostmatch.c). */
	if (s[0] == '[') {
		const char *close = strchr(s, ']');
		char canon[SBX_HOST_MAX];

		if (close == NULL ||
		    !sbx_host_normalize(s, (size_t)(close - s) + 1, canon, sizeof(canon)))
			return sbx_err_set(err, EINVAL, "bad IPv6 address in host '%s'", s);
		if (close[1] == '\0') {
			*out = sbx_xstrdup(canon);
			return 0;
		}
		if (close[1] != ':' || sbx_parse_port(close + 2, &port, NULL) < 0)
			return sbx_err_set(err, EINVAL,
			    "bad port in host '%s' (want [IPv6] or [IPv6]:PORT, PORT 1-65535)", s);
		*out = sbx_xasprintf("%s:%u", canon, port);
		return 0;
	}
	/* "host:PORT": one port of that host. A name or an IPv4 address holds
	 * no colon, so the last one splits. */
	colon = strrchr(s, ':');
	if (colon != NULL) {
		if (sbx_parse_port(colon + 1, &port, NULL) < 0)
			return sbx_err_set(err, EINVAL,
			    "bad port in host '%s' (want HOST or HOST:PORT, PORT 1-65535)", s);
		h = sbx_xstrndup(s, (size_t)(colon - s));
	} else {
		h = sbx_xstrdup(s);
	}
	len = strlen(h);
	if (len > 1 && h[len - 1] == '.')
		h[--len] = '\0';
	if (len > 253)
		return sbx_err_set(err, EINVAL, "host name '%s' is too long", s);
	for (size_t i = 0; i < len; i++) {
		/* The proxy matches the names clients send, which are ASCII:
		 * an international name travels in its xn-- (punycode) form. */
		if ((unsigned char)h[i] >= 0x80)
			return sbx_err_set(err, EINVAL,
			    "bad host name '%s' (write an international name in its ASCII "
			    "xn-- form)",
			    s);
		h[i] = (char)tolower((unsigned char)h[i]);
	}
	label = h;
	if (sbx_str_has_prefix(h, "*."))
		label = h + 2;
	else if (strchr(h, '*') != NULL)
		return sbx_err_set(
		    err, EINVAL, "bad host pattern '%s' (want a name or *.suffix)", s);
	if (*label == '\0' || *label == '.')
		return sbx_err_set(err, EINVAL, "bad host name '%s'", s);
	for (const char *c = label; *c; c++) {
		if (!(isalnum((unsigned char)*c) || *c == '-' || *c == '.'))
			return sbx_err_set(err, EINVAL, "bad host name '%s'", s);
		if (*c == '.' && (c[1] == '.' || c[1] == '\0'))
			return sbx_err_set(err, EINVAL, "bad host name '%s'", s);
	}
	if (port != 0)
		*out = sbx_xasprintf("%s:%u", h, port);
	else
		*out = steal_ptr(&h);
	return 0;
}

int
sbx_parse_method_list(const char *s, struct sbx_strv *methods, struct sbx_err *err)
{
	_cleanup_free_ char *copy = NULL;
	struct sbx_strv parsed = { 0 };
	char *save = NULL;

	if (s == NULL)
		return sbx_err_set(err, EINVAL, "empty method list");
	copy = sbx_xstrdup(s);
	for (char *tok = strtok_r(copy, ", \t", &save); tok != NULL;
	     tok = strtok_r(NULL, ", \t", &save)) {
		size_t n = strlen(tok);

		if (n > 31) {
			sbx_strv_free(&parsed);
			return sbx_err_set(err, EINVAL, "method '%s' is too long", tok);
		}
		/* A method is an HTTP token; methods are written upper case
		 * (RFC 9110 9.1), and "get" here means GET. */
		for (char *c = tok; *c; c++) {
			if (!(isalnum((unsigned char)*c) || strchr("!#$%&'*+-.^_`|~", *c))) {
				sbx_strv_free(&parsed);
				return sbx_err_set(err, EINVAL, "bad method '%s'", tok);
			}
			*c = (char)toupper((unsigned char)*c);
		}
		if (strcmp(tok, "CONNECT") == 0) {
			sbx_strv_free(&parsed);
			return sbx_err_set(err, EINVAL,
			    "CONNECT is not a plain-HTTP method: tunnels (and SOCKS5) follow "
			    "the host and port rules alone");
		}
		if (!sbx_strv_contains(&parsed, tok))
			sbx_strv_push(&parsed, tok);
	}
	if (parsed.n == 0)
		return sbx_err_set(err, EINVAL, "empty method list '%s'", s);
	for (size_t i = 0; i < parsed.n; i++)
		if (!sbx_strv_contains(methods, parsed.v[i]))
			sbx_strv_push(methods, parsed.v[i]);
	sbx_strv_free(&parsed);
	return 0;
}

static char *
format_exact(uint64_t v, const uint64_t *mults, const char *const *suffixes, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (v != 0 && v % mults[i] == 0)
			return sbx_xasprintf("%" PRIu64 "%s", v / mults[i], suffixes[i]);
	return sbx_xasprintf("%" PRIu64, v);
}

char *
sbx_format_duration(uint64_t ms)
{
	static const uint64_t mults[] = { 3600000, 60000, 1000, 1 };
	static const char *const suffixes[] = { "h", "m", "s", "ms" };

	if (ms == 0)
		return sbx_xstrdup("0");
	return format_exact(ms, mults, suffixes, SBX_ARRAY_LEN(mults));
}

char *
sbx_format_size(uint64_t bytes)
{
	static const uint64_t mults[] = { 1ULL << 40, 1ULL << 30, 1ULL << 20, 1ULL << 10 };
	static const char *const suffixes[] = { "T", "G", "M", "K" };

	return format_exact(bytes, mults, suffixes, SBX_ARRAY_LEN(mults));
}

int
sbx_check_relative_path(const char *what, const char *path, struct sbx_err *err)
{
	const char *c = path;

	if (*path == '\0')
		return sbx_err_set(err, EINVAL, "%s is empty", what);
	if (*path == '/')
		return sbx_err_set(
		    err, EINVAL, "%s '%s' must be relative to the workdir", what, path);
	while (*c) {
		size_t n = strcspn(c, "/");

		if ((n == 2 && strncmp(c, "..", 2) == 0))
			return sbx_err_set(err, EINVAL, "%s '%s' may not contain '..'", what, path);
		c += n;
		while (*c == '/')
			c++;
	}
	return 0;
}

char *
sbx_relative_path_clean(const char *path)
{
	char *out = sbx_xmalloc(strlen(path) + 2);
	size_t len = 0;

	while (*path) {
		size_t n = strcspn(path, "/");

		if (n > 0 && !(n == 1 && path[0] == '.')) {
			if (len > 0)
				out[len++] = '/';
			memcpy(out + len, path, n);
			len += n;
		}
		path += n;
		while (*path == '/')
			path++;
	}
	if (len == 0)
		out[len++] = '.';
	out[len] = '\0';
	return out;
}

int
sbx_parse_mount_value(const char *value, char **source, bool *rw, struct sbx_err *err)
{
	size_t len = strlen(value);
	bool mode_rw = false;

	if (len > 3 && (sbx_str_has_suffix(value, ":ro") || sbx_str_has_suffix(value, ":rw"))) {
		mode_rw = sbx_str_has_suffix(value, ":rw");
		len -= 3;
	}
	if (len == 0 || is_blank(value))
		return sbx_err_set(err, EINVAL, "empty mount source");
	*source = sbx_xstrndup(value, len);
	*rw = mode_rw;
	return 0;
}

int
sbx_expand_home(const char *path, const char *home, char **out, struct sbx_err *err)
{
	if (path[0] != '~') {
		*out = sbx_xstrdup(path);
		return 0;
	}
	if (path[1] != '\0' && path[1] != '/')
		return sbx_err_set(
		    err, EINVAL, "'%s': only ~ and ~/ are expanded, not ~user", path);
	*out = sbx_xasprintf("%s%s", home, path + 1);
	return 0;
}

const struct sbx_mount *
sbx_policy_find_mount(const struct sbx_policy *p, const char *target)
{
	for (size_t i = 0; i < p->nmounts; i++)
		if (strcmp(p->mounts[i].target, target) == 0)
			return &p->mounts[i];
	return NULL;
}

/* Origins. */

static struct sbx_origin *
find_origin(const struct sbx_policy *p, const char *section, const char *key, const char *item)
{
	for (size_t i = 0; i < p->norigins; i++) {
		struct sbx_origin *o = &p->origins[i];

		if (strcmp(o->section, section) == 0 && strcmp(o->key, key) == 0 &&
		    (o->item == item || (o->item && item && strcmp(o->item, item) == 0)))
			return o;
	}
	return NULL;
}

const char *
sbx_policy_origin(
    const struct sbx_policy *p, const char *section, const char *key, const char *item)
{
	const struct sbx_origin *o = find_origin(p, section, key, item);

	return o ? o->from : NULL;
}

/* Records where the value being set came from (p->setting_from; nothing
 * when NULL). item NULL: the key's one value, whose origin is the last
 * place that set it. Else a list entry, which keeps every place that gave
 * it: removing one of them leaves the entry. */
static void
note_origin(struct sbx_policy *p, const char *section, const char *key, const char *item)
{
	struct sbx_origin *o;

	if (p->setting_from == NULL)
		return;
	o = find_origin(p, section, key, item);
	if (o == NULL) {
		p->origins = sbx_xreallocarray(p->origins, p->norigins + 1, sizeof(*p->origins));
		p->origins[p->norigins++] = (struct sbx_origin){
			.section = sbx_xstrdup(section),
			.key = sbx_xstrdup(key),
			.item = item ? sbx_xstrdup(item) : NULL,
			.from = sbx_xstrdup(p->setting_from),
		};
	} else if (item == NULL) {
		free(o->from);
		o->from = sbx_xstrdup(p->setting_from);
	} else {
		/* Listed there already: "a.ini:3", not "a.ini:3, a.ini:3". */
		size_t n = strlen(p->setting_from);
		char *joined;

		for (const char *f = o->from; f != NULL; f = strstr(f, ", ")) {
			if (f != o->from)
				f += 2;
			if (strncmp(f, p->setting_from, n) == 0 && (f[n] == '\0' || f[n] == ','))
				return;
		}
		joined = sbx_xasprintf("%s, %s", o->from, p->setting_from);
		free(o->from);
		o->from = joined;
	}
}

/* Setters: one per key, table-driven below. */

typedef int (*setter_fn)(struct sbx_policy *, const char *key, const char *value, struct sbx_err *);

static int
set_backend(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	if (sbx_backend_parse(value, &p->backend) < 0)
		return sbx_err_set(err, EINVAL,
		    "unknown backend '%s' (want auto, namespaces, landlock, seatbelt, docker or "
		    "none)",
		    value);
	return 0;
}

static int
set_fs(struct sbx_policy *p, SBX_UNUSED const char *key, const char *value,
    SBX_UNUSED struct sbx_err *err)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(fs_names); i++) {
		if (strcmp(value, fs_names[i]) == 0) {
			p->fs = (enum sbx_fs_mode)i;
			return 0;
		}
	}
	/* The one forgiving key, by design: never widen, fall back to strict. */
	p->fs = SBX_FS_STRICT;
	sbx_strv_push_take(
	    &p->warnings, sbx_xasprintf("unknown fs value '%s' replaced by strict", value));
	return 0;
}

static int
set_network(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	if (sbx_parse_bool(value, &p->network, NULL) < 0)
		return sbx_err_set(err, EINVAL, "bad network value '%s' (want on or off)", value);
	return 0;
}

static int
set_path(struct sbx_policy *p, char **slot, const char *value, struct sbx_err *err)
{
	char *path = NULL;

	if (sbx_expand_home(value, p->home, &path, err) < 0)
		return -1;
	free(*slot);
	*slot = path;
	return 0;
}

static int
set_workdir(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	return set_path(p, &p->workdir, value, err);
}

static int
set_trace(struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	return set_path(p, &p->trace, value, err);
}

static int
set_trace_all(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	return sbx_parse_bool(value, &p->trace_all, err);
}

static int
set_keep(struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	return sbx_parse_bool(value, &p->keep, err);
}

static int
set_allow_degraded(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	return sbx_parse_bool(value, &p->allow_degraded, err);
}

static int
set_protect_defaults(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	return sbx_parse_bool(value, &p->protect_defaults, err);
}

static int
set_timeout(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	return sbx_parse_duration_ms(value, &p->timeout_ms, err);
}

static int
set_limit(struct sbx_policy *p, const char *key, const char *value, struct sbx_err *err)
{
	enum sbx_limit_id id = SBX_LIMIT__COUNT;
	uint64_t v;
	int r;

	for (size_t i = 0; i < SBX_ARRAY_LEN(limit_names); i++)
		if (strcmp(key, limit_names[i]) == 0)
			id = (enum sbx_limit_id)i;
	switch (id) {
	case SBX_LIMIT_MEMORY:
	case SBX_LIMIT_FILE_SIZE: r = sbx_parse_size(value, &v, err); break;
	case SBX_LIMIT_CPU: r = sbx_parse_duration_ms(value, &v, err); break;
	case SBX_LIMIT_PIDS:
	case SBX_LIMIT_OPEN_FILES: r = sbx_parse_count(value, 1U << 30, &v, err); break;
	default: return sbx_err_set(err, EINVAL, "unknown limit '%s'", key);
	}
	if (r < 0)
		return -1;
	if (v == 0)
		return sbx_err_set(err, EINVAL, "%s must be greater than 0", key);
	p->limits[id].set = true;
	p->limits[id].builtin = false;
	p->limits[id].value = v;
	return 0;
}

static int
set_docker_image(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	for (const char *c = value; *c; c++)
		if (isspace((unsigned char)*c) || !isprint((unsigned char)*c))
			return sbx_err_set(err, EINVAL, "bad docker image name '%s'", value);
	if (value[0] == '-')
		return sbx_err_set(err, EINVAL, "bad docker image name '%s'", value);
	free(p->docker_image);
	p->docker_image = sbx_xstrdup(value);
	return 0;
}

static int
set_docker_keep(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	if (sbx_docker_name_check(value, err) < 0)
		return -1;
	free(p->docker_keep);
	p->docker_keep = sbx_xstrdup(value);
	return 0;
}

static int
add_path(struct sbx_policy *p, const char *section, struct sbx_strv *list, const char *value,
    struct sbx_err *err)
{
	char *path = NULL;

	if (sbx_expand_home(value, p->home, &path, err) < 0)
		return -1;
	note_origin(p, section, "path", path);
	if (sbx_strv_contains(list, path))
		free(path);
	else
		sbx_strv_push_take(list, path);
	return 0;
}

static int
add_read(struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	return add_path(p, "read", &p->read, value, err);
}

static int
add_deny(struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	return add_path(p, "deny", &p->deny, value, err);
}

static int
add_protect(
    struct sbx_policy *p, SBX_UNUSED const char *key, const char *value, struct sbx_err *err)
{
	char *path;

	if (sbx_check_relative_path("protected path", value, err) < 0)
		return -1;
	/* "hooks/" is the name "hooks": the checks after the run look a
	 * protected name up in its directory. */
	path = sbx_relative_path_clean(value);
	note_origin(p, "protect", "path", path);
	if (sbx_strv_contains(&p->protect, path))
		free(path);
	else
		sbx_strv_push_take(&p->protect, path);
	return 0;
}

static int
add_mount(struct sbx_policy *p, const char *key, const char *value, struct sbx_err *err)
{
	_cleanup_free_ char *raw = NULL;
	_cleanup_free_ char *target = NULL;
	char *source;
	bool rw;

	struct sbx_mount *same;

	if (sbx_check_relative_path("mount target", key, err) < 0)
		return -1;
	target = sbx_relative_path_clean(key);
	key = target;
	if (sbx_parse_mount_value(value, &raw, &rw, err) < 0)
		return -1;
	if (sbx_expand_home(raw, p->home, &source, err) < 0)
		return -1;
	/* A later profile or a flag mounting the same target overrides it,
	 * like any keyed setting; twice in one file is caught by the reader. */
	same = (struct sbx_mount *)sbx_policy_find_mount(p, key);
	if (same != NULL) {
		free(same->source);
		same->source = source;
		same->rw = rw;
		return 0;
	}
	p->mounts = sbx_xreallocarray(p->mounts, p->nmounts + 1, sizeof(*p->mounts));
	p->mounts[p->nmounts++] = (struct sbx_mount){
		.target = sbx_xstrdup(key),
		.source = source,
		.rw = rw,
	};
	return 0;
}

static int
add_ports(struct sbx_policy *p, const char *key, const char *value, struct sbx_err *err)
{
	struct sbx_ports *list = strcmp(key, "listen") == 0 ? &p->listen
	    : strcmp(key, "connect") == 0                   ? &p->connect
							    : &p->loopback;
	struct sbx_ports parsed = { 0 };

	if (sbx_parse_port_list(value, &parsed, err) < 0)
		return -1;
	for (size_t i = 0; i < parsed.n; i++) {
		char item[8];

		snprintf(item, sizeof(item), "%u", (unsigned)parsed.v[i]);
		note_origin(p, "ports", key, item);
		sbx_ports_add(list, parsed.v[i]);
	}
	free(parsed.v);
	return 0;
}

static int
add_allow(struct sbx_policy *p, const char *key, const char *value, struct sbx_err *err)
{
	struct sbx_strv *list = strcmp(key, "deny") == 0 ? &p->proxy_deny : &p->proxy_allow;
	char *host;

	if (strcmp(key, "methods") == 0) {
		if (sbx_parse_method_list(value, &p->proxy_methods, err) < 0)
			return -1;
		note_origin(p, "proxy", "methods", NULL);
		return 0;
	}
	if (sbx_parse_host_pattern(value, &host, err) < 0)
		return -1;
	note_origin(p, "proxy", key, host);
	if (sbx_strv_contains(list, host))
		free(host);
	else
		sbx_strv_push_take(list, host);
	return 0;
}

static bool
env_name_ok(const char *name)
{
	if (!(isalpha((unsigned char)*name) || *name == '_'))
		return false;
	for (const char *c = name; *c; c++)
		if (!(isalnum((unsigned char)*c) || *c == '_'))
			return false;
	return true;
}

static int
add_env(struct sbx_policy *p, const char *key, const char *value, struct sbx_err *err)
{
	if (strcmp(key, "pass") == 0) {
		if (!env_name_ok(value))
			return sbx_err_set(
			    err, EINVAL, "bad environment variable name '%s'", value);
		note_origin(p, "env", "pass", value);
		if (!sbx_strv_contains(&p->env_pass, value))
			sbx_strv_push(&p->env_pass, value);
		return 0;
	}
	if (!env_name_ok(key))
		return sbx_err_set(err, EINVAL, "bad environment variable name '%s'", key);
	for (size_t i = 0; i < p->nenv; i++) {
		if (strcmp(p->env[i].name, key) == 0) {
			free(p->env[i].value);
			p->env[i].value = sbx_xstrdup(value);
			return 0;
		}
	}
	p->env = sbx_xreallocarray(p->env, p->nenv + 1, sizeof(*p->env));
	p->env[p->nenv++] = (struct sbx_envvar){
		.name = sbx_xstrdup(key),
		.value = sbx_xstrdup(value),
	};
	return 0;
}

struct key_def {
	const char *section;
	const char *key; /* NULL: any key (mount targets, env names) */
	bool list;
	bool empty_ok;
	setter_fn set;
};

static const struct key_def keys[] = {
	{ "sandbox", "backend", false, false, set_backend },
	{ "sandbox", "fs", false, false, set_fs },
	{ "sandbox", "network", false, false, set_network },
	{ "sandbox", "workdir", false, false, set_workdir },
	{ "sandbox", "keep", false, false, set_keep },
	{ "sandbox", "allow_degraded", false, false, set_allow_degraded },
	{ "sandbox", "protect_defaults", false, false, set_protect_defaults },
	{ "sandbox", "timeout", false, false, set_timeout },
	{ "sandbox", "memory", false, false, set_limit },
	{ "sandbox", "pids", false, false, set_limit },
	{ "sandbox", "cpu", false, false, set_limit },
	{ "sandbox", "file_size", false, false, set_limit },
	{ "sandbox", "open_files", false, false, set_limit },
	{ "sandbox", "trace", false, false, set_trace },
	{ "sandbox", "trace_all", false, false, set_trace_all },
	{ "sandbox", "docker_image", false, false, set_docker_image },
	{ "sandbox", "docker_keep", false, false, set_docker_keep },
	{ "read", "path", true, false, add_read },
	{ "deny", "path", true, false, add_deny },
	{ "protect", "path", true, false, add_protect },
	{ "mounts", NULL, false, false, add_mount },
	{ "ports", "listen", true, false, add_ports },
	{ "ports", "connect", true, false, add_ports },
	{ "ports", "loopback", true, false, add_ports },
	{ "proxy", "allow", true, false, add_allow },
	{ "proxy", "deny", true, false, add_allow },
	{ "proxy", "methods", true, false, add_allow },
	{ "env", "pass", true, false, add_env },
	{ "env", NULL, false, true, add_env },
};

static const struct key_def *
find_key(const char *section, const char *key)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(keys); i++) {
		if (strcmp(keys[i].section, section) != 0)
			continue;
		if (keys[i].key == NULL || strcmp(keys[i].key, key) == 0)
			return &keys[i];
	}
	return NULL;
}

size_t
sbx_edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b), d;
	/* Three rows of the table: i-2, i-1 and i. */
	size_t *rows = sbx_xcalloc(3 * (lb + 1), sizeof(*rows));
	size_t *two = rows, *one = rows + lb + 1, *cur = rows + 2 * (lb + 1);

	for (size_t j = 0; j <= lb; j++)
		one[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t *t;

		cur[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			int ca = tolower((unsigned char)a[i - 1]),
			    cb = tolower((unsigned char)b[j - 1]);
			size_t cost = ca != cb, v = one[j - 1] + cost;

			if (one[j] + 1 < v)
				v = one[j] + 1;
			if (cur[j - 1] + 1 < v)
				v = cur[j - 1] + 1;
			if (i > 1 && j > 1 && ca == tolower((unsigned char)b[j - 2]) &&
			    tolower((unsigned char)a[i - 2]) == cb && two[j - 2] + 1 < v)
				v = two[j - 2] + 1;
			cur[j] = v;
		}
		t = two;
		two = one;
		one = cur;
		cur = t;
	}
	d = one[lb];
	free(rows);
	return d;
}

const char *
sbx_suggest(const char *word, const char *const *candidates, size_t n)
{
	const char *best = NULL;
	size_t best_d = SIZE_MAX;
	bool tie = false;

	for (size_t i = 0; i < n; i++) {
		size_t d = sbx_edit_distance(word, candidates[i]);
		size_t longer =
		    strlen(word) > strlen(candidates[i]) ? strlen(word) : strlen(candidates[i]);

		if (d > 2 || 3 * d > longer)
			continue;
		if (d < best_d) {
			best = candidates[i];
			best_d = d;
			tie = false;
		} else if (d == best_d && strcmp(best, candidates[i]) != 0) {
			tie = true;
		}
	}
	return tie ? NULL : best;
}

char *
sbx_policy_unknown_msg(const char *section, const char *key)
{
	const char *names[SBX_ARRAY_LEN(keys)];
	const char *hint, *elsewhere = NULL;
	size_t n = 0;

	if (key == NULL) {
		for (size_t i = 0; i < SBX_ARRAY_LEN(keys); i++)
			if (i == 0 || strcmp(keys[i].section, keys[i - 1].section) != 0)
				names[n++] = keys[i].section;
		hint = sbx_suggest(section, names, n);
		return hint
		    ? sbx_xasprintf("unknown section [%s]; did you mean [%s]?", section, hint)
		    : sbx_xasprintf("unknown section [%s]", section);
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(keys); i++) {
		if (keys[i].key == NULL)
			continue;
		if (strcmp(keys[i].section, section) == 0)
			names[n++] = keys[i].key;
		else if (strcmp(keys[i].key, key) == 0 && elsewhere == NULL)
			elsewhere = keys[i].section;
	}
	hint = sbx_suggest(key, names, n);
	if (hint)
		return sbx_xasprintf(
		    "unknown key '%s' in [%s]; did you mean '%s'?", key, section, hint);
	/* Right key, wrong section: "listen" under [sandbox]. */
	if (elsewhere)
		return sbx_xasprintf(
		    "unknown key '%s' in [%s]; it belongs in [%s]", key, section, elsewhere);
	return sbx_xasprintf("unknown key '%s' in [%s]", key, section);
}

bool
sbx_policy_section_known(const char *section)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(keys); i++)
		if (strcmp(keys[i].section, section) == 0)
			return true;
	return false;
}

int
sbx_policy_key_kind(const char *section, const char *key, bool *is_list)
{
	const struct key_def *k = find_key(section, key);

	if (k == NULL)
		return -1;
	*is_list = k->list;
	return 0;
}

/* Why s cannot be a key of a profile line (NULL: it can). A newline
 * would end the line, and what follows would be read as lines of their own
 * (a "[ports]" header, say); the other control bytes are blanks or
 * invisible. inih ends a key at the first '=' or ':', drops blanks at its
 * ends, reads a ';' after a blank as the start of a comment, and a line
 * starting with ';', '#' or '[' as a comment or a section header. */
static const char *
ini_key_problem(const char *s)
{
	size_t n = strlen(s);

	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return "holds a control character";
	if (strchr(s, '=') != NULL)
		return "holds '=', which ends a key";
	if (strchr(s, ':') != NULL)
		return "holds ':', which ends a key";
	if (n > 0 && (s[0] == ';' || s[0] == '#'))
		return "starts with a comment character";
	if (n > 0 && s[0] == '[')
		return "starts with '[', as a section header does";
	if (n > 0 && (s[0] == ' ' || s[n - 1] == ' '))
		return "starts or ends with a blank";
	for (const char *c = s + 1; n > 0 && *c; c++)
		if (*c == ';' && c[-1] == ' ')
			return "holds ' ;', which starts a comment";
	return NULL;
}

/* Why s cannot be the value of a profile line (NULL: it can). A value may
 * start with ';': inih keeps it when no blank comes before it on the
 * line, which is how it is written ("key =;v"). */
static const char *
ini_value_problem(const char *s)
{
	size_t n = strlen(s);

	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return "holds a control character";
	if (n > 0 && (s[0] == ' ' || s[n - 1] == ' '))
		return "starts or ends with a blank";
	for (const char *c = s + 1; n > 0 && *c; c++)
		if (*c == ';' && c[-1] == ' ')
			return "holds ' ;', which starts a comment";
	return NULL;
}

/* The first control byte of s, or 0. */
static unsigned char
control_byte(const char *s)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		if (*c < 0x20 || *c == 0x7f)
			return *c;
	return 0;
}

/* What every key and value must be, from a profile and from a flag alike.
 * A free key (a mount target, an environment variable name) must be one a
 * profile line can hold, since --print-policy writes it as one. A value
 * must hold no control byte (so the printed profile gets no line it did
 * not have); a flag's value with blanks at its ends or " ;" inside is
 * taken as it is, and --print-policy refuses to print it (see
 * sbx_policy_to_ini). */
static int
check_ini_text(const struct key_def *k, const char *section, const char *key, const char *value,
    struct sbx_err *err)
{
	const char *what = strcmp(section, "mounts") == 0 ? "mount target"
	    : strcmp(section, "env") == 0                 ? "environment variable name"
							  : "key";
	const char *why = k->key == NULL ? ini_key_problem(key) : NULL;
	unsigned char c;

	if (why != NULL && (c = control_byte(key)) != 0) {
		_cleanup_free_ char *shown = sbx_str_escaped(key);

		return sbx_err_set(err, EINVAL,
		    "%s '%s' holds the control character 0x%02x, which a profile line cannot hold",
		    what, shown, c);
	}
	if (why != NULL)
		return sbx_err_set(
		    err, EINVAL, "%s '%s' %s in a profile line, so it is refused", what, key, why);
	if ((c = control_byte(value)) != 0) {
		_cleanup_free_ char *shown = sbx_str_escaped(value);

		return sbx_err_set(err, EINVAL,
		    "value '%s' holds the control character 0x%02x, which a profile line cannot "
		    "hold",
		    shown, c);
	}
	return 0;
}

int
sbx_policy_set(struct sbx_policy *p, const char *section, const char *key, const char *value,
    struct sbx_err *err)
{
	return sbx_policy_set_from(p, section, key, value, NULL, err);
}

static int
set_checked(struct sbx_policy *p, const char *section, const char *key, const char *value,
    struct sbx_err *err)
{
	const struct key_def *k;

	k = find_key(section, key);
	if (k == NULL) {
		_cleanup_free_ char *msg =
		    sbx_policy_unknown_msg(section, sbx_policy_section_known(section) ? key : NULL);

		return sbx_err_set(err, EINVAL, "%s", msg);
	}
	if (check_ini_text(k, section, key, value, err) < 0)
		return -1;
	if (!k->empty_ok && is_blank(value))
		return sbx_err_set(err, EINVAL, "empty value for '%s' in [%s]", key, section);
	if (k->set(p, key, value, err) < 0)
		return -1;
	/* List entries were noted by their setters, one by one. */
	if (!k->list)
		note_origin(p, section, key, NULL);
	return 0;
}

int
sbx_policy_set_from(struct sbx_policy *p, const char *section, const char *key, const char *value,
    const char *from, struct sbx_err *err)
{
	int r;

	p->setting_from = from;
	r = set_checked(p, section, key, value, err);
	p->setting_from = NULL;
	return r;
}

int
sbx_policy_check(const struct sbx_policy *p, struct sbx_err *err)
{
	/* A read path under strict would be parsed and then ignored. */
	if (p->read.n > 0 && p->fs == SBX_FS_STRICT)
		return sbx_err_set(err, EINVAL,
		    "read paths ([read] path, -r: %s) need fs = allowlist (--fs allowlist); "
		    "fs is strict",
		    p->read.v[0]);
	/* Without an allow list no proxy runs: a deny list or methods would
	 * be parsed and then ignored. */
	if (p->proxy_allow.n == 0 && (p->proxy_deny.n > 0 || p->proxy_methods.n > 0))
		return sbx_err_set(err, EINVAL,
		    "%s needs an allow list ([proxy] allow, --allow-host): without one no proxy "
		    "runs",
		    p->proxy_deny.n > 0 ? "[proxy] deny (--deny-host)"
					: "[proxy] methods (--allow-method)");
	if (p->trace_all && p->trace == NULL)
		return sbx_err_set(err, EINVAL,
		    "trace_all (--trace-all) needs a trace ([sandbox] trace, --trace)");
	for (size_t i = 0; i < p->loopback.n; i++)
		if (sbx_ports_contains(&p->listen, p->loopback.v[i]))
			return sbx_err_set(err, EINVAL,
			    "port %u is both a listen and a loopback port ([ports] listen and "
			    "loopback, --listen and --loopback)",
			    p->loopback.v[i]);
	return 0;
}

/* Serialisation back to a profile. */

struct ini_writer {
	struct sbx_buf b;
	struct sbx_err *err;
	bool failed;
	const char *section;
	const struct sbx_policy *origins; /* NULL: no origin comments */
};

/* Where an origin comment starts, when the line is shorter. */
#define ORIGIN_COLUMN 32

/* Ends the line just written at start with the origin comment of
 * (section, key, item). The comment is " ; FROM" after at least one blank:
 * inih cuts a value at a ';' that follows a blank, and the values written
 * hold no " ;" (ini_value_problem), so the value reads back whole. A
 * control byte in FROM (a file name can hold any) is written as \xNN, so
 * the comment stays on its line. */
static void
ini_origin(struct ini_writer *w, size_t start, const char *key, const char *item)
{
	const char *from;
	_cleanup_free_ char *shown = NULL;
	size_t len = w->b.len - start;

	if (w->origins == NULL) {
		sbx_buf_putc(&w->b, '\n');
		return;
	}
	from = sbx_policy_origin(w->origins, w->section, key, item);
	if (from == NULL && item != NULL) {
		sbx_buf_putc(&w->b, '\n');
		return;
	}
	shown = sbx_str_escaped(from ? from : "built-in");
	sbx_buf_printf(
	    &w->b, "%*s ; %s\n", len < ORIGIN_COLUMN ? (int)(ORIGIN_COLUMN - len) : 0, "", shown);
}

/* Writes "key = value" for a key's one value (item NULL) or a list entry. */
static void
ini_kv_item(struct ini_writer *w, const char *key, const char *item, const char *value)
{
	const char *why;
	size_t start = w->b.len;

	if (w->failed)
		return;
	if ((why = ini_key_problem(key)) != NULL || (why = ini_value_problem(value)) != NULL) {
		w->failed = true;
		sbx_err_set(w->err, EINVAL,
		    "[%s] %s = '%s' cannot be written in a profile: the %s %s", w->section, key,
		    value, ini_key_problem(key) ? "key" : "value", why);
		return;
	}
	/* A ';' right after the '=' is part of the value for inih; after a
	 * blank it would start a comment. */
	sbx_buf_printf(&w->b, value[0] == ';' ? "%s =%s" : "%s = %s", key, value);
	ini_origin(w, start, key, item);
}

static void
ini_kv(struct ini_writer *w, const char *key, const char *value)
{
	ini_kv_item(w, key, NULL, value);
}

static void
ini_section(struct ini_writer *w, const char *section)
{
	w->section = section;
	sbx_buf_printf(&w->b, "%s[%s]\n", w->b.len ? "\n" : "", section);
}

/* Ports go on one line; with origins, a run of ports of one origin does. */
static void
ini_ports(struct ini_writer *w, const char *key, const struct sbx_ports *ports)
{
	for (size_t i = 0; i < ports->n;) {
		size_t start = w->b.len, j = i;
		char item[8];
		const char *from;

		snprintf(item, sizeof(item), "%u", (unsigned)ports->v[i]);
		from = w->origins ? sbx_policy_origin(w->origins, w->section, key, item) : NULL;
		sbx_buf_printf(&w->b, "%s = ", key);
		for (; j < ports->n; j++) {
			char next[8];
			const char *f;

			snprintf(next, sizeof(next), "%u", (unsigned)ports->v[j]);
			f = w->origins ? sbx_policy_origin(w->origins, w->section, key, next)
				       : NULL;
			if (j > i && !(f == from || (f && from && strcmp(f, from) == 0)))
				break;
			sbx_buf_printf(&w->b, "%s%s", j > i ? ", " : "", next);
		}
		ini_origin(w, start, key, item);
		i = j;
	}
}

static void
ini_list(struct ini_writer *w, const char *section, const char *key, const struct sbx_strv *sv)
{
	if (sv->n == 0)
		return;
	ini_section(w, section);
	for (size_t i = 0; i < sv->n; i++)
		ini_kv_item(w, key, sv->v[i], sv->v[i]);
}

static char *
to_ini(const struct sbx_policy *p, bool origins, struct sbx_err *err)
{
	struct ini_writer w = { .err = err, .origins = origins ? p : NULL };

	if (origins)
		sbx_buf_puts(&w.b,
		    "; After each value: the profile line or the flag it came from, "
		    "or built-in.\n");
	ini_section(&w, "sandbox");
	ini_kv(&w, "backend", sbx_backend_name(p->backend));
	ini_kv(&w, "fs", sbx_fs_name(p->fs));
	ini_kv(&w, "network", p->network ? "on" : "off");
	if (p->workdir)
		ini_kv(&w, "workdir", p->workdir);
	ini_kv(&w, "keep", p->keep ? "yes" : "no");
	ini_kv(&w, "allow_degraded", p->allow_degraded ? "yes" : "no");
	ini_kv(&w, "protect_defaults", p->protect_defaults ? "yes" : "no");
	{
		_cleanup_free_ char *t = sbx_format_duration(p->timeout_ms);

		ini_kv(&w, "timeout", t);
	}
	for (size_t i = 0; i < SBX_LIMIT__COUNT; i++) {
		_cleanup_free_ char *v = NULL;

		if (!p->limits[i].set)
			continue;
		switch ((enum sbx_limit_id)i) {
		case SBX_LIMIT_MEMORY:
		case SBX_LIMIT_FILE_SIZE: v = sbx_format_size(p->limits[i].value); break;
		case SBX_LIMIT_CPU: v = sbx_format_duration(p->limits[i].value); break;
		default: v = sbx_xasprintf("%" PRIu64, p->limits[i].value); break;
		}
		ini_kv(&w, limit_names[i], v);
	}
	if (p->trace)
		ini_kv(&w, "trace", p->trace);
	if (p->trace_all)
		ini_kv(&w, "trace_all", "yes");
	if (p->docker_image)
		ini_kv(&w, "docker_image", p->docker_image);
	if (p->docker_keep)
		ini_kv(&w, "docker_keep", p->docker_keep);

	ini_list(&w, "read", "path", &p->read);
	ini_list(&w, "deny", "path", &p->deny);
	if (p->nmounts > 0) {
		ini_section(&w, "mounts");
		for (size_t i = 0; i < p->nmounts; i++) {
			_cleanup_free_ char *v = sbx_xasprintf(
			    "%s:%s", p->mounts[i].source, p->mounts[i].rw ? "rw" : "ro");

			ini_kv(&w, p->mounts[i].target, v);
		}
	}
	if (p->listen.n || p->connect.n || p->loopback.n) {
		ini_section(&w, "ports");
		ini_ports(&w, "listen", &p->listen);
		ini_ports(&w, "connect", &p->connect);
		ini_ports(&w, "loopback", &p->loopback);
	}
	if (p->proxy_allow.n || p->proxy_deny.n || p->proxy_methods.n) {
		ini_section(&w, "proxy");
		for (size_t i = 0; i < p->proxy_allow.n; i++)
			ini_kv_item(&w, "allow", p->proxy_allow.v[i], p->proxy_allow.v[i]);
		for (size_t i = 0; i < p->proxy_deny.n; i++)
			ini_kv_item(&w, "deny", p->proxy_deny.v[i], p->proxy_deny.v[i]);
		if (p->proxy_methods.n) {
			struct sbx_buf m = { 0 };

			for (size_t i = 0; i < p->proxy_methods.n; i++)
				sbx_buf_printf(&m, "%s%s", i ? ", " : "", p->proxy_methods.v[i]);
			ini_kv(&w, "methods", m.data);
			free(m.data);
		}
	}
	ini_list(&w, "protect", "path", &p->protect);
	if (p->nenv > 0 || p->env_pass.n > 0) {
		ini_section(&w, "env");
		for (size_t i = 0; i < p->nenv; i++)
			ini_kv(&w, p->env[i].name, p->env[i].value);
		for (size_t i = 0; i < p->env_pass.n; i++)
			ini_kv_item(&w, "pass", p->env_pass.v[i], p->env_pass.v[i]);
	}
	if (w.failed) {
		sbx_buf_free(&w.b);
		return NULL;
	}
	return sbx_buf_steal(&w.b);
}

char *
sbx_policy_to_ini(const struct sbx_policy *p, struct sbx_err *err)
{
	return to_ini(p, false, err);
}

char *
sbx_policy_to_ini_origins(const struct sbx_policy *p, struct sbx_err *err)
{
	return to_ini(p, true, err);
}
