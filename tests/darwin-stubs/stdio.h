/* Stub for make check-darwin. */
#ifndef STUB_STDIO_H
#define STUB_STDIO_H
#include <stdarg.h>
#include <stddef.h>
typedef struct __sFILE FILE;
extern FILE *__stderrp;
#define stderr __stderrp
int snprintf(char *restrict, size_t, const char *restrict, ...)
    __attribute__((format(printf, 3, 4)));
int vsnprintf(char *restrict, size_t, const char *restrict, va_list)
    __attribute__((format(printf, 3, 0)));
int fprintf(FILE *restrict, const char *restrict, ...) __attribute__((format(printf, 2, 3)));
#include <sys/types.h>
extern FILE *__stdinp, *__stdoutp;
#define stdin __stdinp
#define stdout __stdoutp
#define EOF (-1)
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
FILE *fopen(const char *restrict, const char *restrict);
FILE *fdopen(int, const char *);
int fclose(FILE *);
int fflush(FILE *);
int ferror(FILE *);
int fputs(const char *restrict, FILE *restrict);
int fputc(int, FILE *);
int puts(const char *);
int putchar(int);
char *fgets(char *restrict, int, FILE *restrict);
size_t fread(void *restrict, size_t, size_t, FILE *restrict);
size_t fwrite(const void *restrict, size_t, size_t, FILE *restrict);
ssize_t getline(char **restrict, size_t *restrict, FILE *restrict);
int sscanf(const char *restrict, const char *restrict, ...) __attribute__((format(scanf, 2, 3)));
int vasprintf(char **restrict, const char *restrict, va_list) __attribute__((format(printf, 2, 0)));
int vfprintf(FILE *restrict, const char *restrict, va_list) __attribute__((format(printf, 2, 0)));
int printf(const char *restrict, ...) __attribute__((format(printf, 1, 2)));
int renameat(int, const char *, int, const char *);
#endif
