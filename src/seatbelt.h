#ifndef SBX_SEATBELT_H
#define SBX_SEATBELT_H
#endif
