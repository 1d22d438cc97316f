#include "config.h"

#include <dirent.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hostfacts.h"

static enum sbx_file_kind
host_kind(SBX_UNUSED void *ctx, const char *path, char **target)
{
	struct stat st;

	if (lstat(path, &st) < 0)
		return SBX_KIND_NONE;
	if (S_ISLNK(st.st_mode)) {
		if (target) {
			char buf[4096];
			ssize_t n = readlink(path, buf, sizeof(buf) - 1);

			if (n < 0)
				return SBX_KIND_NONE;
			buf[n] = '\0';
			*target = sbx_xstrdup(buf);
		}
		return SBX_KIND_SYMLINK;
	}
	return S_ISDIR(st.st_mode) ? SBX_KIND_DIR : SBX_KIND_FILE;
}

static int
host_list(SBX_UNUSED void *ctx, const char *dir, struct sbx_strv *names)
{
	struct dirent *de;
	DIR *d = opendir(dir);

	if (d == NULL)
		return -1;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		sbx_strv_push(names, de->d_name);
	}
	closedir(d);
	return 0;
}

static bool
host_sealed(void *ctx, const char *path)
{
	const struct sbx_host_ids *ids = ctx;
	struct stat st;
	mode_t other;

	if (ids == NULL || stat(path, &st) < 0)
		return false;
	if (st.st_uid == ids->uid)
		return false;
	other = S_ISDIR(st.st_mode) ? (S_IROTH | S_IXOTH) : S_IROTH;
	if (st.st_mode & other)
		return false;
	if (st.st_gid == ids->gid && (st.st_mode & (other << 3)))
		return false;
	for (int i = 0; i < ids->ngroups; i++)
		if (st.st_gid == ids->groups[i] && (st.st_mode & (other << 3)))
			return false;
	return true;
}

void
sbx_host_facts_init(struct sbx_fsfacts *facts, const struct sbx_host_ids *ids)
{
	*facts = (struct sbx_fsfacts){
		.ctx = (void *)ids,
		.kind = host_kind,
		.list = host_list,
		.sealed = host_sealed,
	};
}

void
sbx_host_ids_for(struct sbx_host_ids *ids, uid_t caller_uid, gid_t caller_gid, uid_t root_mapped)
{
	memset(ids, 0, sizeof(*ids));
	if (caller_uid == 0) {
		ids->uid = root_mapped;
		ids->gid = (gid_t)root_mapped;
		return;
	}
	ids->uid = caller_uid;
	ids->gid = caller_gid;
	ids->ngroups = getgroups((int)SBX_ARRAY_LEN(ids->groups), ids->groups);
	if (ids->ngroups < 0)
		ids->ngroups = 0;
}
