#include "config.h"

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

const enum sbx_backend_id *
sbx_backend_auto_order(size_t *n)
{
#ifdef __APPLE__
	static const enum sbx_backend_id order[] = { SBX_BACKEND_SEATBELT };
#else
	static const enum sbx_backend_id order[] = {
		SBX_BACKEND_NAMESPACES, SBX_BACKEND_LANDLOCK,
	};
#endif
	*n = SBX_ARRAY_LEN(order);
	return order;
}
