/* Stub for make check-darwin: the compiler's limits.h, and PATH_MAX. */
#ifndef STUB_LIMITS_H
#define STUB_LIMITS_H
#include_next <limits.h>
#define PATH_MAX 1024
#define NAME_MAX 255
#define SSIZE_MAX LONG_MAX
#endif
