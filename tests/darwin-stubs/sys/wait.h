/* Stub for make check-darwin. */
#ifndef STUB_SYS_WAIT_H
#define STUB_SYS_WAIT_H
#include <sys/resource.h>
#include <sys/types.h>
#define WNOHANG 0x1
#define WIFEXITED(s) (((s)&0177) == 0)
#define WEXITSTATUS(s) (((s) >> 8) & 0xff)
#define WIFSIGNALED(s) (((s)&0177) != 0177 && ((s)&0177) != 0)
#define WTERMSIG(s) ((s)&0177)
pid_t waitpid(pid_t, int *, int);
pid_t wait4(pid_t, int *, int, struct rusage *);
#endif
