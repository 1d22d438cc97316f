#include "config.h"

#include "linux-mount.h"

typedef int sbx_placeholder_linux_mount;
