/* Stub for make check-darwin. */
#ifndef STUB_SYS_UIO_H
#define STUB_SYS_UIO_H
#include <sys/types.h>
struct iovec {
	void *iov_base;
	size_t iov_len;
};
#endif
