/* The pure part of --selftest: rows, verdicts, the payload script and the
 * report. The rule every verdict follows: an effect the host can see
 * decides (a file, a listener's queue, an xattr, a process); the payload's
 * word decides only for calls that leave nothing on the host; and an
 * attempt that did not run is never counted as stopped. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "json.h"
#include "selftest.h"

struct sbx_st_row *
sbx_st_add(struct sbx_st_report *r, const char *id, const char *title, enum sbx_st_judge judge)
{
	struct sbx_st_row *row;

	r->rows = sbx_xreallocarray(r->rows, r->n + 1, sizeof(*r->rows));
	row = &r->rows[r->n++];
	row->id = sbx_xstrdup(id);
	row->title = sbx_xstrdup(title);
	row->judge = judge;
	row->verdict = SBX_ST_UNKNOWN;
	row->detail = sbx_xstrdup("the attempt did not run");
	return row;
}

struct sbx_st_row *
sbx_st_find(struct sbx_st_report *r, const char *id)
{
	for (size_t i = 0; i < r->n; i++)
		if (strcmp(r->rows[i].id, id) == 0)
			return &r->rows[i];
	return NULL;
}

void
sbx_st_report_free(struct sbx_st_report *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->rows[i].id);
		free(r->rows[i].title);
		free(r->rows[i].detail);
	}
	free(r->rows);
	free(r->backend);
	free(r->isolation);
	sbx_strv_free(&r->warnings);
	memset(r, 0, sizeof(*r));
}

static void
set_detail(struct sbx_st_row *row, char *detail)
{
	free(row->detail);
	row->detail = detail;
}

enum sbx_st_outcome
sbx_st_outcome_of(const char *out, const char *id, char **detail)
{
	size_t tag = strlen(SBX_ST_TAG), idlen = strlen(id);

	*detail = NULL;
	for (const char *l = out; l && *l;) {
		const char *end = strchr(l, '\n');
		size_t len = end ? (size_t)(end - l) : strlen(l);

		if (len > tag + idlen + 2 && strncmp(l, SBX_ST_TAG " ", tag + 1) == 0 &&
		    strncmp(l + tag + 1, id, idlen) == 0 && l[tag + 1 + idlen] == ' ') {
			const char *w = l + tag + 2 + idlen, *sp;
			size_t wl, rest;
			enum sbx_st_outcome o;

			sp = memchr(w, ' ', len - (size_t)(w - l));
			wl = sp ? (size_t)(sp - w) : len - (size_t)(w - l);
			if (wl == 4 && strncmp(w, "done", 4) == 0)
				o = SBX_ST_DONE;
			else if (wl == 7 && strncmp(w, "refused", 7) == 0)
				o = SBX_ST_REFUSED;
			else if (wl == 2 && strncmp(w, "na", 2) == 0)
				o = SBX_ST_NA;
			else
				o = SBX_ST_MISSING;
			if (o != SBX_ST_MISSING) {
				rest = sp ? len - (size_t)(sp + 1 - l) : 0;
				*detail = sbx_xstrndup(sp ? sp + 1 : "", rest);
				return o;
			}
		}
		l = end ? end + 1 : NULL;
	}
	return SBX_ST_MISSING;
}

void
sbx_st_judge_payload(struct sbx_st_row *row, const char *out)
{
	char *detail = NULL;

	switch (sbx_st_outcome_of(out, row->id, &detail)) {
	case SBX_ST_MISSING:
		row->verdict = SBX_ST_UNKNOWN;
		set_detail(row, sbx_xstrdup("the attempt did not run"));
		free(detail);
		return;
	case SBX_ST_DONE: row->verdict = SBX_ST_ESCAPED; break;
	case SBX_ST_REFUSED: row->verdict = SBX_ST_STOPPED; break;
	case SBX_ST_NA: row->verdict = SBX_ST_SKIPPED; break;
	}
	set_detail(row, detail);
}

void
sbx_st_judge_host(struct sbx_st_row *row, const char *out, bool reached, const char *seen)
{
	char *detail = NULL;
	enum sbx_st_outcome o = sbx_st_outcome_of(out, row->id, &detail);

	if (reached) {
		row->verdict = SBX_ST_ESCAPED;
		set_detail(row, sbx_xstrdup(seen));
	} else if (o == SBX_ST_MISSING) {
		row->verdict = SBX_ST_UNKNOWN;
		set_detail(row, sbx_xstrdup("the attempt did not run"));
	} else if (o == SBX_ST_NA) {
		row->verdict = SBX_ST_SKIPPED;
		set_detail(row, sbx_xstrdup(detail ? detail : ""));
	} else if (o == SBX_ST_DONE) {
		/* It worked in the sandbox's own view (a private /tmp, its own
		 * network namespace) and nothing arrived on the host. */
		row->verdict = SBX_ST_STOPPED;
		set_detail(row,
		    sbx_xasprintf("contained: nothing reached the host (inside: %s)",
			detail && *detail ? detail : "it worked"));
	} else {
		row->verdict = SBX_ST_STOPPED;
		set_detail(row, sbx_xstrdup(detail && *detail ? detail : "refused"));
	}
	free(detail);
}

