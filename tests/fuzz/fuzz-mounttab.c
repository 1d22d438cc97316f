/* A libFuzzer target for the mount table (src/secrets.c): any text as
 * /proc/self/mountinfo, parsed, then asked for the aliases of fixed paths
 * and of each entry's own mount point. Every entry must name a root and a
 * mount point that start with '/' and lie inside the table's own copy of
 * the text; every alias must be an absolute path. ASan sees any read past
 * a string (a field ending in '/' once sent rebase() past its path). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "secrets.h"

FUZZ_TARGET(mounttab);

static void
aliases(const struct sbx_mounttab *t, const char *path)
{
	struct sbx_strv out = { 0 };

	for (int whole = 0; whole < 2; whole++) {
		sbx_mount_aliases(t, path, whole, &out);
		for (size_t i = 0; i < out.n; i++)
			if (out.v[i][0] != '/') {
				fprintf(stderr, "alias %s of %s is not absolute\n", out.v[i], path);
				abort();
			}
		sbx_strv_free(&out);
	}
}

FUZZ_TARGET(mounttab)
{
	char *text = fuzz_strndup(data, size);
	struct sbx_mounttab t;
	size_t len;

	sbx_mounttab_parse(text, &t);
	len = strlen(text);
	for (size_t i = 0; i < t.n; i++) {
		const char *f[] = { t.v[i].root, t.v[i].point };

		for (size_t k = 0; k < 2; k++)
			if (f[k] < t.text || f[k] + strlen(f[k]) > t.text + len || f[k][0] != '/') {
				fprintf(stderr, "entry %zu: a field outside the table's text\n", i);
				abort();
			}
	}
	aliases(&t, "/");
	aliases(&t, "/h/.ssh");
	aliases(&t, "/etc/shadow");
	for (size_t i = 0; i < t.n && i < 16; i++) {
		char *p = strdup(t.v[i].point);

		aliases(&t, p);
		free(p);
	}
	sbx_mounttab_free(&t);
	free(text);
	return 0;
}
