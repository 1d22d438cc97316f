/* sbx_backend_choose() as a table: the backend asked for, how each
 * backend's probe goes and what it enforces, the rules asked for and the
 * flags -> the backend chosen (or none), the reasons text, what is said
 * on stderr, the report's warning, which backend the report names, and
 * which probes ran (the choice probes only the backends it reaches). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "backend-choice.h"
#include "diag.h"
#include "tap.h"

#define AUTO SBX_BACKEND_AUTO
#define NS SBX_BACKEND_NAMESPACES
#define LL SBX_BACKEND_LANDLOCK
#define SB SBX_BACKEND_SEATBELT
#define DOCKER SBX_BACKEND_DOCKER
#define NONE SBX_BACKEND_NONE

#define R(x) SBX_RULE_BIT(SBX_RULE_##x)
/* The rules of the default policy, and what each backend holds of them. */
#define BASE (R(FS) | R(DENY) | R(PROTECT) | R(NETWORK) | R(PROCESSES))
#define ALL (BASE | R(MOUNTS) | R(LISTEN) | R(CONNECT) | R(LOOPBACK) | R(PROXY) | R(TIMEOUT))

#define NO_USERNS "user namespaces: unprivileged_userns_clone is 0"
#define NO_LANDLOCK "Landlock: not enabled in the kernel (lsm=)"
#define NO_DOCKER "docker: cannot reach the daemon"
#define NO_SEATBELT "seatbelt: not macOS"

struct row {
	const char *name;
	int asked;
	unsigned flags;
#define DEGRADED 1u
#define PRINT 2u
#define NO_ORDER 4u /* auto has nothing to try */
	int after; /* AUTO: the first choice */
	const char *prior; /* err's text when after is set */
	uint32_t requested;
	const char *down[6]; /* per backend: why its probe fails, NULL: it works */
	uint32_t enforces[6];
	/* -> */
	int want; /* AUTO: no backend */
	const char *reasons; /* err's text, or NULL to leave it unchecked */
	const char *said; /* the stderr lines, joined by "|", or "" */
	const char *warning; /* the report's warnings, joined, or "" */
	int reported; /* AUTO: none recorded */
	const char *probed; /* the probes run, in order */
};

/* The Linux machine of most rows: both backends work and hold BASE;
 * namespaces also mounts and ports, landlock neither. */
#define LINUX_OK \
	.enforces = { \
		[NS] = ALL, \
		[LL] = BASE | R(LISTEN) | R(CONNECT) | R(LOOPBACK) | R(PROXY) | R(TIMEOUT), \
		[SB] = BASE, \
		[DOCKER] = ALL, \
		[NONE] = R(TIMEOUT), \
	}

