/* Stub for make check-darwin: macOS has getentropy, not getrandom. */
#ifndef STUB_SYS_RANDOM_H
#define STUB_SYS_RANDOM_H
#include <stddef.h>
int getentropy(void *, size_t);
#endif
