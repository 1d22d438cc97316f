/* The namespaces backend. Not built yet: it refuses, so that nothing runs
 * with less isolation than was asked for. */
#include "config.h"

#include "backend.h"

static int
namespaces_probe(struct sbx_caps *caps, struct sbx_err *err)
{
	return sbx_err_set(err, SBX_EUNAVAIL, "the namespaces backend is not built yet");
}

static uint32_t
namespaces_enforces(const struct sbx_policy *p, const struct sbx_caps *caps)
{
	return 0;
}

static int
namespaces_describe(const struct sbx_policy *p, const struct sbx_exec *x,
    const struct sbx_caps *caps, struct sbx_buf *out, struct sbx_err *err)
{
	return namespaces_probe(NULL, err);
}

static int
namespaces_spawn(const struct sbx_policy *p, const struct sbx_exec *x, const struct sbx_caps *caps,
    struct sbx_child *c, struct sbx_report *r, struct sbx_err *err)
{
	return namespaces_probe(NULL, err);
}

const struct sbx_backend sbx_backend_namespaces = {
	.name = "namespaces",
	.id = SBX_BACKEND_NAMESPACES,
	.probe = namespaces_probe,
	.enforces = namespaces_enforces,
	.describe = namespaces_describe,
	.spawn = namespaces_spawn,
};
