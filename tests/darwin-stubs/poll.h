/* Stub for make check-darwin. */
#ifndef STUB_POLL_H
#define STUB_POLL_H
#define POLLIN 0x0001
#define POLLOUT 0x0004
#define POLLERR 0x0008
#define POLLHUP 0x0010
struct pollfd {
	int fd;
	short events;
	short revents;
};
typedef unsigned int nfds_t;
int poll(struct pollfd *, nfds_t, int);
#endif
