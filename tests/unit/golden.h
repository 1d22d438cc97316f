/* Golden texts for the unit tests: a generated text is compared with a
 * checked-in file under $GOLDEN (tests/golden when unset), or, with
 * SBX_UPDATE_GOLDEN set (and not "0"), written there instead, to be read
 * as a diff in review:
 *
 *	SBX_UPDATE_GOLDEN=1 make check TESTS=tests/unit/test-NAME
 *
 * Header-only, like tap.h (include that first); one test program includes
 * it once. */
#ifndef SBX_GOLDEN_H
#define SBX_GOLDEN_H

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static const char *golden_dir;
static bool update_golden;

/* Reads $GOLDEN and SBX_UPDATE_GOLDEN; call first in main. */
__attribute__((unused)) static void
golden_init(void)
{
	const char *update = getenv("SBX_UPDATE_GOLDEN");

	golden_dir = getenv("GOLDEN");
	if (golden_dir == NULL)
		golden_dir = "tests/golden";
	update_golden = update != NULL && *update != '\0' && strcmp(update, "0") != 0;
}

/* The whole file, or NULL. */
__attribute__((unused)) static char *
golden_read(const char *path)
{
	struct sbx_buf b = { 0 };
	char chunk[4096];
	size_t n;
	FILE *f = fopen(path, "re");

	if (f == NULL)
		return NULL;
	while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
		sbx_buf_add(&b, chunk, n);
	fclose(f);
	if (b.data == NULL)
		sbx_buf_add(&b, "", 0);
	return sbx_buf_steal(&b);
}

/* Says where got and want part, line by line. */
__attribute__((unused)) static void
golden_diag_difference(const char *got, const char *want)
{
	size_t line = 1;

	for (;;) {
		size_t ng = strcspn(got, "\n"), nw = strcspn(want, "\n");

		if (ng != nw || strncmp(got, want, ng) != 0 ||
		    (got[ng] == '\0') != (want[nw] == '\0')) {
			diag("first difference at line %zu:", line);
			diag("   got: %.*s", (int)ng, got);
			diag("  want: %.*s", (int)nw, want);
			return;
		}
		if (got[ng] == '\0')
			return;
		got += ng + 1;
		want += nw + 1;
		line++;
	}
}

/* Compares text with $GOLDEN/SUBDIR/NAME.EXT, or writes it there: one
 * check named after name. */
__attribute__((unused)) static void
golden_check(const char *subdir, const char *name, const char *ext, const char *text)
{
	char *path = sbx_xasprintf("%s/%s/%s.%s", golden_dir, subdir, name, ext);
	char *want;

	if (update_golden) {
		FILE *f = fopen(path, "we");

		ok(f != NULL && fputs(text, f) >= 0 && fclose(f) == 0, "%s: golden written", name);
		free(path);
		return;
	}
	want = golden_read(path);
	if (!ok(want != NULL && strcmp(text, want) == 0, "%s: matches %s", name, path)) {
		if (want == NULL)
			diag("cannot read %s: %s (SBX_UPDATE_GOLDEN=1 writes it)", path,
			    strerror(errno));
		else
			golden_diag_difference(text, want);
	}
	free(want);
	free(path);
}

#endif