void
sbx_st_skip(struct sbx_st_row *row, const char *why)
{
	row->verdict = SBX_ST_SKIPPED;
	set_detail(row, sbx_xstrdup(why));
}

/* Appends s as one single-quoted sh word. */
static void
quote(struct sbx_buf *b, const char *s)
{
	sbx_buf_putc(b, '\'');
	for (; *s; s++)
		if (*s == '\'')
			sbx_buf_puts(b, "'\\''");
		else
			sbx_buf_putc(b, *s);
	sbx_buf_putc(b, '\'');
}

static void
setvar(struct sbx_buf *b, const char *name, const char *value)
{
	sbx_buf_printf(b, "%s=", name);
	quote(b, value);
	sbx_buf_putc(b, '\n');
}

/* The shell parts: st prints one line; try runs a command and says done
 * or refused with its first line of errors. */
static const char script_head[] =
    "st() { printf '" SBX_ST_TAG " %s %s %s\\n' \"$1\" \"$2\" \"$3\"; }\n"
    "try() { id=$1; shift; if e=$(\"$@\" 2>&1); then o=done; else o=refused; fi; st \"$id\" "
    "$o \"$(printf '%s' \"$e\" | head -n 1)\"; }\n"
    "pl() { \"$P\" " SBX_ST_PAYLOAD_ARG " \"$@\" || st \"$1\" failed \"the payload "
    "could not run (status $?)\"; }\n"
    "cd \"$W\" || exit 1\n";

char *
sbx_st_script_text(const struct sbx_st_script *s)
{
	struct sbx_buf b = { 0 };

	sbx_buf_puts(&b, "# sbxrun --selftest: escape attempts; the host judges.\n");
	setvar(&b, "P", s->payload);
	setvar(&b, "W", s->workdir);
	setvar(&b, "H", s->home);
	setvar(&b, "O", s->outside ? s->outside : "/nonexistent");
	sbx_buf_puts(&b, script_head);

	if (s->outside)
		sbx_buf_puts(&b, "try write-outside sh -c 'printf x >\"$1\"' sh \"$O/marker\"\n");
	for (size_t i = 0; s->decoys && i < s->decoys->n; i++) {
		/* The content comes back on stdout: the host looks for the
		 * decoy's token there. */
		sbx_buf_puts(&b, "try 'read:~/");
		sbx_buf_puts(&b, s->decoys->v[i]);
		sbx_buf_puts(&b,
		    "' sh -c 'c=$(head -c 200 \"$1\") && printf \"%s\\n\" \"$c\" | tr -d \"\\n\"' "
		    "sh \"$H\"/");
		quote(&b, s->decoys->v[i]);
		sbx_buf_puts(&b, "\n");
	}
	for (size_t i = 0; s->system && i < s->system->n; i++) {
		/* Only a checksum comes back; the host compares it with its
		 * own, so the real content is never printed. */
		sbx_buf_printf(&b, "try 'read:%s' sh -c 'cksum <\"$1\"' sh ", s->system->v[i]);
		quote(&b, s->system->v[i]);
		sbx_buf_puts(&b, "\n");
	}
	if (s->bare_repo)
		sbx_buf_puts(&b,
		    "try bare-repo sh -c 'mkdir -p objects refs/heads && echo \"ref: "
		    "refs/heads/main\" >HEAD && printf \"[core]\\n\\trepositoryformatversion = "
		    "0\\n\\tbare = false\\n\\tworktree = .\\n\\tfsmonitor = true\\n\" >config'\n");
	if (s->loopback)
		sbx_buf_printf(&b, "pl loopback tcp %s\n", s->loopback);
	if (s->iface)
		sbx_buf_printf(&b, "pl interface tcp %s\n", s->iface);
	if (s->fastopen)
		sbx_buf_printf(&b, "pl fastopen fastopen %s\n", s->fastopen);
	if (s->abstract) {
		sbx_buf_puts(&b, "pl abstract abstract ");
		quote(&b, s->abstract);
		sbx_buf_putc(&b, '\n');
	}
	if (s->syscalls) {
		static const char *const calls[] = { "tiocsti", "userns", "mount", "io_uring",
			"mptcp", "mptcp-high", "int80", "leaked-fd", "exe-write", "xattr-cap",
			"xattr-trusted", "xattr-security", NULL };

		for (size_t i = 0; calls[i]; i++)
			sbx_buf_printf(&b, "pl %s %s\n", calls[i], calls[i]);
		sbx_buf_printf(&b, "pl ptrace ptrace %ld\n", s->parent);
	}
	if (s->git_hooks)
		sbx_buf_puts(&b,
		    "try git-hooks sh -c 'chmod 0777 .git/hooks && chmod 0755 "
		    ".git/hooks/pre-commit'\n");
	if (s->linger) {
		sbx_buf_puts(&b, "pl linger linger ");
		quote(&b, s->linger);
		sbx_buf_putc(&b, '\n');
	}
	/* Last: if it works, sbxrun ends the run. */
	if (s->signal_parent)
		sbx_buf_printf(&b, "pl signal signal %ld\n", s->parent);
	sbx_buf_puts(&b, "exit 0\n");
	return sbx_buf_steal(&b);
}

