/* The docker backend. Not built yet: it refuses, so that nothing runs
 * with less isolation than was asked for. */
#include "config.h"

#include "backend.h"

static int
docker_probe(struct sbx_caps *caps, struct sbx_err *err)
{
	return sbx_err_set(err, SBX_EUNAVAIL, "the docker backend is not built yet");
}

static uint32_t
docker_enforces(const struct sbx_policy *p, const struct sbx_caps *caps)
{
	return 0;
}

static int
docker_describe(const struct sbx_policy *p, const struct sbx_exec *x, const struct sbx_caps *caps,
    struct sbx_buf *out, struct sbx_err *err)
{
	return docker_probe(NULL, err);
}

static int
docker_spawn(const struct sbx_policy *p, const struct sbx_exec *x, const struct sbx_caps *caps,
    struct sbx_child *c, struct sbx_report *r, struct sbx_err *err)
{
	return docker_probe(NULL, err);
}

const struct sbx_backend sbx_backend_docker = {
	.name = "docker",
	.id = SBX_BACKEND_DOCKER,
	.probe = docker_probe,
	.enforces = docker_enforces,
	.describe = docker_describe,
	.spawn = docker_spawn,
};