static const struct row rows[] = {
	{ "auto: namespaces first", AUTO, 0, AUTO, NULL, BASE, { NULL }, LINUX_OK, NS, "", "", "",
	    NS, "namespaces" },
	{ "auto: no user namespaces, landlock", AUTO, 0, AUTO, NULL, BASE, { [NS] = NO_USERNS },
	    LINUX_OK, LL, "backend namespaces unavailable: " NO_USERNS, "", "", LL,
	    "namespaces,landlock" },
	{ "auto: mounts need namespaces; landlock cannot", AUTO, 0, AUTO, NULL, BASE | R(MOUNTS),
	    { [NS] = NO_USERNS }, LINUX_OK, AUTO,
	    "backend namespaces unavailable: " NO_USERNS
	    "; backend landlock cannot enforce: mounts (--allow-degraded runs anyway)",
	    "", "", LL, "namespaces,landlock" },
	{ "auto: mounts, degraded: landlock anyway", AUTO, DEGRADED, AUTO, NULL, BASE | R(MOUNTS),
	    { [NS] = NO_USERNS }, LINUX_OK, LL, NULL, "", "", LL, "namespaces,landlock" },
	{ "auto: nothing works", AUTO, 0, AUTO, NULL, BASE,
	    { [NS] = NO_USERNS, [LL] = NO_LANDLOCK }, LINUX_OK, AUTO,
	    "backend namespaces unavailable: " NO_USERNS
	    "; backend landlock unavailable: " NO_LANDLOCK,
	    "", "", AUTO, "namespaces,landlock" },
	{ "auto: nothing works, degraded: none, with a warning", AUTO, DEGRADED, AUTO, NULL, BASE,
	    { [NS] = NO_USERNS, [LL] = NO_LANDLOCK }, LINUX_OK, NONE, NULL, "",
	    "no isolating backend is usable here (backend namespaces unavailable: " NO_USERNS
	    "; backend landlock unavailable: " NO_LANDLOCK "); running without a jail",
	    NONE, "namespaces,landlock" },
	{ "auto: an empty order", AUTO, NO_ORDER, AUTO, NULL, BASE, { NULL }, LINUX_OK, AUTO,
	    "no backend is usable here", "", "", AUTO, "" },
	{ "explicit landlock", LL, 0, AUTO, NULL, BASE, { NULL }, LINUX_OK, LL, "", "", "", LL,
	    "landlock" },
	{ "explicit landlock, unavailable", LL, 0, AUTO, NULL, BASE, { [LL] = NO_LANDLOCK },
	    LINUX_OK, AUTO, "backend landlock unavailable: " NO_LANDLOCK, "", "", AUTO,
	    "landlock" },
	{ "explicit landlock, unavailable, degraded: no fallback to none", LL, DEGRADED, AUTO, NULL,
	    BASE, { [LL] = NO_LANDLOCK }, LINUX_OK, AUTO,
	    "backend landlock unavailable: " NO_LANDLOCK, "", "", AUTO, "landlock" },
	{ "explicit landlock, mounts missing", LL, 0, AUTO, NULL, BASE | R(MOUNTS), { NULL },
	    LINUX_OK, AUTO,
	    "backend landlock cannot enforce: mounts (--allow-degraded runs anyway)", "", "", LL,
	    "landlock" },
	{ "explicit landlock, mounts missing, --print-backend: shown with a warning", LL, PRINT,
	    AUTO, NULL, BASE | R(MOUNTS) | R(MEMORY), { NULL }, LINUX_OK, LL, "",
	    "warning: backend landlock would not enforce: mounts, memory", "", LL, "landlock" },
	{ "auto, mounts missing, --print-backend: no warning, refused", AUTO, PRINT, AUTO, NULL,
	    BASE | R(MOUNTS), { [NS] = NO_USERNS }, LINUX_OK, AUTO,
	    "backend namespaces unavailable: " NO_USERNS
	    "; backend landlock cannot enforce: mounts (--allow-degraded runs anyway)",
	    "", "", LL, "namespaces,landlock" },
	{ "explicit none: the base barriers are given up", NONE, 0, AUTO, NULL, BASE | R(TIMEOUT),
	    { NULL }, LINUX_OK, NONE, "", "", "", NONE, "none" },
	{ "explicit none: a port it cannot hold is refused", NONE, 0, AUTO, NULL, BASE | R(LISTEN),
	    { NULL }, LINUX_OK, AUTO,
	    "backend none cannot enforce: listen (--allow-degraded runs anyway)", "", "", NONE,
	    "none" },
	{ "explicit docker, --print-backend: the daemon is not asked", DOCKER, PRINT, AUTO, NULL,
	    BASE, { [DOCKER] = NO_DOCKER }, LINUX_OK, DOCKER, "", "", "", DOCKER, "" },
	{ "explicit docker: the daemon is down", DOCKER, 0, AUTO, NULL, BASE,
	    { [DOCKER] = NO_DOCKER }, LINUX_OK, AUTO, "backend docker unavailable: " NO_DOCKER, "",
	    "", AUTO, "docker" },
	{ "explicit seatbelt on Linux", SB, 0, AUTO, NULL, BASE, { [SB] = NO_SEATBELT }, LINUX_OK,
	    AUTO, "backend seatbelt unavailable: " NO_SEATBELT, "", "", AUTO, "seatbelt" },
	/* Again after a backend failed to start (SBX_EUNAVAIL). */
	{ "after namespaces failed: landlock, the reason kept", AUTO, 0, NS,
	    "namespaces: the child could not map its ids", BASE, { NULL }, LINUX_OK, LL,
	    "namespaces: the child could not map its ids", "", "", LL, "landlock" },
	{ "after landlock failed: nothing left", AUTO, 0, LL, "landlock: ruleset refused", BASE,
	    { NULL }, LINUX_OK, AUTO, "landlock: ruleset refused", "", "", AUTO, "" },
	{ "after landlock failed, degraded: none", AUTO, DEGRADED, LL, "landlock: ruleset refused",
	    BASE, { NULL }, LINUX_OK, NONE, NULL, "",
	    "no isolating backend is usable here (landlock: ruleset refused); running without a "
	    "jail",
	    NONE, "" },
	{ "after an explicit backend failed: no second choice", LL, DEGRADED, LL,
	    "landlock: ruleset refused", BASE, { NULL }, LINUX_OK, AUTO,
	    "landlock: ruleset refused", "", "", AUTO, "" },
};

