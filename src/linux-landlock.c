#include "config.h"

#include "linux-landlock.h"

typedef int sbx_placeholder_linux_landlock;
