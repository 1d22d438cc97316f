#include "config.h"

#include <string.h>

#include "json.h"
#include "probe.h"
#ifdef __linux__
#include <seccomp.h>

#include "linux-landlock.h"
#endif

static const enum sbx_backend_id all[] = {
	SBX_BACKEND_NAMESPACES,
	SBX_BACKEND_LANDLOCK,
	SBX_BACKEND_SEATBELT,
	SBX_BACKEND_DOCKER,
	SBX_BACKEND_NONE,
};

static struct sbx_err probe_errs[SBX_ARRAY_LEN(all)];
static bool probe_ok[SBX_ARRAY_LEN(all)];

enum sbx_backend_id
sbx_probe_all(struct sbx_caps *caps)
{
	const enum sbx_backend_id *order;
	size_t n;

	caps->full_probe = true;
	for (size_t i = 0; i < SBX_ARRAY_LEN(all); i++)
		probe_ok[i] = sbx_backend_get(all[i])->probe(caps, &probe_errs[i]) == 0;
	order = sbx_backend_auto_order(&n);
	for (size_t k = 0; k < n; k++)
		for (size_t i = 0; i < SBX_ARRAY_LEN(all); i++)
			if (all[i] == order[k] && probe_ok[i])
				return order[k];
	return SBX_BACKEND_NONE;
}

char *
sbx_probe_render(const struct sbx_caps *caps, enum sbx_backend_id pick)
{
	struct sbx_json j = { 0 };

	sbx_json_obj_begin(&j);
	sbx_json_key(&j, "version");
	sbx_json_str(&j, PACKAGE_VERSION);
	sbx_json_key(&j, "os");
	sbx_json_str(&j, sbx_os_name());
	sbx_json_key(&j, "userns");
	sbx_json_bool(&j, caps->userns);
	sbx_json_key(&j, "landlock_abi");
	sbx_json_int(&j, caps->landlock_abi);
	sbx_json_key(&j, "seccomp");
	sbx_json_bool(&j, caps->seccomp);
	sbx_json_key(&j, "seccomp_notify");
	sbx_json_bool(&j, caps->seccomp_notify);
	sbx_json_key(&j, "cgroup_delegated");
	sbx_json_bool(&j, caps->cgroup_delegated);
	sbx_json_key(&j, "docker");
	sbx_json_bool(&j, caps->docker);
	sbx_json_key(&j, "seatbelt");
	sbx_json_bool(&j, caps->seatbelt);
	sbx_json_key(&j, "backends");
	sbx_json_obj_begin(&j);
	for (size_t i = 0; i < SBX_ARRAY_LEN(all); i++) {
		sbx_json_key(&j, sbx_backend_name(all[i]));
		sbx_json_obj_begin(&j);
		sbx_json_key(&j, "usable");
		sbx_json_bool(&j, probe_ok[i]);
		sbx_json_key(&j, "why");
		sbx_json_str(&j, probe_ok[i] ? NULL : probe_errs[i].msg);
		sbx_json_obj_end(&j);
	}
	sbx_json_obj_end(&j);
	sbx_json_key(&j, "auto");
	if (pick == SBX_BACKEND_NONE)
		sbx_json_null(&j);
	else
		sbx_json_str(&j, sbx_backend_name(pick));
	sbx_json_obj_end(&j);
	return sbx_json_steal(&j);
}

char *
sbx_version_render(void)
{
	struct sbx_buf b = { 0 };
	const enum sbx_backend_id *order;
	size_t n;

	sbx_buf_printf(&b, "sbxrun %s\n", PACKAGE_VERSION);
	order = sbx_backend_auto_order(&n);
	sbx_buf_puts(&b, "backends:");
	for (size_t i = 0; i < n; i++)
		sbx_buf_printf(&b, " %s,", sbx_backend_name(order[i]));
	sbx_buf_puts(&b, " docker, none (auto tries");
	for (size_t i = 0; i < n; i++)
		sbx_buf_printf(&b, "%s%s", i ? ", then " : " ", sbx_backend_name(order[i]));
	sbx_buf_puts(&b, ")\n");
	/* docker is never in auto's order: only a run that names it asks
	 * the daemon. */
	sbx_buf_puts(&b, "not in this build:");
#ifdef __APPLE__
	sbx_buf_puts(&b, " namespaces, landlock (Linux only)\n");
#else
	sbx_buf_puts(&b, " seatbelt (macOS only)\n");
#endif
#ifdef __linux__
	{
		const struct scmp_version *v = seccomp_version();

		sbx_buf_printf(&b,
		    "landlock: asks for the rights of ABI 1 to %d (the kernel's: --probe)\n",
		    SBX_LANDLOCK_ABI_KNOWN);
		sbx_buf_printf(&b, "libseccomp: built with %d.%d.%d, running %u.%u.%u\n",
		    SCMP_VER_MAJOR, SCMP_VER_MINOR, SCMP_VER_MICRO, v ? v->major : 0,
		    v ? v->minor : 0, v ? v->micro : 0);
	}
#endif
	return sbx_buf_steal(&b);
}
