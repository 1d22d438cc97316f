/* Where the trace's events come from on Linux (trace.h writes them).
 *
 * With --trace the jail's seccomp filter also traps the file and exec
 * calls below to the supervisor's listener (and sendto without an
 * address, for the name lookups of a connected resolver socket). The
 * supervisor's dispatcher gives each to sbx_trace_observe(), which copies
 * the arguments out of the caller's memory and lets the call go on as the
 * kernel would (SECCOMP_USER_NOTIF_FLAG_CONTINUE). That is no security
 * decision: these calls are allowed by the policy anyway, and the kernel
 * (Landlock, the mounts, the permissions) judges them as it would without
 * tracing. A call the policy judges (network, metadata under landlock) is
 * never observed this way: it is judged and made as without tracing, and
 * traced from there (sbx_trace_net). Without --trace none of these traps
 * is in the filter.
 *
 * What an observed call names is read before it goes on, so a hostile
 * program can change its own memory in between and make the trace lie
 * about a pointer argument: the trace is evidence, not enforcement. */
#ifndef SBX_LINUX_TRACE_H
#define SBX_LINUX_TRACE_H

#include <linux/seccomp.h>
#include <stdbool.h>

#include "netsup.h"
#include "proxy.h"
#include "trace.h"

/* The calls trapped for the trace only (names, NULL-terminated). */
extern const char *const sbx_trace_calls[];

/* Whether the notification req is one to observe: a call of the list
 * above that nobody judges. meta_judged: the metadata calls are judged
 * (metasup.h) and so are not observed. */
bool sbx_trace_observes(const struct seccomp_notif *req, bool meta_judged);

/* Reads what req's call names, lets it go on (CONTINUE) on notify_fd, and
 * writes its event when the call was still waiting. */
void sbx_trace_observe(struct sbx_trace *t, int notify_fd, const struct seccomp_notif *req);

/* The event of a call that is judged elsewhere (a metadata change under
 * landlock), from its arguments; nothing is answered. */
void sbx_trace_note(struct sbx_trace *t, const struct seccomp_notif *req);

/* The network supervisor's decisions (an sbx_net_log_fn; ctx: the trace):
 * connects, binds, name lookups sent to port 53, refusals. */
void sbx_trace_net(void *ctx, const struct sbx_net_event *ev);

/* The proxy's decisions (an sbx_proxy_log_fn; ctx: the trace). */
void sbx_trace_proxy(void *ctx, const struct sbx_proxy_event *ev);

#endif