char *
sbx_st_decoy_file(const char *entry)
{
	const char *base = strrchr(entry, '/');

	base = base ? base + 1 : entry;
	/* Dot files that are files (~/.netrc, ~/.npmrc, ~/.git-credentials);
	 * the rest (~/.ssh, ~/.config/gh) are directories of them. */
	if (sbx_str_has_suffix(base, "rc") || sbx_str_has_suffix(base, "credentials"))
		return sbx_xstrdup(entry);
	return sbx_xasprintf("%s/decoy", entry);
}

uint32_t
sbx_st_cksum(const void *data, size_t len)
{
	const unsigned char *p = data;
	uint32_t crc = 0;

	for (size_t i = 0; i < len; i++) {
		crc ^= (uint32_t)p[i] << 24;
		for (int k = 0; k < 8; k++)
			crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04c11db7u : crc << 1;
	}
	/* The length follows, low byte first, as few bytes as it needs. */
	for (size_t n = len; n; n >>= 8) {
		crc ^= (uint32_t)(n & 0xff) << 24;
		for (int k = 0; k < 8; k++)
			crc = (crc & 0x80000000u) ? (crc << 1) ^ 0x04c11db7u : crc << 1;
	}
	return ~crc;
}

char *
sbx_st_json_field(const char *line, const char *key)
{
	_cleanup_free_ char *pat = sbx_xasprintf("\"%s\":", key);
	const char *p = line ? strstr(line, pat) : NULL;
	struct sbx_buf b = { 0 };

	if (p == NULL)
		return NULL;
	p += strlen(pat);
	if (*p != '"') {
		size_t n = strcspn(p, ",}");

		return sbx_xstrndup(p, n);
	}
	for (p++; *p && *p != '"'; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			sbx_buf_putc(&b, *p == 'n' ? ' ' : *p);
		} else {
			sbx_buf_putc(&b, *p);
		}
	}
	if (b.data == NULL)
		return sbx_xstrdup("");
	return sbx_buf_steal(&b);
}

int
sbx_st_check_cli(const struct sbx_cli *cli, struct sbx_err *err)
{
	if (cli->command || cli->interp || cli->script_name)
		return sbx_err_set(err, EINVAL,
		    "--selftest runs its own payload: no command, "
		    "--interp or --script-name");
	if (cli->profiles.n > 0)
		return sbx_err_set(err, EINVAL,
		    "--selftest tries the default policy: no --profile (only --backend and "
		    "--allow-degraded)");
	if (cli->print_policy || cli->print_backend || cli->probe)
		return sbx_err_set(err, EINVAL,
		    "--selftest cannot be combined with --print-policy, --print-backend or "
		    "--probe");
	for (size_t i = 0; i < cli->nsettings; i++) {
		const char *f = cli->settings[i].flag;

		if (strcmp(f, "--backend") != 0 && strcmp(f, "--allow-degraded") != 0)
			return sbx_err_set(err, EINVAL,
			    "--selftest tries the default policy: %s cannot be given (only "
			    "--backend and --allow-degraded)",
			    f);
	}
	return 0;
}

