/* Helpers shared by the fuzz targets (see fuzz.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "profile.h"

char *
fuzz_strndup(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (s == NULL)
		abort();
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

char **
fuzz_words(const uint8_t *data, size_t size, int *argc)
{
	size_t n = 1, k = 0, start = 0;
	char **argv;

	for (size_t i = 0; i < size; i++)
		n += data[i] == '\0';
	argv = calloc(n + 2, sizeof(*argv));
	if (argv == NULL)
		abort();
	argv[k++] = fuzz_strndup((const uint8_t *)"sbxrun", 6);
	for (size_t i = 0; size > 0 && i <= size; i++) {
		if (i < size && data[i] != '\0')
			continue;
		argv[k++] = fuzz_strndup(data + start, i - start);
		start = i + 1;
	}
	argv[k] = NULL;
	*argc = (int)k;
	return argv;
}

void
fuzz_words_free(char **argv)
{
	for (size_t i = 0; argv[i]; i++)
		free(argv[i]);
	free(argv);
}

void
fuzz_round_trip(const struct sbx_policy *p)
{
	struct sbx_err err = { 0 };
	struct sbx_policy q;
	char *ini, *ini2;

	ini = sbx_policy_to_ini(p, &err);
	if (ini == NULL)
		return; /* the writer refuses: allowed */
	sbx_policy_init(&q, FUZZ_HOME);
	if (sbx_profile_load_string(&q, "printed.ini", ini, &err) < 0) {
		fprintf(stderr, "the printed policy does not load: %s\n---\n%s---\n", err.msg, ini);
		abort();
	}
	ini2 = sbx_policy_to_ini(&q, &err);
	if (ini2 == NULL || strcmp(ini, ini2) != 0) {
		fprintf(stderr, "print -> parse -> print differs:\n---\n%s---\n%s---\n", ini,
		    ini2 ? ini2 : err.msg);
		abort();
	}
	free(ini);
	free(ini2);
	sbx_policy_free(&q);
}
