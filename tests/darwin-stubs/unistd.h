/* Stub for make check-darwin. */
#ifndef STUB_UNISTD_H
#define STUB_UNISTD_H
#include <sys/types.h>
#define X_OK 1
#define F_OK 0
#define _SC_OPEN_MAX 5
void _exit(int) __attribute__((noreturn));
int access(const char *, int);
int chdir(const char *);
int close(int);
int dup2(int, int);
int execve(const char *, char *const[], char *const[]);
pid_t fork(void);
pid_t getpgrp(void);
pid_t getpid(void);
uid_t getuid(void);
uid_t geteuid(void);
gid_t getgid(void);
int pipe(int[2]);
ssize_t read(int, void *, size_t);
ssize_t write(int, const void *, size_t);
int rmdir(const char *);
int unlink(const char *);
long sysconf(int);
#define R_OK 4
#define W_OK 2
#define STDIN_FILENO 0
#define STDOUT_FILENO 1
#define STDERR_FILENO 2
#define _SC_PAGESIZE 29
#define _SC_PHYS_PAGES 200
int execvp(const char *, char *const[]);
int faccessat(int, const char *, int, int);
pid_t getppid(void);
pid_t setsid(void);
char *getcwd(char *, size_t);
off_t lseek(int, off_t, int);
int ftruncate(int, off_t);
ssize_t pread(int, void *, size_t, off_t);
int linkat(int, const char *, int, const char *, int);
ssize_t readlinkat(int, const char *restrict, char *restrict, size_t);
ssize_t readlink(const char *restrict, char *restrict, size_t);
int getgroups(int, gid_t[]);
int unlinkat(int, const char *, int);
int isatty(int);
int syscall(int, ...); /* deprecated on macOS, still declared */
#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2
#endif
