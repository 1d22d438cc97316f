#include "config.h"

/* What a Linux build tries for "auto", in order, and its name. */
#include "backend.h"

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
