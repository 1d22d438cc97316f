/* Stub for make check-darwin (macOS's libc has strlcpy). */
#ifndef STUB_STRING_H
#define STUB_STRING_H
#include <stddef.h>
void *memset(void *, int, size_t);
void *memcpy(void *restrict, const void *restrict, size_t);
int memcmp(const void *, const void *, size_t);
size_t strlen(const char *);
int strcmp(const char *, const char *);
int strncmp(const char *, const char *, size_t);
char *strchr(const char *, int);
char *strrchr(const char *, int);
size_t strcspn(const char *, const char *);
size_t strspn(const char *, const char *);
char *strdup(const char *);
char *strerror(int);
size_t strlcpy(char *restrict, const char *restrict, size_t);
#include <strings.h>
void *memchr(const void *, int, size_t);
void *memmove(void *, const void *, size_t);
char *strcpy(char *restrict, const char *restrict);
char *strcat(char *restrict, const char *restrict);
char *strndup(const char *, size_t);
char *strstr(const char *, const char *);
char *strpbrk(const char *, const char *);
char *strtok_r(char *restrict, const char *restrict, char **restrict);
size_t strlcat(char *restrict, const char *restrict, size_t);
#endif
