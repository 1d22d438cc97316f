#include "config.h"

#ifdef __APPLE__
#include <ctype.h>
#endif
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "diag.h"
#include "json.h"

static const char *const rule_names[] = {
	[SBX_RULE_FS] = "fs",
	[SBX_RULE_DENY] = "deny",
	[SBX_RULE_PROTECT] = "protect",
	[SBX_RULE_MOUNTS] = "mounts",
	[SBX_RULE_NETWORK] = "network",
	[SBX_RULE_LISTEN] = "listen",
	[SBX_RULE_CONNECT] = "connect",
	[SBX_RULE_LOOPBACK] = "loopback",
	[SBX_RULE_PROXY] = "proxy",
	[SBX_RULE_PROCESSES] = "processes",
	[SBX_RULE_TIMEOUT] = "timeout",
	[SBX_RULE_MEMORY] = "memory",
	[SBX_RULE_PIDS] = "pids",
	[SBX_RULE_CPU] = "cpu",
	[SBX_RULE_FILE_SIZE] = "file_size",
	[SBX_RULE_OPEN_FILES] = "open_files",
};

const char *
sbx_rule_name(enum sbx_rule r)
{
	return rule_names[r];
}

enum sbx_rule
sbx_limit_rule(enum sbx_limit_id id)
{
	static const enum sbx_rule map[] = {
		[SBX_LIMIT_MEMORY] = SBX_RULE_MEMORY,
		[SBX_LIMIT_PIDS] = SBX_RULE_PIDS,
		[SBX_LIMIT_CPU] = SBX_RULE_CPU,
		[SBX_LIMIT_FILE_SIZE] = SBX_RULE_FILE_SIZE,
		[SBX_LIMIT_OPEN_FILES] = SBX_RULE_OPEN_FILES,
	};

	return map[id];
}

uint32_t
sbx_rules_requested(const struct sbx_policy *p)
{
	uint32_t r = SBX_RULE_BIT(SBX_RULE_FS) | SBX_RULE_BIT(SBX_RULE_DENY) |
	    SBX_RULE_BIT(SBX_RULE_PROTECT) | SBX_RULE_BIT(SBX_RULE_NETWORK) |
	    SBX_RULE_BIT(SBX_RULE_PROCESSES);

	if (p->nmounts > 0)
		r |= SBX_RULE_BIT(SBX_RULE_MOUNTS);
	if (p->listen.n > 0)
		r |= SBX_RULE_BIT(SBX_RULE_LISTEN);
	if (p->connect.n > 0)
		r |= SBX_RULE_BIT(SBX_RULE_CONNECT);
	if (p->loopback.n > 0)
		r |= SBX_RULE_BIT(SBX_RULE_LOOPBACK);
	if (p->proxy_allow.n > 0)
		r |= SBX_RULE_BIT(SBX_RULE_PROXY);
	if (p->timeout_ms > 0)
		r |= SBX_RULE_BIT(SBX_RULE_TIMEOUT);
	/* A default limit is held where the backend can, never asked for:
	 * no backend is refused for lacking it. */
	for (size_t i = 0; i < SBX_LIMIT__COUNT; i++)
		if (p->limits[i].set && !p->limits[i].builtin)
			r |= SBX_RULE_BIT(sbx_limit_rule((enum sbx_limit_id)i));
	return r;
}

void
sbx_report_init(struct sbx_report *r)
{
	memset(r, 0, sizeof(*r));
	r->backend = "none";
	r->status = 125;
}

void
sbx_report_set_wait_status(struct sbx_report *r, int st)
{
	if (WIFEXITED(st)) {
		r->exited = true;
		r->exit_code = WEXITSTATUS(st);
		r->signal = 0;
	} else if (WIFSIGNALED(st)) {
		r->exited = false;
		r->signal = WTERMSIG(st);
	}
}

void
sbx_report_free(struct sbx_report *r)
{
	sbx_strv_free(&r->warnings);
	free(r->workdir);
	free(r->error);
	free(r->trace_path);
	memset(r, 0, sizeof(*r));
}

/* The length of the longest prefix of s, at most max bytes, that does not
 * end inside a UTF-8 sequence. */
static size_t
utf8_cut(const char *s, size_t max)
{
	size_t n = max;

	/* Back over continuation bytes to the lead byte of the last
	 * sequence, and drop it too if the sequence runs past max. */
	while (n > 0 && ((unsigned char)s[n] & 0xc0) == 0x80)
		n--;
	return n;
}

