/* Stub for make check-darwin. */
#ifndef STUB_STRINGS_H
#define STUB_STRINGS_H
#include <stddef.h>
int strcasecmp(const char *, const char *);
int strncasecmp(const char *, const char *, size_t);
#endif
