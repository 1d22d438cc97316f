#include "config.h"

/* Every backend sbxrun knows, by id. Each OS builds all of them; those it
 * cannot run refuse at probe time, so that --backend always names
 * something. The registry-<os>.c files say which "auto" tries, in order. */
#include "backend.h"

static const struct sbx_backend *const registry[] = {
	[SBX_BACKEND_NAMESPACES] = &sbx_backend_namespaces,
	[SBX_BACKEND_LANDLOCK] = &sbx_backend_landlock,
	[SBX_BACKEND_SEATBELT] = &sbx_backend_seatbelt,
	[SBX_BACKEND_DOCKER] = &sbx_backend_docker,
	[SBX_BACKEND_NONE] = &sbx_backend_none,
};

const struct sbx_backend *
sbx_backend_get(enum sbx_backend_id id)
{
	if ((size_t)id >= SBX_ARRAY_LEN(registry))
		return NULL;
	return registry[id];
}
