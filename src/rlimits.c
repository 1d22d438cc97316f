#include "config.h"

#include <inttypes.h>
#include <sys/resource.h>

#include "rlimits.h"

static const struct {
	enum sbx_limit_id id;
	int resource;
	const char *name;
} map[] = {
	/* Address space, not resident memory: the only memory rlimit that
	 * the kernel enforces on every allocation. */
	{ SBX_LIMIT_MEMORY, RLIMIT_AS, "RLIMIT_AS" },
	{ SBX_LIMIT_PIDS, RLIMIT_NPROC, "RLIMIT_NPROC" },
	{ SBX_LIMIT_CPU, RLIMIT_CPU, "RLIMIT_CPU" },
	{ SBX_LIMIT_FILE_SIZE, RLIMIT_FSIZE, "RLIMIT_FSIZE" },
	{ SBX_LIMIT_OPEN_FILES, RLIMIT_NOFILE, "RLIMIT_NOFILE" },
};

uint32_t
sbx_limits_rlimit_rules(const struct sbx_policy *p)
{
	uint32_t rules = 0;

	for (size_t i = 0; i < SBX_ARRAY_LEN(map); i++)
		if (p->limits[map[i].id].set)
			rules |= SBX_RULE_BIT(sbx_limit_rule(map[i].id));
	return rules;
}

void
sbx_limits_plan(const struct sbx_policy *p, struct sbx_exec *x, struct sbx_report *r)
{
	x->nrlimits = 0;
	for (size_t i = 0; i < SBX_ARRAY_LEN(map); i++) {
		const struct sbx_limit *l = &p->limits[map[i].id];
		uint64_t v;

		if (!l->set || x->nrlimits >= SBX_MAX_RLIMITS)
			continue;
		v = l->value;
		if (map[i].id == SBX_LIMIT_CPU)
			v = (v + 999) / 1000; /* RLIMIT_CPU counts whole seconds */
		x->rlimits[x->nrlimits++] = (struct sbx_rlimit){ map[i].resource, v };
		r->limits[map[i].id].by = "rlimit";
	}
}

void
sbx_limits_describe(const struct sbx_exec *x, struct sbx_buf *out)
{
	for (size_t i = 0; i < x->nrlimits; i++)
		for (size_t k = 0; k < SBX_ARRAY_LEN(map); k++)
			if (map[k].resource == x->rlimits[i].resource)
				sbx_buf_printf(out, "rlimit %s %" PRIu64 "\n", map[k].name,
				    x->rlimits[i].value);
}
