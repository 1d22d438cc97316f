#include "config.h"

#include "plan.h"

typedef int sbx_placeholder_plan;
