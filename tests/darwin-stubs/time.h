/* Stub for make check-darwin. */
#ifndef STUB_TIME_H
#define STUB_TIME_H
#include <sys/types.h>
struct timespec {
	time_t tv_sec;
	long tv_nsec;
};
typedef enum { _CLOCK_REALTIME = 0, _CLOCK_MONOTONIC = 6 } clockid_t;
#define CLOCK_REALTIME _CLOCK_REALTIME
#define CLOCK_MONOTONIC _CLOCK_MONOTONIC
int nanosleep(const struct timespec *, struct timespec *);
int clock_gettime(clockid_t, struct timespec *);
struct tm {
	int tm_sec, tm_min, tm_hour, tm_mday, tm_mon, tm_year, tm_wday, tm_yday, tm_isdst;
	long tm_gmtoff;
	char *tm_zone;
};
time_t time(time_t *);
struct tm *gmtime_r(const time_t *restrict, struct tm *restrict);
struct tm *localtime_r(const time_t *restrict, struct tm *restrict);
size_t strftime(char *restrict, size_t, const char *restrict, const struct tm *restrict);
#endif
