/* A libFuzzer target for the profile reader (src/profile.c over inih):
 * the input is a profile's text. What must hold for any text: no
 * sanitizer report; a line reads the same whatever its length (inih's
 * own buffer is 200 bytes, and lines longer than that took another path
 * once), checked by reading the text again with every line padded past
 * that length with trailing blanks, which no line's meaning depends on;
 * and a profile that loads passes the --print-policy round trip. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "profile.h"

FUZZ_TARGET(profile);

/* The text with 256 blanks before every line end (and at the end). */
static char *
padded(const char *text)
{
	size_t n = strlen(text), lines = 1;
	char *out, *o;

	for (size_t i = 0; i < n; i++)
		lines += text[i] == '\n';
	o = out = malloc(n + lines * 256 + 1);
	if (out == NULL)
		abort();
	for (size_t i = 0; i <= n; i++) {
		if (i == n || text[i] == '\n') {
			/* A CR before the LF stays the line's last byte. */
			bool cr = o > out && o[-1] == '\r' && i > 0;

			if (cr)
				o--;
			memset(o, ' ', 256);
			o += 256;
			if (cr)
				*o++ = '\r';
		}
		if (i < n)
			*o++ = text[i];
	}
	*o = '\0';
	return out;
}

FUZZ_TARGET(profile)
{
	struct sbx_err err = { 0 }, err2 = { 0 };
	struct sbx_policy p, q;
	char *text = fuzz_strndup(data, size), *wide;
	int r, r2;

	sbx_policy_init(&p, FUZZ_HOME);
	r = sbx_profile_load_string(&p, "fuzz.ini", text, &err);
	if (r == 0 && sbx_policy_check(&p, &err) == 0)
		fuzz_round_trip(&p);

	wide = padded(text);
	sbx_policy_init(&q, FUZZ_HOME);
	r2 = sbx_profile_load_string(&q, "fuzz.ini", wide, &err2);
	if (r != r2) {
		fprintf(stderr, "short lines: %d (%s), long lines: %d (%s)\n", r, err.msg, r2,
		    err2.msg);
		abort();
	}
	if (r == 0) {
		struct sbx_err e1 = { 0 }, e2 = { 0 };
		char *a = sbx_policy_to_ini(&p, &e1), *b = sbx_policy_to_ini(&q, &e2);

		if ((a == NULL) != (b == NULL) || (a && strcmp(a, b) != 0)) {
			fprintf(stderr, "long lines read differently:\n%s---\n%s---\n",
			    a ? a : e1.msg, b ? b : e2.msg);
			abort();
		}
		free(a);
		free(b);
	}
	sbx_policy_free(&p);
	sbx_policy_free(&q);
	free(wide);
	free(text);
	return 0;
}
