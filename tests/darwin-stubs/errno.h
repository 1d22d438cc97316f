/* Stub for make check-darwin. */
#ifndef STUB_ERRNO_H
#define STUB_ERRNO_H
extern int *__error(void);
#define errno (*__error())
#define EPERM 1
#define ENOENT 2
#define EINTR 4
#define E2BIG 7
#define ENOEXEC 8
#define ECHILD 10
#define ENOMEM 12
#define EACCES 13
#define EEXIST 17
#define ENOTDIR 20
#define EISDIR 21
#define EINVAL 22
#define EPIPE 32
#define ERANGE 34
#define EAGAIN 35
#define ENOTSUP 45
#define ELOOP 62
#define ENAMETOOLONG 63
#define ETIMEDOUT 60
#define ENOSYS 78
#define EIO 5
#define EBADF 9
#define EFAULT 14
#define EXDEV 18
#define EROFS 30
#define EINPROGRESS 36
#define EALREADY 37
#define ENOTSOCK 38
#define EMSGSIZE 40
#define EOPNOTSUPP 102
#define EAFNOSUPPORT 47
#define EADDRINUSE 48
#define EADDRNOTAVAIL 49
#define ENETUNREACH 51
#define ECONNABORTED 53
#define ECONNRESET 54
#define ENOBUFS 55
#define EISCONN 56
#define ECONNREFUSED 61
#define EHOSTUNREACH 65
#define ESTALE 70
#define EPROTO 100
#endif
