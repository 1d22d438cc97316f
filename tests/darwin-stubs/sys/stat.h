/* Stub for make check-darwin. */
#ifndef STUB_SYS_STAT_H
#define STUB_SYS_STAT_H
#include <sys/types.h>
#include <time.h>
struct stat {
	dev_t st_dev;
	mode_t st_mode;
	nlink_t st_nlink;
	ino_t st_ino;
	uid_t st_uid;
	gid_t st_gid;
	dev_t st_rdev;
	struct timespec st_atimespec, st_mtimespec, st_ctimespec, st_birthtimespec;
	off_t st_size;
	blkcnt_t st_blocks;
	blksize_t st_blksize;
	uint32_t st_flags;
	uint32_t st_gen;
};
#define S_IFMT 0170000
#define S_IFDIR 0040000
#define S_IFREG 0100000
#define S_IFLNK 0120000
#define S_ISDIR(m) (((m)&S_IFMT) == S_IFDIR)
#define S_ISREG(m) (((m)&S_IFMT) == S_IFREG)
#define S_ISLNK(m) (((m)&S_IFMT) == S_IFLNK)
int stat(const char *restrict, struct stat *restrict);
int lstat(const char *restrict, struct stat *restrict);
int fstat(int, struct stat *);
int mkdir(const char *, mode_t);
#define S_IRWXU 0000700
#define S_IRUSR 0000400
#define S_IWUSR 0000200
#define S_IXUSR 0000100
#define S_IWGRP 0000020
#define S_IROTH 0000004
#define S_IWOTH 0000002
#define S_IXOTH 0000001
#define S_ISUID 0004000
#define S_ISGID 0002000
#define S_ISVTX 0001000
int fstatat(int, const char *, struct stat *, int);
int fchmod(int, mode_t);
int fchmodat(int, const char *, mode_t, int);
int mkdirat(int, const char *, mode_t);
mode_t umask(mode_t);
#endif
