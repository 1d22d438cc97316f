/* Stub for make check-darwin: fnmatch(3) is in macOS's libc. */
#ifndef STUB_FNMATCH_H
#define STUB_FNMATCH_H
#define FNM_NOMATCH 1
#define FNM_NOESCAPE 0x01
#define FNM_PATHNAME 0x02
#define FNM_PERIOD 0x04
int fnmatch(const char *, const char *, int);
#endif
