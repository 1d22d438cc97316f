/* Stub for make check-darwin: macOS numbers its own calls; none of
 * Linux's (openat2, pidfd_open) exist there. */
#ifndef STUB_SYS_SYSCALL_H
#define STUB_SYS_SYSCALL_H
#endif
