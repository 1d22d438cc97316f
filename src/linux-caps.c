#include "config.h"

#include "linux-caps.h"

typedef int sbx_placeholder_linux_caps;
