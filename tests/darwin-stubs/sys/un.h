/* Stub for make check-darwin. */
#ifndef STUB_SYS_UN_H
#define STUB_SYS_UN_H
#include <sys/socket.h>
struct sockaddr_un {
	unsigned char sun_len;
	sa_family_t sun_family;
	char sun_path[104];
};
#endif
