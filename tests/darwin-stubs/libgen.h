/* Stub for make check-darwin. */
#ifndef STUB_LIBGEN_H
#define STUB_LIBGEN_H
char *basename(char *);
char *dirname(char *);
#endif
