/* The seatbelt backend. Not built yet: it refuses, so that nothing runs
 * with less isolation than was asked for. */
#include "config.h"

#include "backend.h"

static int
seatbelt_probe(struct sbx_caps *caps, struct sbx_err *err)
{
	return sbx_err_set(err, SBX_EUNAVAIL, "the seatbelt backend is not built yet");
}

static uint32_t
seatbelt_enforces(const struct sbx_policy *p, const struct sbx_caps *caps)
{
	return 0;
}

static int
seatbelt_describe(const struct sbx_policy *p, const struct sbx_exec *x,
    const struct sbx_caps *caps, struct sbx_buf *out, struct sbx_err *err)
{
	return seatbelt_probe(NULL, err);
}

static int
seatbelt_spawn(const struct sbx_policy *p, const struct sbx_exec *x, const struct sbx_caps *caps,
    struct sbx_child *c, struct sbx_report *r, struct sbx_err *err)
{
	return seatbelt_probe(NULL, err);
}

const struct sbx_backend sbx_backend_seatbelt = {
	.name = "seatbelt",
	.id = SBX_BACKEND_SEATBELT,
	.probe = seatbelt_probe,
	.enforces = seatbelt_enforces,
	.describe = seatbelt_describe,
	.spawn = seatbelt_spawn,
};
