#ifndef SBX_LINUX_MOUNT_H
#define SBX_LINUX_MOUNT_H
#endif
