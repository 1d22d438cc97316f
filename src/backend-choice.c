#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "backend-choice.h"
#include "diag.h"

static void add_reason(struct sbx_err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Appends one reason to err ("a; b"), so that "auto" tells why each
 * backend was passed over. */
static void
add_reason(struct sbx_err *err, const char *fmt, ...)
{
	size_t len = strlen(err->msg);
	va_list ap;

	if (len > 0 && len + 2 < sizeof(err->msg)) {
		memcpy(err->msg + len, "; ", 3);
		len += 2;
	}
	va_start(ap, fmt);
	vsnprintf(err->msg + len, sizeof(err->msg) - len, fmt, ap);
	va_end(ap);
	err->errnum = EPERM;
}

static void
report(const struct sbx_choice_in *in, struct sbx_choice *out, enum sbx_backend_id id)
{
	out->reported = true;
	out->report_backend = id;
	out->requested = in->requested;
	out->enforced = in->facts.enforces(in->facts.ctx, id) & in->requested;
}

/* The names of the rules in missing, "a, b". */
static char *
rule_names(uint32_t missing)
{
	struct sbx_buf names = { 0 };

	for (int k = 0; k < SBX_RULE__COUNT; k++)
		if (missing & SBX_RULE_BIT(k))
			sbx_buf_printf(
			    &names, "%s%s", names.len ? ", " : "", sbx_rule_name((enum sbx_rule)k));
	if (names.data == NULL)
		sbx_buf_add(&names, "", 0);
	return sbx_buf_steal(&names);
}

/* Whether backend id, whose probe succeeded, is the choice: it enforces
 * every rule asked for, or degraded runs are allowed, or --print-backend
 * asked for it by name (with a warning). Else says why in err. */
static bool
take(const struct sbx_choice_in *in, struct sbx_choice *out, enum sbx_backend_id id,
    struct sbx_err *err)
{
	const char *name = sbx_backend_name(id);
	uint32_t missing;
	_cleanup_free_ char *names = NULL;

	report(in, out, id);
	missing = in->requested & ~out->enforced;
	/* Asking for the none backend gives up the barriers every run has
	 * (fs, secrets, network off...), not rules the policy asks for on
	 * top: a port, a mount or a proxy it cannot hold is refused like
	 * under any backend. */
	if (id == SBX_BACKEND_NONE)
		missing &= ~(SBX_RULE_BIT(SBX_RULE_FS) | SBX_RULE_BIT(SBX_RULE_DENY) |
		    SBX_RULE_BIT(SBX_RULE_PROTECT) | SBX_RULE_BIT(SBX_RULE_NETWORK) |
		    SBX_RULE_BIT(SBX_RULE_PROCESSES));
	if (missing == 0 || in->allow_degraded)
		return true;
	names = rule_names(missing);
	/* --print-backend shows what would be built even so. */
	if (in->print_backend && in->asked != SBX_BACKEND_AUTO) {
		sbx_strv_push_take(&out->say,
		    sbx_xasprintf("warning: backend %s would not enforce: %s", name, names));
		return true;
	}
	add_reason(
	    err, "backend %s cannot enforce: %s (--allow-degraded runs anyway)", name, names);
	return false;
}

int
sbx_backend_choose(const struct sbx_choice_in *in, struct sbx_choice *out, struct sbx_err *err)
{
	const enum sbx_backend_id *order = in->order;
	size_t n = in->norder;
	bool is_auto = in->asked == SBX_BACKEND_AUTO;
	bool skipping = in->after != NULL;

	memset(out, 0, sizeof(*out));
	out->backend = SBX_BACKEND_AUTO;
	if (!is_auto) {
		order = &in->asked;
		n = 1;
		if (in->after)
			return -1; /* err keeps why it failed to start */
	}
	if (in->after == NULL)
		err->msg[0] = '\0'; /* else: keep why "after" failed */
	for (size_t i = 0; i < n; i++) {
		enum sbx_backend_id id = order[i];
		struct sbx_err why = { 0 };

		if (skipping) {
			skipping = id != *in->after;
			continue;
		}
		/* --print-backend of docker prints the command line without
		 * asking the daemon, which may be elsewhere or down. */
		if (!(in->print_backend && id == SBX_BACKEND_DOCKER) &&
		    in->facts.probe(in->facts.ctx, id, &why) < 0) {
			add_reason(
			    err, "backend %s unavailable: %s", sbx_backend_name(id), why.msg);
			continue;
		}
		if (take(in, out, id, err)) {
			out->backend = id;
			return 0;
		}
		if (!is_auto)
			return -1;
	}
	/* After a backend that failed to start, too; never after none itself. */
	if (is_auto && in->allow_degraded &&
	    (in->after == NULL || *in->after != SBX_BACKEND_NONE)) {
		sbx_strv_push_take(&out->warnings,
		    sbx_xasprintf(
			"no isolating backend is usable here (%s); running without a jail",
			err->msg));
		report(in, out, SBX_BACKEND_NONE);
		out->backend = SBX_BACKEND_NONE;
		return 0;
	}
	if (err->msg[0] == '\0')
		sbx_err_set(err, EPERM, "no backend is usable here");
	return -1;
}

void
sbx_choice_free(struct sbx_choice *c)
{
	sbx_strv_free(&c->say);
	sbx_strv_free(&c->warnings);
}
