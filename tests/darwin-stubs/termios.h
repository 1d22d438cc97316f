/* Stub for make check-darwin: the termios(4) calls sbxrun uses on the
 * caller's terminal, with macOS's types and values (<sys/termios.h>). */
#ifndef STUB_TERMIOS_H
#define STUB_TERMIOS_H
#include <sys/types.h>
typedef unsigned long tcflag_t;
typedef unsigned char cc_t;
typedef unsigned long speed_t;
#define NCCS 20
struct termios {
	tcflag_t c_iflag;
	tcflag_t c_oflag;
	tcflag_t c_cflag;
	tcflag_t c_lflag;
	cc_t c_cc[NCCS];
	speed_t c_ispeed;
	speed_t c_ospeed;
};
#define IXON 0x00000200
#define TCSANOW 0
#define TCOON 2
int tcgetattr(int, struct termios *);
int tcsetattr(int, int, const struct termios *);
int tcflow(int, int);
#endif
