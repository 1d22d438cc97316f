/* Stub for make check-darwin. */
#ifndef STUB_STDLIB_H
#define STUB_STDLIB_H
#include <stddef.h>
void *malloc(size_t);
void *calloc(size_t, size_t);
void *realloc(void *, size_t);
void free(void *);
void abort(void) __attribute__((noreturn));
void exit(int) __attribute__((noreturn));
char *getenv(const char *);
long strtol(const char *restrict, char **restrict, int);
unsigned long long strtoull(const char *restrict, char **restrict, int);
void qsort(void *, size_t, size_t, int (*)(const void *, const void *));
char *mkdtemp(char *);
char *realpath(const char *restrict, char *restrict);
unsigned long strtoul(const char *restrict, char **restrict, int);
void arc4random_buf(void *, size_t);
int setenv(const char *, const char *, int);
int unsetenv(const char *);
#endif
