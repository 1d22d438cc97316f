#ifndef SBX_LINUX_CAPS_H
#define SBX_LINUX_CAPS_H
#endif