int
sbx_st_status(const struct sbx_st_report *r)
{
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].verdict == SBX_ST_ESCAPED || r->rows[i].verdict == SBX_ST_UNKNOWN)
			return 1;
	return r->n > 0 ? 0 : 1;
}

static const char *
verdict_name(enum sbx_st_verdict v)
{
	switch (v) {
	case SBX_ST_STOPPED: return "stopped";
	case SBX_ST_ESCAPED: return "NOT STOPPED";
	case SBX_ST_SKIPPED: return "skipped";
	case SBX_ST_UNKNOWN: return "NOT RUN";
	}
	return "?";
}

/* Control bytes from the payload's detail never reach the terminal. */
static void
put_clean(struct sbx_buf *b, const char *s, size_t max)
{
	size_t n = 0;

	for (; s && *s && n < max; s++, n++)
		sbx_buf_putc(b, ((unsigned char)*s < 0x20 || *s == 0x7f) ? '?' : *s);
	if (s && *s)
		sbx_buf_puts(b, "...");
}

char *
sbx_st_table(const struct sbx_st_report *r)
{
	struct sbx_buf b = { 0 };
	size_t w = strlen("attempt");

	for (size_t i = 0; i < r->n; i++)
		if (strlen(r->rows[i].title) > w)
			w = strlen(r->rows[i].title);
	sbx_buf_printf(&b, "%-*s  %-8s  %-11s  %s\n", (int)w, "attempt", "expected", "result",
	    "how it was judged / detail");
	for (size_t i = 0; i < r->n; i++) {
		const struct sbx_st_row *row = &r->rows[i];

		sbx_buf_printf(&b, "%-*s  %-8s  %-11s  %s: ", (int)w, row->title, "stopped",
		    verdict_name(row->verdict), row->judge == SBX_ST_BY_HOST ? "host" : "payload");
		put_clean(&b, row->detail, 100);
		sbx_buf_putc(&b, '\n');
	}
	return sbx_buf_steal(&b);
}

char *
sbx_st_json(const struct sbx_st_report *r, int status)
{
	struct sbx_json j = { 0 };
	size_t count[4] = { 0 };

	for (size_t i = 0; i < r->n; i++)
		count[r->rows[i].verdict]++;
	sbx_json_obj_begin(&j);
	sbx_json_key(&j, "selftest");
	sbx_json_str(&j, status == 0 ? "pass" : "fail");
	sbx_json_key(&j, "status");
	sbx_json_int(&j, status);
	sbx_json_key(&j, "backend");
	sbx_json_str(&j, r->backend);
	sbx_json_key(&j, "isolation");
	sbx_json_str(&j, r->isolation);
	sbx_json_key(&j, "attempts");
	sbx_json_uint(&j, r->n);
	sbx_json_key(&j, "stopped");
	sbx_json_uint(&j, count[SBX_ST_STOPPED]);
	sbx_json_key(&j, "skipped");
	sbx_json_uint(&j, count[SBX_ST_SKIPPED]);
	sbx_json_key(&j, "not_stopped");
	sbx_json_arr_begin(&j);
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].verdict == SBX_ST_ESCAPED)
			sbx_json_str(&j, r->rows[i].id);
	sbx_json_arr_end(&j);
	sbx_json_key(&j, "not_run");
	sbx_json_arr_begin(&j);
	for (size_t i = 0; i < r->n; i++)
		if (r->rows[i].verdict == SBX_ST_UNKNOWN)
			sbx_json_str(&j, r->rows[i].id);
	sbx_json_arr_end(&j);
	sbx_json_key(&j, "warnings");
	sbx_json_strv(&j, &r->warnings);
	sbx_json_key(&j, "elapsed_ms");
	sbx_json_uint(&j, r->elapsed_ms);
	sbx_json_obj_end(&j);
	return sbx_json_steal(&j);
}
