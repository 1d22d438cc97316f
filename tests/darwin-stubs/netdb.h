/* Stub for make check-darwin. */
#ifndef STUB_NETDB_H
#define STUB_NETDB_H
#include <sys/socket.h>
struct addrinfo {
	int ai_flags;
	int ai_family;
	int ai_socktype;
	int ai_protocol;
	socklen_t ai_addrlen;
	char *ai_canonname;
	struct sockaddr *ai_addr;
	struct addrinfo *ai_next;
};
int getaddrinfo(const char *restrict, const char *restrict, const struct addrinfo *restrict,
    struct addrinfo **restrict);
void freeaddrinfo(struct addrinfo *);
const char *gai_strerror(int);
#endif
