#include "config.h"

#include "seatbelt.h"

typedef int sbx_placeholder_seatbelt;