void
sbx_denied_add(struct sbx_denied_list *l, const char *kind, const char *what)
{
	struct sbx_denied *d;
	size_t len;

	if (l->n >= SBX_DENIED_MAX)
		return;
	d = &l->v[l->n++];
	snprintf(d->kind, sizeof(d->kind), "%s", kind ? kind : "?");
	what = what ? what : "";
	len = strlen(what);
	if (len <= SBX_DENIED_WHAT_MAX) {
		memcpy(d->what, what, len + 1);
		return;
	}
	len = utf8_cut(what, SBX_DENIED_WHAT_MAX);
	memcpy(d->what, what, len);
	memcpy(d->what + len, "...", 4);
}

void
sbx_denied_call(char *out, size_t size, const char *call, const char *path)
{
	size_t cl = strlen(call), pl = strlen(path), room;
	const char *tail;

	if (cl + 1 + pl < size || cl + 5 >= size) {
		snprintf(out, size, "%s %s", call, path);
		return;
	}
	room = size - 1 - (cl + 4); /* "CALL ..." then the tail */
	tail = path + pl - room;
	/* Forward over continuation bytes: the tail starts a character. */
	while (*tail && ((unsigned char)*tail & 0xc0) == 0x80)
		tail++;
	snprintf(out, size, "%s ...%s", call, tail);
}

char *
sbx_diag_name(const char *s, size_t n)
{
	const size_t head_max = SBX_DIAG_NAME_MAX / 2, tail_max = SBX_DIAG_NAME_MAX - head_max - 3;
	size_t head, tail;

	if (n <= SBX_DIAG_NAME_MAX)
		return sbx_xasprintf("%.*s", (int)n, s);
	head = utf8_cut(s, head_max);
	tail = n - tail_max;
	while (tail < n && ((unsigned char)s[tail] & 0xc0) == 0x80)
		tail++;
	return sbx_xasprintf("%.*s...%.*s", (int)head, s, (int)(n - tail), s + tail);
}

void
sbx_denied_printable(char *out, size_t size, const char *s)
{
	size_t o = 0;

	for (; s && *s; s++) {
		unsigned char c = (unsigned char)*s;
		char one[5];
		size_t n;

		if (c >= 0x20 && c < 0x7f && c != '\\')
			one[0] = (char)c, one[1] = '\0', n = 1;
		else
			n = (size_t)snprintf(one, sizeof(one), "\\x%02x", c);
		if (o + n + 4 > size) {
			memcpy(out + o, "...", 4);
			return;
		}
		memcpy(out + o, one, n);
		o += n;
	}
	out[o] = '\0';
}

const char *
sbx_report_isolation(const struct sbx_report *r)
{
	if (strcmp(r->backend, "none") == 0 || r->enforced == 0)
		return "none";
	/* Refused before anything ran: no barrier was ever in force
	 * (unenforced still names what the backend could not hold). */
	if (r->status == 125 && !r->exited && r->signal == 0)
		return "none";
	if ((r->requested & ~r->enforced) != 0)
		return "partial";
	return "full";
}

const char *
sbx_signal_name(int sig)
{
	static char buf[16];
#ifdef __APPLE__
	/* macOS has no sigabbrev_np: sys_signame has the names, in lower case. */
	const char *abbrev = sig > 0 && sig < NSIG ? sys_signame[sig] : NULL;
#else
	const char *abbrev = sigabbrev_np(sig);
#endif

	if (abbrev == NULL) {
		snprintf(buf, sizeof(buf), "SIG%d", sig);
		return buf;
	}
	snprintf(buf, sizeof(buf), "SIG%s", abbrev);
#ifdef __APPLE__
	for (char *s = buf + 3; *s != '\0'; s++)
		*s = (char)toupper((unsigned char)*s);
#endif
	return buf;
}

static void
json_ports(struct sbx_json *j, const char *key, const struct sbx_ports *ports)
{
	sbx_json_key(j, key);
	sbx_json_arr_begin(j);
	for (size_t i = 0; ports && i < ports->n; i++)
		sbx_json_uint(j, ports->v[i]);
	sbx_json_arr_end(j);
}

