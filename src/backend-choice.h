/* Which backend a run gets: the one asked for, or the first that "auto"
 * finds usable and able to enforce every rule the policy asks for, with
 * the reasons for each backend passed over. Pure: the probes and the
 * enforced-rule masks come through callbacks, which the choice calls
 * only for the backends it reaches, in order (a probe may be slow and
 * may fill in what a later mask depends on), so the rules are tested on a
 * table (tests/unit/test-backend-choice.c) and main.c runs the probes. */
#ifndef SBX_BACKEND_CHOICE_H
#define SBX_BACKEND_CHOICE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "policy.h"
#include "util.h"

/* The machine, as the choice asks about it. */
struct sbx_choice_facts {
	void *ctx;
	/* Whether backend id can run here: 0, or -1 with why filled. */
	int (*probe)(void *ctx, enum sbx_backend_id id, struct sbx_err *why);
	/* The rules backend id enforces here (diag.h's rule bits); asked
	 * after its probe succeeded, and of none without a probe. */
	uint32_t (*enforces)(void *ctx, enum sbx_backend_id id);
};

struct sbx_choice_in {
	enum sbx_backend_id asked; /* the policy's backend, or SBX_BACKEND_AUTO */
	const enum sbx_backend_id *order; /* what auto tries, in order */
	size_t norder;
	uint32_t requested; /* sbx_rules_requested() */
	bool allow_degraded;
	bool print_backend; /* --print-backend: describe, do not run */
	/* The choice is made again after this backend failed to start
	 * (SBX_EUNAVAIL): only the backends after it are tried, and err
	 * comes in holding why it failed. NULL: the first choice. */
	const enum sbx_backend_id *after;
	struct sbx_choice_facts facts;
};

struct sbx_choice {
	enum sbx_backend_id backend; /* the choice; SBX_BACKEND_AUTO: none */
	/* What the run's report records: the last backend whose probe
	 * succeeded (set even when it was then passed over), its rules. */
	bool reported;
	enum sbx_backend_id report_backend;
	uint32_t requested;
	uint32_t enforced;
	struct sbx_strv say; /* lines for stderr now */
	struct sbx_strv warnings; /* for the report's warnings */
};

/* Makes the choice. Returns 0 with out->backend set, or -1 with err
 * holding the reasons ("a; b"), each backend passed over named with why.
 * out is filled either way; the caller frees it with sbx_choice_free(). */
int sbx_backend_choose(const struct sbx_choice_in *in, struct sbx_choice *out, struct sbx_err *err);

void sbx_choice_free(struct sbx_choice *c);

#endif