struct facts {
	const struct row *row;
	struct sbx_buf probed;
};

static int
fake_probe(void *ctx, enum sbx_backend_id id, struct sbx_err *why)
{
	struct facts *f = ctx;

	sbx_buf_printf(&f->probed, "%s%s", f->probed.len ? "," : "", sbx_backend_name(id));
	if (f->row->down[id] == NULL)
		return 0;
	return sbx_err_set(why, ENOSYS, "%s", f->row->down[id]);
}

static uint32_t
fake_enforces(void *ctx, enum sbx_backend_id id)
{
	const struct facts *f = ctx;

	return f->row->enforces[id];
}

static char *
joined(const struct sbx_strv *sv)
{
	struct sbx_buf b = { 0 };

	for (size_t i = 0; i < sv->n; i++)
		sbx_buf_printf(&b, "%s%s", i ? "|" : "", sv->v[i]);
	if (b.data == NULL)
		sbx_buf_add(&b, "", 0);
	return sbx_buf_steal(&b);
}

static void
check_row(const struct row *w)
{
	static const enum sbx_backend_id linux_order[] = { NS, LL };
	enum sbx_backend_id after = (enum sbx_backend_id)w->after;
	struct facts f = { .row = w };
	struct sbx_choice_in in = {
		.asked = (enum sbx_backend_id)w->asked,
		.order = linux_order,
		.norder = (w->flags & NO_ORDER) ? 0 : SBX_ARRAY_LEN(linux_order),
		.requested = w->requested,
		.allow_degraded = (w->flags & DEGRADED) != 0,
		.print_backend = (w->flags & PRINT) != 0,
		.after = w->after != AUTO ? &after : NULL,
		.facts = { .ctx = &f, .probe = fake_probe, .enforces = fake_enforces },
	};
	struct sbx_choice c;
	struct sbx_err err = { 0 };
	int rc;
	_cleanup_free_ char *said = NULL, *warned = NULL;

	if (w->prior)
		sbx_err_set(&err, ENOSYS, "%s", w->prior);
	rc = sbx_backend_choose(&in, &c, &err);
	said = joined(&c.say);
	warned = joined(&c.warnings);
	if (w->want == AUTO)
		is_int(rc, -1, "%s: no backend", w->name);
	else
		ok(rc == 0 && c.backend == (enum sbx_backend_id)w->want, "%s: %s", w->name,
		    sbx_backend_name((enum sbx_backend_id)w->want));
	if (w->reasons)
		is_str(err.msg, w->reasons, "%s: the reasons", w->name);
	is_str(said, w->said, "%s: said on stderr", w->name);
	is_str(warned, w->warning, "%s: the report's warning", w->name);
	if (w->reported == AUTO)
		ok(!c.reported, "%s: no backend in the report", w->name);
	else
		ok(c.reported && c.report_backend == (enum sbx_backend_id)w->reported &&
			c.requested == w->requested &&
			c.enforced == (w->enforces[w->reported] & w->requested),
		    "%s: the report names %s and its rules", w->name,
		    sbx_backend_name((enum sbx_backend_id)w->reported));
	is_str(f.probed.data ? f.probed.data : "", w->probed, "%s: probes run", w->name);
	sbx_buf_free(&f.probed);
	sbx_choice_free(&c);
}

int
main(void)
{
	for (size_t i = 0; i < SBX_ARRAY_LEN(rows); i++)
		check_row(&rows[i]);
	return done_testing();
}
