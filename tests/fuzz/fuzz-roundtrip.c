/* A libFuzzer target for the --print-policy property: for every policy
 * that parses, print -> parse -> print is the identity, or the writer
 * refuses the policy (fuzz_round_trip() aborts otherwise). The input is a
 * profile's text, then optionally a NUL and flags applied over it (one
 * word per NUL-separated piece), as "sbxrun -p FILE FLAGS --print-policy"
 * would merge them: flags can give values no profile line can. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "fuzz.h"
#include "profile.h"

FUZZ_TARGET(roundtrip);

FUZZ_TARGET(roundtrip)
{
	const uint8_t *nul = memchr(data, '\0', size);
	size_t tlen = nul ? (size_t)(nul - data) : size;
	struct sbx_err err = { 0 };
	struct sbx_cli cli = { 0 };
	struct sbx_policy p;
	char *text = fuzz_strndup(data, tlen), **argv;
	int argc;

	argv = nul ? fuzz_words(nul + 1, size - tlen - 1, &argc) : fuzz_words(NULL, 0, &argc);
	sbx_policy_init(&p, FUZZ_HOME);
	if (sbx_profile_load_string(&p, "fuzz.ini", text, &err) == 0 &&
	    sbx_cli_parse(&cli, argc, argv, &err) == 0 && sbx_cli_apply(&cli, &p, &err) == 0 &&
	    sbx_policy_check(&p, &err) == 0)
		fuzz_round_trip(&p);
	sbx_cli_free(&cli);
	sbx_policy_free(&p);
	fuzz_words_free(argv);
	free(text);
	return 0;
}
