/* Stub for make check-darwin: macOS's setrlimit takes an int resource,
 * and counts ru_maxrss in bytes. */
#ifndef STUB_SYS_RESOURCE_H
#define STUB_SYS_RESOURCE_H
#include <sys/time.h>
#include <sys/types.h>
typedef uint64_t rlim_t;
struct rlimit {
	rlim_t rlim_cur;
	rlim_t rlim_max;
};
struct rusage {
	struct timeval ru_utime;
	struct timeval ru_stime;
	long ru_maxrss;
	long ru_ixrss, ru_idrss, ru_isrss, ru_minflt, ru_majflt, ru_nswap;
	long ru_inblock, ru_oublock, ru_msgsnd, ru_msgrcv, ru_nsignals;
	long ru_nvcsw, ru_nivcsw;
};
#define RLIM_INFINITY (((rlim_t)1 << 63) - 1)
#define RLIMIT_CPU 0
#define RLIMIT_FSIZE 1
#define RLIMIT_DATA 2
#define RLIMIT_STACK 3
#define RLIMIT_CORE 4
#define RLIMIT_AS 5
#define RLIMIT_NOFILE 8
#define RLIMIT_NPROC 7
#define RUSAGE_SELF 0
#define RUSAGE_CHILDREN (-1)
int getrlimit(int, struct rlimit *);
int setrlimit(int, const struct rlimit *);
int getrusage(int, struct rusage *);
#endif
