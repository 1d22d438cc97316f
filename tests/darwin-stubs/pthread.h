/* Stub for make check-darwin. */
#ifndef STUB_PTHREAD_H
#define STUB_PTHREAD_H
#include <sys/types.h>
typedef struct _opaque_pthread_t *pthread_t;
typedef struct {
	long __sig;
	char __opaque[56];
} pthread_mutex_t;
typedef struct {
	long __sig;
	char __opaque[40];
} pthread_cond_t;
typedef struct _opaque_attr pthread_attr_t;
typedef struct _opaque_mattr pthread_mutexattr_t;
typedef struct _opaque_cattr pthread_condattr_t;
#define PTHREAD_MUTEX_INITIALIZER \
	{ \
		0x32AAABA7, \
		{ \
			0 \
		} \
	}
#define PTHREAD_COND_INITIALIZER \
	{ \
		0x3CB0B1BB, \
		{ \
			0 \
		} \
	}
int pthread_create(
    pthread_t *restrict, const pthread_attr_t *restrict, void *(*)(void *), void *restrict);
int pthread_join(pthread_t, void **);
int pthread_detach(pthread_t);
int pthread_mutex_init(pthread_mutex_t *restrict, const pthread_mutexattr_t *restrict);
int pthread_mutex_destroy(pthread_mutex_t *);
int pthread_mutex_lock(pthread_mutex_t *);
int pthread_mutex_unlock(pthread_mutex_t *);
int pthread_cond_init(pthread_cond_t *restrict, const pthread_condattr_t *restrict);
int pthread_cond_destroy(pthread_cond_t *);
int pthread_cond_wait(pthread_cond_t *restrict, pthread_mutex_t *restrict);
int pthread_cond_signal(pthread_cond_t *);
int pthread_cond_broadcast(pthread_cond_t *);
#endif
