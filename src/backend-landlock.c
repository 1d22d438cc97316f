/* The landlock backend. Not built yet: it refuses, so that nothing runs
 * with less isolation than was asked for. */
#include "config.h"

#include "backend.h"

static int
landlock_probe(struct sbx_caps *caps, struct sbx_err *err)
{
	return sbx_err_set(err, SBX_EUNAVAIL, "the landlock backend is not built yet");
}

static uint32_t
landlock_enforces(const struct sbx_policy *p, const struct sbx_caps *caps)
{
	return 0;
}

static int
landlock_describe(const struct sbx_policy *p, const struct sbx_exec *x,
    const struct sbx_caps *caps, struct sbx_buf *out, struct sbx_err *err)
{
	return landlock_probe(NULL, err);
}

static int
landlock_spawn(const struct sbx_policy *p, const struct sbx_exec *x, const struct sbx_caps *caps,
    struct sbx_child *c, struct sbx_report *r, struct sbx_err *err)
{
	return landlock_probe(NULL, err);
}

const struct sbx_backend sbx_backend_landlock = {
	.name = "landlock",
	.id = SBX_BACKEND_LANDLOCK,
	.probe = landlock_probe,
	.enforces = landlock_enforces,
	.describe = landlock_describe,
	.spawn = landlock_spawn,
};
