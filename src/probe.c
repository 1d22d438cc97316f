#include "config.h"

#include <string.h>

#include "json.h"
#include "probe.h"

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
