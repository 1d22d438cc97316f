/* The null backend: no barrier at all. It runs only when asked for with
 * --backend none or allowed with --allow-degraded, and then says so. The
 * tree is still kept together and limits still apply. */
#include "config.h"

#include "backend.h"
#include "launch.h"
#include "rlimits.h"

static int
none_probe(SBX_UNUSED struct sbx_caps *caps, SBX_UNUSED struct sbx_err *err)
{
	return 0;
}

static uint32_t
none_enforces(const struct sbx_policy *p, const struct sbx_caps *caps)
{
	uint32_t r = SBX_RULE_BIT(SBX_RULE_TIMEOUT) | sbx_limits_rlimit_rules(p);

	/* The kernel does not apply RLIMIT_NPROC to root, who keeps its
	 * capabilities under this backend. */
	if (caps->caller_uid == 0)
		r &= ~SBX_RULE_BIT(SBX_RULE_PIDS);
	return r;
}

static int
none_describe(const struct sbx_jail *j, struct sbx_buf *out, SBX_UNUSED struct sbx_err *err)
{
	sbx_buf_puts(out, "# backend none: no jail; the command runs as the caller\n");
	sbx_buf_printf(out, "# kept: new session, %s, rlimits, timeout\n",
	    sbx_launch_subreaper ? "child subreaper" : "process group");
	sbx_limits_describe(j->exec, out);
	return 0;
}

static int
none_spawn(const struct sbx_jail *j, struct sbx_child *c, struct sbx_report *r, struct sbx_err *err)
{
	r->layers.new_session = true;
	r->layers.subreaper = sbx_launch_subreaper;
	return sbx_launch_plain(j->exec, NULL, c, err);
}

const struct sbx_backend sbx_backend_none = {
	.name = "none",
	.id = SBX_BACKEND_NONE,
	.probe = none_probe,
	.enforces = none_enforces,
	.describe = none_describe,
	.spawn = none_spawn,
};