static void
json_limits(struct sbx_json *j, const struct sbx_report *r, const struct sbx_policy *p)
{
	static const char *const unit[] = {
		[SBX_LIMIT_MEMORY] = "bytes",
		[SBX_LIMIT_PIDS] = "count",
		[SBX_LIMIT_CPU] = "ms",
		[SBX_LIMIT_FILE_SIZE] = "bytes",
		[SBX_LIMIT_OPEN_FILES] = "count",
	};

	sbx_json_key(j, "limits");
	sbx_json_obj_begin(j);
	if (p && p->timeout_ms > 0) {
		sbx_json_key(j, "timeout");
		sbx_json_obj_begin(j);
		sbx_json_key(j, "ms");
		sbx_json_uint(j, p->timeout_ms);
		sbx_json_key(j, "by");
		sbx_json_str(j, r->enforced & SBX_RULE_BIT(SBX_RULE_TIMEOUT) ? "supervisor" : NULL);
		sbx_json_obj_end(j);
	}
	for (size_t i = 0; p && i < SBX_LIMIT__COUNT; i++) {
		if (!p->limits[i].set)
			continue;
		sbx_json_key(j, sbx_limit_name((enum sbx_limit_id)i));
		sbx_json_obj_begin(j);
		sbx_json_key(j, unit[i]);
		/* What is enforced: RLIMIT_CPU counts whole seconds, every
		 * backend's (sbxrun(1), LIMITS). */
		sbx_json_uint(j,
		    i == SBX_LIMIT_CPU ? (p->limits[i].value + 999) / 1000 * 1000
				       : p->limits[i].value);
		sbx_json_key(j, "by");
		/* A default is not among the requested rules: the limits plan
		 * leaves its "by" unset where the backend cannot hold it. */
		sbx_json_str(j,
		    p->limits[i].builtin ||
			    (r->enforced & SBX_RULE_BIT(sbx_limit_rule((enum sbx_limit_id)i)))
			? r->limits[i].by
			: NULL);
		if (r->limits[i].peak > 0) {
			sbx_json_key(j, "peak");
			sbx_json_uint(j, r->limits[i].peak);
		}
		sbx_json_obj_end(j);
	}
	sbx_json_obj_end(j);
}

static void
json_layers(struct sbx_json *j, const struct sbx_layers *l)
{
	static const struct {
		const char *name;
		size_t off;
	} flags[] = {
#define F(x) { #x, offsetof(struct sbx_layers, x) }
		F(userns),
		F(mountns),
		F(pidns),
		F(netns),
		F(ipcns),
		F(utsns),
		F(cgroupns),
		F(seccomp),
		F(seccomp_notify),
		F(no_new_privs),
		F(caps_dropped),
		F(new_session),
		F(subreaper),
		F(cgroup),
		F(seatbelt),
#undef F
	};

	sbx_json_key(j, "layers");
	sbx_json_obj_begin(j);
	for (size_t i = 0; i < SBX_ARRAY_LEN(flags); i++) {
		sbx_json_key(j, flags[i].name);
		sbx_json_bool(j, *(const bool *)((const char *)l + flags[i].off));
	}
	sbx_json_key(j, "landlock_abi");
	sbx_json_int(j, l->landlock_abi);
	sbx_json_obj_end(j);
}

static char *
render(const struct sbx_report *r, const struct sbx_policy *p, const struct sbx_strv *warnings)
{
	struct sbx_json j = { 0 };
	uint32_t unenforced = r->requested & ~r->enforced;

	sbx_json_obj_begin(&j);
	sbx_json_key(&j, "version");
	sbx_json_str(&j, PACKAGE_VERSION);
	sbx_json_key(&j, "backend");
	sbx_json_str(&j, r->backend);
	sbx_json_key(&j, "isolation");
	sbx_json_str(&j, sbx_report_isolation(r));
	sbx_json_key(&j, "unenforced");
	sbx_json_arr_begin(&j);
	for (int i = 0; i < SBX_RULE__COUNT; i++)
		if (unenforced & SBX_RULE_BIT(i))
			sbx_json_str(&j, rule_names[i]);
	sbx_json_arr_end(&j);
	sbx_json_key(&j, "fs");
	sbx_json_str(&j, p ? sbx_fs_name(p->fs) : NULL);
	sbx_json_key(&j, "network");
	sbx_json_str(&j, p ? (p->network ? "on" : "off") : NULL);
	sbx_json_key(&j, "ports");
	sbx_json_obj_begin(&j);
	json_ports(&j, "listen", p ? &p->listen : NULL);
	json_ports(&j, "connect", p ? &p->connect : NULL);
	json_ports(&j, "loopback", p ? &p->loopback : NULL);
	sbx_json_obj_end(&j);
	sbx_json_key(&j, "proxy");
	if (p && p->proxy_allow.n > 0) {
		sbx_json_obj_begin(&j);
		sbx_json_key(&j, "port");
		if (r->proxy_port > 0)
			sbx_json_int(&j, r->proxy_port);
		else
			sbx_json_null(&j);
		sbx_json_key(&j, "allow");
		sbx_json_strv(&j, &p->proxy_allow);
		sbx_json_obj_end(&j);
	} else {
		sbx_json_null(&j);
	}
	sbx_json_key(&j, "workdir");
	sbx_json_str(&j, r->workdir);
	sbx_json_key(&j, "status");
	sbx_json_int(&j, r->status);
	sbx_json_key(&j, "exit_code");
	if (r->exited)
		sbx_json_int(&j, r->exit_code);
	else
		sbx_json_null(&j);
	sbx_json_key(&j, "signal");
	sbx_json_str(&j, r->signal ? sbx_signal_name(r->signal) : NULL);
	sbx_json_key(&j, "timed_out");
	sbx_json_bool(&j, r->timed_out);
	sbx_json_key(&j, "oom_killed");
	sbx_json_bool(&j, r->oom_killed);
	sbx_json_key(&j, "wall_ms");
	sbx_json_uint(&j, r->wall_ms);
	sbx_json_key(&j, "cpu_user_ms");
	sbx_json_uint(&j, r->cpu_user_ms);
	sbx_json_key(&j, "cpu_sys_ms");
	sbx_json_uint(&j, r->cpu_sys_ms);
	sbx_json_key(&j, "max_rss_kb");
	sbx_json_uint(&j, r->max_rss_kb);
	json_limits(&j, r, p);
	sbx_json_key(&j, "warnings");
	sbx_json_strv(&j, warnings);
	sbx_json_key(&j, "error");
	sbx_json_str(&j, r->error);
	sbx_json_key(&j, "trace");
	if (r->trace_path) {
		sbx_json_obj_begin(&j);
		sbx_json_key(&j, "path");
		sbx_json_str(&j, r->trace_path);
		sbx_json_key(&j, "events");
		sbx_json_uint(&j, r->trace_events);
		sbx_json_obj_end(&j);
	} else {
		sbx_json_null(&j);
	}
	json_layers(&j, &r->layers);
	sbx_json_key(&j, "denials");
	sbx_json_uint(&j, r->denials);
	sbx_json_key(&j, "denied");
	sbx_json_arr_begin(&j);
	for (size_t i = 0; i < r->denied.n && i < SBX_DENIED_MAX; i++) {
		sbx_json_obj_begin(&j);
		sbx_json_key(&j, "kind");
		sbx_json_str(&j, r->denied.v[i].kind);
		sbx_json_key(&j, "what");
		sbx_json_str(&j, r->denied.v[i].what);
		sbx_json_obj_end(&j);
	}
	sbx_json_arr_end(&j);
	sbx_json_obj_end(&j);
	return sbx_json_steal(&j);
}

