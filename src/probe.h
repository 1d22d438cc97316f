/* --probe: what this machine offers, measured by each backend's probe. */
#ifndef SBX_PROBE_H
#define SBX_PROBE_H

#include "backend.h"

/* Runs every backend's probe into caps; returns the backend "auto" picks
 * (SBX_BACKEND_NONE when nothing is usable). */
enum sbx_backend_id sbx_probe_all(struct sbx_caps *caps);

/* The --probe JSON object (no newline); the caller frees it. */
char *sbx_probe_render(const struct sbx_caps *caps, enum sbx_backend_id pick);

/* The --version text: the version, then what this build holds: the
 * backends it can run on this OS (and those it cannot), the newest
 * Landlock ABI the code knows, and the libseccomp version it was built
 * against and the one it runs with. Several lines, each ending in a
 * newline; the caller frees it. */
char *sbx_version_render(void);

#endif
