/* What the fuzz targets share. Each target file defines its entry point
 * with FUZZ_TARGET(name): under libFuzzer (./configure CC=clang
 * --enable-fuzzing) that is LLVMFuzzerTestOneInput, one program per
 * target; in the replay driver (FUZZ_REPLAY, replay.c) it is fuzz_NAME,
 * and one program replays every target's corpus in "make check". */
#ifndef SBX_FUZZ_H
#define SBX_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#include "policy.h"

#ifdef FUZZ_REPLAY
#define FUZZ_TARGET(name) int fuzz_##name(const uint8_t *data, size_t size)
#else
#define FUZZ_TARGET(name) int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
#endif

/* The home directory every target's policies expand "~" with. */
#define FUZZ_HOME "/home/fuzz"

/* Splits data at its NUL bytes into an argv: "sbxrun", then one word per
 * NUL-separated piece, then NULL. *argc counts the words with "sbxrun".
 * Free with fuzz_words_free(). */
char **fuzz_words(const uint8_t *data, size_t size, int *argc);
void fuzz_words_free(char **argv);

/* The --print-policy property: p is printed, the text is loaded into a
 * fresh policy, and that prints as the same text; or the writer refuses
 * p. Anything else aborts, for libFuzzer to report. */
void fuzz_round_trip(const struct sbx_policy *p);

/* A NUL-terminated copy of data (which may itself hold NUL bytes). */
char *fuzz_strndup(const uint8_t *data, size_t size);

#endif
