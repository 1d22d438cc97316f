/* Replays the fuzz targets' corpora without libFuzzer, so that "make
 * check" runs every saved input through its target on any compiler (and
 * under ASan and UBSan with ./configure --enable-sanitizers). One program
 * for every target: each target file is compiled here with FUZZ_REPLAY,
 * which names its entry fuzz_NAME (see fuzz.h).
 *
 *   replay                    every corpus, $SRCDIR/tests/fuzz/corpus/NAME
 *   replay NAME [PATH...]     one target over files or directories, e.g.
 *                             a crash file libFuzzer saved
 *
 * Prints TAP: one test per corpus (or per file named on the command
 * line). The name of each input goes to stdout as a comment before it
 * runs, so that a crash, which ends the program, shows which one. */
#include "config.h"

#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../unit/tap.h"
#include "fuzz.h"

int fuzz_decode(const uint8_t *data, size_t size);
int fuzz_profile(const uint8_t *data, size_t size);
int fuzz_cli(const uint8_t *data, size_t size);
int fuzz_roundtrip(const uint8_t *data, size_t size);
int fuzz_hostmatch(const uint8_t *data, size_t size);
int fuzz_seatbelt(const uint8_t *data, size_t size);
int fuzz_json(const uint8_t *data, size_t size);
int fuzz_udppkt(const uint8_t *data, size_t size);
int fuzz_mounttab(const uint8_t *data, size_t size);
#ifdef FUZZ_HAVE_PROXY
int fuzz_proxy(const uint8_t *data, size_t size);
#endif

static const struct target {
	const char *name;
	int (*run)(const uint8_t *data, size_t size);
} targets[] = {
	{ "decode", fuzz_decode },
	{ "profile", fuzz_profile },
	{ "cli", fuzz_cli },
	{ "roundtrip", fuzz_roundtrip },
	{ "hostmatch", fuzz_hostmatch },
	{ "seatbelt", fuzz_seatbelt },
	{ "json", fuzz_json },
	{ "udppkt", fuzz_udppkt },
	{ "mounttab", fuzz_mounttab },
#ifdef FUZZ_HAVE_PROXY
	{ "proxy", fuzz_proxy },
#endif
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void
replay_file(const struct target *t, const char *path, const char *label)
{
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, got;
	FILE *f = fopen(path, "rb");

	if (f == NULL) {
		ok(0, "%s: read %s", t->name, label);
		return;
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
	printf("# %s %s\n", t->name, label);
	fflush(stdout);
	t->run(buf, len);
	free(buf);
}

/* Replays every file of dir, in name order; returns how many. */
static size_t
replay_dir(const struct target *t, const char *dir)
{
	char path[8192];
	char **names = NULL;
	size_t n = 0;
	struct dirent *e;
	DIR *d = opendir(dir);

	if (d == NULL)
		return 0;
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
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		replay_file(t, path, names[i]);
		free(names[i]);
	}
	free(names);
	return n;
}

int
main(int argc, char **argv)
{
	const char *src = getenv("SRCDIR");
	char dir[4096];

	if (argc > 1) {
		const struct target *t = NULL;

		for (size_t i = 0; i < SBX_ARRAY_LEN(targets); i++)
			if (strcmp(targets[i].name, argv[1]) == 0)
				t = &targets[i];
		if (t == NULL) {
			printf("Bail out! no fuzz target named %s\n", argv[1]);
			return 1;
		}
		for (int i = 2; i < argc; i++) {
			struct stat st;

			if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
				replay_dir(t, argv[i]);
			else
				replay_file(t, argv[i], argv[i]);
			ok(1, "%s: %s replayed", t->name, argv[i]);
		}
		return done_testing();
	}
	for (size_t i = 0; i < SBX_ARRAY_LEN(targets); i++) {
		size_t n;

		snprintf(
		    dir, sizeof(dir), "%s/tests/fuzz/corpus/%s", src ? src : ".", targets[i].name);
		n = replay_dir(&targets[i], dir);
		ok(n > 0, "%s: %zu inputs replayed", targets[i].name, n);
	}
	return done_testing();
}