/* How many bytes w takes in the line's warnings array: escaped, with its
 * comma. */
static size_t
escaped_len(const char *w, size_t n)
{
	struct sbx_buf b = { 0 };
	size_t len;

	sbx_json_escape(&b, w, n);
	len = b.len + 1;
	sbx_buf_free(&b);
	return len;
}

/* Into kept, the warnings of all that fit in room bytes of the line, in
 * their order: each cut to SBX_DIAG_WARNING_MAX bytes first (on a
 * character boundary, "..." marking the cut), a warning that does not fit
 * left out and the later ones still tried, and when any was left out a
 * last warning that says how many. */
static void
fit_warnings(const struct sbx_strv *all, size_t room, struct sbx_strv *kept)
{
	static const char note[] = "%zu more warning%s left out: the diagnostics line is kept "
				   "under %u bytes (sbxrun(1), DIAGNOSTICS)";
	size_t used = 0, out = 0;

	/* The last warning's own room: its text with the largest count. */
	room = room > sizeof(note) + 48 ? room - (sizeof(note) + 48) : 0;
	for (size_t i = 0; i < all->n; i++) {
		const char *w = all->v[i];
		size_t n = strlen(w), cost;

		if (n > SBX_DIAG_WARNING_MAX)
			n = utf8_cut(w, SBX_DIAG_WARNING_MAX - 3);
		cost = escaped_len(w, n);
		if (used + cost > room) {
			out++;
			continue;
		}
		used += cost;
		sbx_strv_push_take(
		    kept, n < strlen(w) ? sbx_xasprintf("%.*s...", (int)n, w) : sbx_xstrdup(w));
	}
	if (out)
		sbx_strv_push_take(kept,
		    sbx_xasprintf(note, out, out == 1 ? " was" : "s were", SBX_DIAG_LINE_MAX));
}

char *
sbx_diag_render(const struct sbx_report *r, const struct sbx_policy *p)
{
	struct sbx_strv all = { 0 }, kept = { 0 };
	char *line;
	size_t base, room;

	if (p)
		sbx_strv_copy(&all, &p->warnings);
	sbx_strv_copy(&all, &r->warnings);
	/* The warnings quote names the sandbox chose: the line without them
	 * is measured, and they get what is left of SBX_DIAG_LINE_MAX (at
	 * least SBX_DIAG_WARNINGS_MIN, when the caller's own values, a long
	 * workdir path or proxy list, took the rest). */
	line = render(r, p, &kept);
	base = strlen(line);
	free(line);
	room = base < SBX_DIAG_LINE_MAX ? SBX_DIAG_LINE_MAX - base : 0;
	if (room < SBX_DIAG_WARNINGS_MIN)
		room = SBX_DIAG_WARNINGS_MIN;
	fit_warnings(&all, room, &kept);
	line = render(r, p, &kept);
	sbx_strv_free(&all);
	sbx_strv_free(&kept);
	return line;
}
