/* Replays a fuzzer's corpus without libFuzzer, one TAP line a file, so
 * that "make check" runs every saved input through the decoder on any
 * compiler (and under ASan with ./configure --enable-sanitizers). The
 * corpus is the directory given as argument, or
 * $SRCDIR/tests/fuzz/corpus/decode. */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../unit/tap.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int
main(int argc, char **argv)
{
	char dir[4096], path[8192];
	const char *src = getenv("SRCDIR");
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	DIR *d;

	if (argc > 1)
		snprintf(dir, sizeof(dir), "%s", argv[1]);
	else
		snprintf(dir, sizeof(dir), "%s/tests/fuzz/corpus/decode", src ? src : ".");
	d = opendir(dir);
	if (d == NULL) {
		printf("Bail out! no corpus at %s\n", dir);
		return 1;
	}
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		names = realloc(names, (n + 1) * sizeof(*names));
		names[n++] = strdup(e->d_name);
	}
	closedir(d);
	if (n > 0)
		qsort(names, n, sizeof(*names), by_name);
	for (size_t i = 0; i < n; i++) {
		FILE *f;
		uint8_t *buf = NULL;
		size_t len = 0, cap = 0, got;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		f = fopen(path, "rb");
		if (!ok(f != NULL, "read %s", names[i])) {
			free(names[i]);
			continue;
		}
		do {
			if (len == cap) {
				cap = cap ? cap * 2 : 4096;
				buf = realloc(buf, cap);
			}
			got = fread(buf + len, 1, cap - len, f);
			len += got;
		} while (got > 0);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		ok(1, "decode %s", names[i]);
		free(buf);
		free(names[i]);
	}
	free(names);
	ok(n > 0, "the corpus has inputs (%zu)", n);
	return done_testing();
}
