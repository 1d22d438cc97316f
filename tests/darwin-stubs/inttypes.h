/* Stub for make check-darwin. */
#ifndef STUB_INTTYPES_H
#define STUB_INTTYPES_H
#include <stdint.h>
#define PRId64 "lld"
#define PRIu64 "llu"
#define PRIx64 "llx"
#define PRIu32 "u"
#define PRIdMAX "jd"
#define PRIuMAX "ju"
#endif
