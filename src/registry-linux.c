#include "config.h"

/* The backends of a Linux build, and the order "auto" tries them in. */
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
	static const enum sbx_backend_id order[] = {
		SBX_BACKEND_NAMESPACES,
		SBX_BACKEND_LANDLOCK,
	};

	*n = SBX_ARRAY_LEN(order);
	return order;
}

const char *
sbx_os_name(void)
{
	return "linux";
}
