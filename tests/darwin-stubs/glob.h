/* Stub for make check-darwin. */
#ifndef STUB_GLOB_H
#define STUB_GLOB_H
#include <stddef.h>
typedef struct {
	size_t gl_pathc;
	int gl_matchc;
	size_t gl_offs;
	int gl_flags;
	char **gl_pathv;
	void *__opaque[6];
} glob_t;
#define GLOB_MARK 0x0008
#define GLOB_NOCHECK 0x0010
#define GLOB_NOSORT 0x0020
#define GLOB_NOMATCH (-3)
int glob(const char *restrict, int, int (*)(const char *, int), glob_t *restrict);
void globfree(glob_t *);
#endif
