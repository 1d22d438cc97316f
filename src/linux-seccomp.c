#include "config.h"

#include "linux-seccomp.h"

typedef int sbx_placeholder_linux_seccomp;
