/* Stub for make check-darwin. */
#ifndef STUB_DIRENT_H
#define STUB_DIRENT_H
#include <sys/types.h>
struct dirent {
	ino_t d_ino;
	uint64_t d_seekoff;
	uint16_t d_reclen;
	uint16_t d_namlen;
	uint8_t d_type;
	char d_name[1024];
};
typedef struct __dirdesc DIR;
DIR *opendir(const char *);
struct dirent *readdir(DIR *);
int closedir(DIR *);
int dirfd(DIR *);
DIR *fdopendir(int);
void rewinddir(DIR *);
#endif
