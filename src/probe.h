/* --probe: what this machine offers, measured by each backend's probe. */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include "backend.h"

/* Runs every backend's probe into caps; returns the backend "auto" picks
 * (SBX_BACKEND_NONE when nothing is usable). */
enum sbx_backend_id sbx_probe_all(struct sbx_caps *caps);

/* The --probe JSON object (no newline); the caller frees it. */
char *sbx_probe_render(const struct sbx_caps *caps, enum sbx_backend_id pick);

#endif
