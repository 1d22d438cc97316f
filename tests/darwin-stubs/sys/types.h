/* Stub for make check-darwin: the types of macOS's <sys/types.h>. */
#ifndef STUB_SYS_TYPES_H
#define STUB_SYS_TYPES_H
#include <stddef.h>
#include <stdint.h>
typedef int pid_t;
typedef uint32_t uid_t;
typedef uint32_t gid_t;
typedef uint32_t id_t;
typedef long ssize_t;
typedef int64_t off_t;
typedef uint16_t mode_t;
typedef int32_t dev_t;
typedef uint64_t ino_t;
typedef uint16_t nlink_t;
typedef long time_t;
typedef int32_t suseconds_t;
typedef int64_t blkcnt_t;
typedef int32_t blksize_t;
#endif
