/* Stub for make check-darwin. */
#ifndef STUB_ARPA_INET_H
#define STUB_ARPA_INET_H
#include <netinet/in.h>
int inet_pton(int, const char *restrict, void *restrict);
const char *inet_ntop(int, const void *restrict, char *restrict, socklen_t);
int inet_aton(const char *, struct in_addr *);
#endif
