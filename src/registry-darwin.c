#include "config.h"

/* What a macOS build tries for "auto", and its name.
 * namespaces and landlock are Linux kernel features: their files are not
 * built here, and the stand-ins below refuse, so that asking for one names
 * the reason instead of failing to find it. */
#include <errno.h>

#include "backend.h"

static int
refuse(const char *name, struct sbx_err *err)
{
	return sbx_err_set(err, SBX_EUNAVAIL, "the %s backend runs only on Linux", name);
}

static uint32_t
linux_only_enforces(SBX_UNUSED const struct sbx_policy *p, SBX_UNUSED const struct sbx_caps *caps)
{
	return 0;
}

static int
namespaces_probe(SBX_UNUSED struct sbx_caps *caps, struct sbx_err *err)
{
	return refuse("namespaces", err);
}

static int
namespaces_describe(
    SBX_UNUSED const struct sbx_jail *j, SBX_UNUSED struct sbx_buf *out, struct sbx_err *err)
{
	return refuse("namespaces", err);
}

static int
namespaces_spawn(SBX_UNUSED const struct sbx_jail *j, SBX_UNUSED struct sbx_child *c,
    SBX_UNUSED struct sbx_report *r, struct sbx_err *err)
{
	return refuse("namespaces", err);
}

static int
landlock_probe(SBX_UNUSED struct sbx_caps *caps, struct sbx_err *err)
{
	return refuse("landlock", err);
}

static int
landlock_describe(
    SBX_UNUSED const struct sbx_jail *j, SBX_UNUSED struct sbx_buf *out, struct sbx_err *err)
{
	return refuse("landlock", err);
}

static int
landlock_spawn(SBX_UNUSED const struct sbx_jail *j, SBX_UNUSED struct sbx_child *c,
    SBX_UNUSED struct sbx_report *r, struct sbx_err *err)
{
	return refuse("landlock", err);
}

const struct sbx_backend sbx_backend_namespaces = {
	.name = "namespaces",
	.id = SBX_BACKEND_NAMESPACES,
	.probe = namespaces_probe,
	.enforces = linux_only_enforces,
	.describe = namespaces_describe,
	.spawn = namespaces_spawn,
};

const struct sbx_backend sbx_backend_landlock = {
	.name = "landlock",
	.id = SBX_BACKEND_LANDLOCK,
	.probe = landlock_probe,
	.enforces = linux_only_enforces,
	.describe = landlock_describe,
	.spawn = landlock_spawn,
};

const enum sbx_backend_id *
sbx_backend_auto_order(size_t *n)
{
	static const enum sbx_backend_id order[] = { SBX_BACKEND_SEATBELT };

	*n = SBX_ARRAY_LEN(order);
	return order;
}

const char *
sbx_os_name(void)
{
	return "macos";
}
