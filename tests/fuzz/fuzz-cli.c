/* A libFuzzer target for option parsing and the policy merge
 * (src/cli.c, src/policy.c): the input is an argv, one word per
 * NUL-separated piece. It is parsed, applied over the defaults and
 * checked as sbxrun does; a policy that passes must also pass the
 * --print-policy round trip. */
#include "config.h"

#include <stdlib.h>

#include "cli.h"
#include "fuzz.h"

FUZZ_TARGET(cli);

FUZZ_TARGET(cli)
{
	struct sbx_err err = { 0 };
	struct sbx_cli cli = { 0 };
	struct sbx_policy p;
	int argc;
	char **argv = fuzz_words(data, size, &argc);

	sbx_policy_init(&p, FUZZ_HOME);
	if (sbx_cli_parse(&cli, argc, argv, &err) == 0 && sbx_cli_apply(&cli, &p, &err) == 0 &&
	    sbx_policy_check(&p, &err) == 0)
		fuzz_round_trip(&p);
	sbx_cli_free(&cli);
	sbx_policy_free(&p);
	fuzz_words_free(argv);
	return 0;
}
