/* The built-in allowlist proxy.
 *
 * Processes and rights. Parsing what the sandbox sends is the riskiest
 * thing sbxrun does for it, so none of it happens inside sbxrun:
 *
 *   sbxrun (the caller's rights)  binds the listener on 127.0.0.1, forks
 *       the helper while still single-threaded, keeps one end of a
 *       SOCK_SEQPACKET channel, a pidfd and nothing else of the proxy.
 *       A reader thread takes the helper's events off the channel and
 *       checks each one (length, type, ranges, terminated strings) before
 *       counting a denial or logging it. At the end it shuts the channel
 *       down, waits a bounded time, kills the helper through the pidfd
 *       if it is still there, and reaps it.
 *   sbxrun-proxy (the helper)  dies with sbxrun (PR_SET_PDEATHSIG, and
 *       the parent checked after setting it), sits in a session of its
 *       own with every signal blocked, holds /dev/null on 0-2, the
 *       listener on 3, the channel on 4 and nothing else, and wipes the
 *       caller's environment from its memory. Then, before it reads a
 *       byte from the sandbox (linux-proxyjail.c): ids 65534 and no
 *       groups for a root caller, no capabilities and no_new_privs for
 *       anyone, a Landlock domain that reads only the resolver's files,
 *       binds no TCP port, connects only to the ports the allow entries
 *       name (and 53), and keeps its signals and abstract sockets home, and a seccomp allow-list of the calls below. Only then does
 *       it say READY and start the threads that serve the sandbox.
 *
 * A helper that misbehaves can lie in its events and refuse service to
 * the sandbox it serves; it cannot reach sbxrun's memory, descriptors or
 * rights, open a file beyond the resolver's, or start a process.
 *
 * How it never blocks the run: the proxy shares no loop with sbxrun's
 * supervisor. One accept thread takes connections off the listener and
 * gives each its own detached thread, so a slow or stalled client (or
 * server, or resolver) only ever holds its own thread. Every wait in a
 * connection thread is a poll() that also watches the stop pipe, with a
 * deadline where the peer could stall us for free: the request header
 * must be complete within SBX_PROXY_HDR_TIMEOUT_MS and SBX_PROXY_HDR_MAX
 * bytes, a connect gets SBX_PROXY_CONNECT_TIMEOUT_MS, and the proxy's own
 * answers SBX_PROXY_SEND_TIMEOUT_MS. An established tunnel has no idle
 * timeout (a quiet websocket is legitimate); it ends with either side or
 * with the run. At most SBX_PROXY_MAX_CONNS connections are served at
 * once, so the sandbox cannot spend the host's threads and descriptors.
 * The one call that cannot be interrupted is getaddrinfo(); a thread
 * still in it when the run ends finishes later without connecting.
 *
 * What it logs: one SBX_PROXY_DECISION event per request (allowed or not,
 * the status answered, the reason, method, host, port and the address
 * connected to or refused) and, for an allowed one, a SBX_PROXY_CLOSED
 * event with the bytes carried each way when it ends.
 *
 * Data moves through a buffer per direction with recv() and send().
 * splice(2) through a pipe halves the helper's CPU but not the path's:
 * each segment that came in becomes a fragment of its own on the way
 * out, and the client then copies the server's cold pages itself, so
 * the transfer was no faster (doc/design/proxy.md, Throughput). */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "linux-proxyjail.h"
#include "linux-route.h"
#include "policy.h"
#include "proxy.h"

#define SBX_PROXY_HDR_MAX (16 * 1024)
#define SBX_PROXY_HDR_TIMEOUT_MS 10000
#define SBX_PROXY_CONNECT_TIMEOUT_MS 10000
#define SBX_PROXY_SEND_TIMEOUT_MS 10000
#define SBX_PROXY_LINGER_MS 500
#define SBX_PROXY_STOP_WAIT_MS 2000
#define SBX_PROXY_MAX_CONNS 256
/* Announced sources not yet connected (struct sbx_proxy_admit): a
 * loopback connect completes at once, so an announcement older than
 * ADMIT_TTL_MS is stale (a connect the sandbox gave up on) and dropped;
 * past ADMIT_MAX the oldest goes first. */
#define ADMIT_MAX 512
#define ADMIT_TTL_MS 30000
#define SBX_PROXY_BUF_MIN (64 * 1024)
#define SBX_PROXY_BUF_MAX (1024 * 1024)
#define SBX_PROXY_STACK_SIZE (512 * 1024)

struct server {
	/* Set by open and start, then only read. */
	int lfd;
	int port;
	int wake[2]; /* written once by stop, never drained */
	struct sbx_strv allow, deny, methods; /* see struct sbx_proxy_rules */
	sbx_proxy_log_fn log;
	void *log_ctx;
	pthread_t acceptor;
	bool started;
	/* The announcements (the helper's end; -1: every client is served,
	 * as in the tests that drive the server directly), and those taken
	 * so far: read and changed by the accepting thread only. */
	int admit_fd;
	struct admitted {
		uint32_t addr;
		uint16_t port;
		uint64_t at_ms;
	} admitted[ADMIT_MAX];
	size_t nadmitted;

	pthread_mutex_t mu; /* guards everything below */
	pthread_cond_t idle; /* signalled when a connection ends */
	bool stopping;
	bool stopped;
	struct conn *conns; /* live connections */
	size_t nconns;
	uint64_t next_id;
	unsigned refs; /* the owner, plus one per live connection */

	pthread_mutex_t logmu; /* serializes callbacks */
	bool log_closed;
};

struct conn {
	struct server *p;
	struct conn *prev, *next;
	uint64_t id;
	int cfd; /* the client; closed under p->mu */
	char hdr[SBX_PROXY_HDR_MAX + 1];
	size_t hlen;
};

/* A parsed request. */
struct request {
	char method[32];
	bool connect;
	char host[SBX_HOST_MAX];
	uint16_t port;
	int minor; /* HTTP/1.minor */
	const char *path; /* origin-form target (plain requests) */
	size_t pathlen;
	const char *fields; /* header lines after the request line */
	size_t fieldslen;
	size_t end; /* length of the whole header block */
};

/* One direction of a relay: src -> buf -> dst, with a stage in front for
 * bytes the proxy wrote itself. */
struct dir {
	int src, dst;
	char *buf; /* allocated on first use */
	size_t cap; /* its size, doubled after each full read */
	size_t off, len; /* buf[off..len) is still to be written */
	bool full; /* the last read filled buf */
	bool eof; /* src has no more to give */
	bool shut; /* dst's write side is shut down */
	bool hdr; /* rewriting a response header first */
	struct sbx_buf hbuf; /* response header read so far */
	struct sbx_buf out; /* bytes to write to dst before anything else */
	size_t outoff;
	uint64_t bytes;
};

static uint64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static bool
is_stopping(struct server *p)
{
	bool r;

	pthread_mutex_lock(&p->mu);
	r = p->stopping;
	pthread_mutex_unlock(&p->mu);
	return r;
}

static void
emit(struct server *p, const struct sbx_proxy_event *ev)
{
	pthread_mutex_lock(&p->logmu);
	if (!p->log_closed && p->log != NULL)
		p->log(p->log_ctx, ev);
	pthread_mutex_unlock(&p->logmu);
}

/* Waits for events on fd, or for the stop pipe, until deadline (a
 * now_ms() value; 0 for none). Returns 1 when fd is ready, 0 on timeout,
 * -1 when the proxy is stopping. */
static int
wait_fd(struct server *p, int fd, short events, uint64_t deadline)
{
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = fd, .events = events },
			{ .fd = p->wake[0], .events = POLLIN },
		};
		int timeout = -1, n;

		if (deadline != 0) {
			uint64_t t = now_ms();

			if (t >= deadline)
				return 0;
			timeout = (int)(deadline - t);
		}
		n = poll(pfd, 2, timeout);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pfd[1].revents != 0)
			return -1;
		if (n > 0)
			return 1;
	}
}

/* Whether a failed non-blocking call should simply be retried later. */
static bool
again(void)
{
	return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR;
}

/* Writes all of buf to fd before deadline. Returns 0, or -1 (errno set;
 * ETIMEDOUT, ECANCELED when stopping). */
static int
send_all(struct server *p, int fd, const char *buf, size_t len, uint64_t deadline)
{
	while (len > 0) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);
		int w;

		if (n > 0) {
			buf += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && !again())
			return -1;
		w = wait_fd(p, fd, POLLOUT, deadline);
		if (w <= 0) {
			errno = w == 0 ? ETIMEDOUT : ECANCELED;
			return -1;
		}
	}
	return 0;
}

static const char *
status_text(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 408: return "Request Timeout";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	default: return "Error";
	}
}

/* Answers the client with an error and closes our side gracefully: unread
 * request bytes would make close() send a reset, which can destroy the
 * answer before the client reads it, so they are drained for a moment. */
/* Closes our side of fd gracefully after an answer: unread request
 * bytes would make close() send a reset, which can destroy the answer
 * before the client reads it, so they are drained for a moment. */
static void
linger_close(struct server *p, int fd)
{
	char drain[4096];
	uint64_t deadline;
	ssize_t n;

	shutdown(fd, SHUT_WR);
	deadline = now_ms() + SBX_PROXY_LINGER_MS;
	while (wait_fd(p, fd, POLLIN, deadline) > 0) {
		n = recv(fd, drain, sizeof(drain), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && !again()))
			break;
	}
}

/* Answers the client with an error and closes our side gracefully. */
static void
answer(struct server *p, int fd, int status, const char *reason)
{
	struct sbx_buf b = { 0 };
	int rc;

	sbx_buf_printf(&b,
	    "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\nContent-Length: %zu\r\n"
	    "Connection: close\r\n\r\nsbxrun proxy: %s\n",
	    status, status_text(status), strlen("sbxrun proxy: \n") + strlen(reason), reason);
	rc = send_all(p, fd, b.data, b.len, now_ms() + SBX_PROXY_SEND_TIMEOUT_MS);
	sbx_buf_free(&b);
	if (rc == 0)
		linger_close(p, fd);
}

/* The end of the header block in buf (len bytes): the offset just past
 * the empty line, or 0. A bare LF line end is accepted (RFC 9112 2.2).
 * from is where to start looking again. */
static size_t
header_end(const char *buf, size_t len, size_t from)
{
	for (size_t i = from; i < len; i++) {
		if (buf[i] != '\n')
			continue;
		if (i + 1 < len && buf[i + 1] == '\n')
			return i + 2;
		if (i + 2 < len && buf[i + 1] == '\r' && buf[i + 2] == '\n')
			return i + 3;
	}
	return 0;
}

/* Reads the request header into c->hdr. Returns its length, 0 when the
 * client went away or the proxy is stopping, or -408/-431. */
static long
read_request(struct conn *c, uint64_t deadline)
{
	size_t end, from = 0;

	for (;;) {
		ssize_t n;
		int w;

		if (c->hlen > 0 && (end = header_end(c->hdr, c->hlen, from)) != 0)
			return (long)end;
		from = c->hlen > 3 ? c->hlen - 3 : 0;
		if (c->hlen == SBX_PROXY_HDR_MAX)
			return -431;
		w = wait_fd(c->p, c->cfd, POLLIN, deadline);
		if (w < 0)
			return 0;
		if (w == 0)
			return -408;
		n = recv(c->cfd, c->hdr + c->hlen, SBX_PROXY_HDR_MAX - c->hlen, MSG_DONTWAIT);
		if (n == 0)
			return 0;
		if (n < 0) {
			if (again())
				continue;
			return 0;
		}
		c->hlen += (size_t)n;
		c->hdr[c->hlen] = '\0';
	}
}

static bool
is_tchar(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	    (c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL);
}

/* parse_authority()'s word for a host no rule can name: one
 * sbx_host_normalize() refuses ("127.1", "0x7f000001", a NUL, a space). */
static const char bad_host_name[] = "bad host name";

/* Parses "host[:port]" or "[v6][:port]" (n bytes). default_port 0: the
 * port is required. */
static const char *
parse_authority(const char *a, size_t n, uint16_t default_port, struct request *r)
{
	const char *host = a, *colon = NULL;
	size_t hostlen;
	unsigned long port = 0;

	if (n == 0)
		return "no host";
	if (memchr(a, '@', n) != NULL)
		return "user info in the authority";
	if (a[0] == '[') {
		const char *close = memchr(a, ']', n);

		if (close == NULL)
			return "bad IPv6 literal";
		hostlen = (size_t)(close - a) + 1;
		if (hostlen < n) {
			if (a[hostlen] != ':')
				return "bad authority";
			colon = a + hostlen;
		}
	} else {
		colon = memchr(a, ':', n);
		hostlen = colon ? (size_t)(colon - a) : n;
		if (colon && memchr(colon + 1, ':', n - hostlen - 1) != NULL)
			return "bad authority";
	}
	if (colon != NULL && (size_t)(colon - a) + 1 < n) {
		const char *d = colon + 1, *end = a + n;

		if (end - d > 5)
			return "bad port";
		for (; d < end; d++) {
			if (*d < '0' || *d > '9')
				return "bad port";
			port = port * 10 + (unsigned long)(*d - '0');
		}
		if (port == 0 || port > 65535)
			return "bad port";
	} else {
		if (default_port == 0)
			return "no port";
		port = default_port;
	}
	r->port = (uint16_t)port;
	if (!sbx_host_normalize(host, hostlen, r->host, sizeof(r->host))) {
		/* Kept as asked, for the refusal's event. */
		snprintf(r->host, sizeof(r->host), "%.*s", (int)hostlen, host);
		return bad_host_name;
	}
	return NULL;
}

/* Steps through the field lines of a header block: the next one in *line,
 * its length without the line end in *len; false at the empty line that
 * ends the block, or at stop. */
static bool
next_field(const char **pos, const char *stop, const char **line, size_t *len)
{
	const char *l = *pos, *e;

	if (l >= stop || (e = memchr(l, '\n', (size_t)(stop - l))) == NULL)
		return false;
	*len = (size_t)(e - l);
	if (*len > 0 && l[*len - 1] == '\r')
		(*len)--;
	*line = l;
	*pos = e + 1;
	return *len > 0;
}

/* Parses the request header in buf (end bytes). Returns NULL, or why the
 * request is malformed. */
static const char *
parse_request(const char *buf, size_t end, struct request *r)
{
	const char *p = buf, *stop = buf + end, *eol, *sp1, *sp2, *target, *line_end;
	size_t mlen, tlen, ll;

	memset(r, 0, sizeof(*r));
	r->end = end;
	if (memchr(buf, '\0', end) != NULL)
		return "NUL in the request header";
	/* RFC 9112 2.2: ignore empty lines before the request line. */
	while (p < stop && (*p == '\r' || *p == '\n'))
		p++;
	eol = memchr(p, '\n', (size_t)(stop - p));
	if (eol == NULL)
		return "no request line";
	line_end = eol > p && eol[-1] == '\r' ? eol - 1 : eol;
	sp1 = memchr(p, ' ', (size_t)(line_end - p));
	if (sp1 == NULL)
		return "bad request line";
	sp2 = memchr(sp1 + 1, ' ', (size_t)(line_end - sp1 - 1));
	if (sp2 == NULL)
		return "bad request line";
	mlen = (size_t)(sp1 - p);
	if (mlen == 0 || mlen >= sizeof(r->method))
		return "bad method";
	for (size_t i = 0; i < mlen; i++)
		if (!is_tchar(p[i]))
			return "bad method";
	memcpy(r->method, p, mlen);
	r->method[mlen] = '\0';
	target = sp1 + 1;
	tlen = (size_t)(sp2 - target);
	if (tlen == 0)
		return "bad request target";
	for (size_t i = 0; i < tlen; i++)
		if ((unsigned char)target[i] <= 0x20 || (unsigned char)target[i] >= 0x7f)
			return "bad request target";
	if (line_end - sp2 - 1 != 8 || memcmp(sp2 + 1, "HTTP/1.", 7) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return "not HTTP/1.0 or HTTP/1.1";
	r->minor = sp2[8] - '0';
	r->fields = eol + 1;
	r->fieldslen = (size_t)(stop - r->fields);

	/* Each field line is "name: value"; a line starting with white space
	 * (obsolete folding) is refused, as RFC 9112 5.2 allows. */
	for (const char *pos = r->fields, *l; next_field(&pos, stop, &l, &ll);) {
		const char *colon = memchr(l, ':', ll);

		if (colon == NULL || colon == l)
			return "bad header field";
		for (const char *c = l; c < colon; c++)
			if (!is_tchar(*c))
				return "bad header field";
	}

	if (strcmp(r->method, "CONNECT") == 0) {
		r->connect = true;
		return parse_authority(target, tlen, 0, r);
	}
	if (tlen < 7 || strncasecmp(target, "http://", 7) != 0) {
		if (tlen >= 8 && strncasecmp(target, "https://", 8) == 0)
			return "https:// needs CONNECT";
		return "not an absolute http:// URI";
	}
	{
		const char *auth = target + 7, *tend = target + tlen, *a;
		const char *why;

		for (a = auth; a < tend && *a != '/' && *a != '?' && *a != '#'; a++)
			;
		if ((why = parse_authority(auth, (size_t)(a - auth), 80, r)) != NULL)
			return why;
		r->path = a;
		r->pathlen = (size_t)(tend - a);
	}
	return NULL;
}

static bool
field_is(const char *line, size_t len, const char *name)
{
	size_t n = strlen(name);

	return len > n && line[n] == ':' && strncasecmp(line, name, n) == 0;
}

/* Hop-by-hop fields and fields for the proxy itself, which must not
 * travel on (RFC 9110 7.6.1): the proxy speaks for the connection. */
static bool
field_dropped(const char *line, size_t len, bool request)
{
	if (len > 6 && strncasecmp(line, "proxy-", 6) == 0)
		return true;
	return field_is(line, len, "connection") || field_is(line, len, "keep-alive") ||
	    (request && field_is(line, len, "host"));
}

/* Appends the field lines of fields (len bytes, up to the empty line) to
 * b with CRLF ends, without the dropped ones. */
static void
copy_fields(struct sbx_buf *b, const char *fields, size_t len, bool request)
{
	const char *stop = fields + len;

	size_t ll;

	for (const char *pos = fields, *l; next_field(&pos, stop, &l, &ll);) {
		if (!field_dropped(l, ll, request)) {
			sbx_buf_add(b, l, ll);
			sbx_buf_puts(b, "\r\n");
		}
	}
}

/* The request as it goes to the server: origin-form target, Host from the
 * URI, no hop-by-hop or proxy fields, and one request per connection. */
static void
build_request(struct sbx_buf *b, const struct request *r)
{
	sbx_buf_printf(b, "%s ", r->method);
	if (r->pathlen == 0 || r->path[0] != '/')
		sbx_buf_putc(b, '/');
	sbx_buf_add(b, r->path, r->pathlen);
	sbx_buf_printf(b, " HTTP/1.%d\r\nHost: %s", r->minor, r->host);
	if (r->port != 80)
		sbx_buf_printf(b, ":%u", r->port);
	sbx_buf_puts(b, "\r\n");
	copy_fields(b, r->fields, r->fieldslen, true);
	sbx_buf_puts(b, "Connection: close\r\n\r\n");
}

/* Rewrites the response header at the front of d->hbuf into d->out once
 * it is complete: a 1xx interim answer passes unchanged and the next one
 * is awaited; the final one loses its hop-by-hop fields and says
 * "Connection: close", so that the client does not send the next request
 * on a connection the proxy ties to this server. A header the proxy
 * cannot read passes unchanged. Returns whether anything was done. */
static bool
rewrite_response(struct dir *d)
{
	size_t end = header_end(d->hbuf.data, d->hbuf.len, 0);
	const char *h = d->hbuf.data, *eol;
	int code = 0;

	if (end == 0) {
		if (d->hbuf.len < SBX_PROXY_HDR_MAX && !d->eof)
			return false;
		sbx_buf_add(&d->out, h, d->hbuf.len);
		d->hbuf.len = 0;
		d->hdr = false;
		return true;
	}
	eol = memchr(h, '\n', end);
	if (end >= 12 && memcmp(h, "HTTP/1.", 7) == 0 && h[8] == ' ') {
		for (int i = 9; i < 12; i++)
			code =
			    h[i] >= '0' && h[i] <= '9' && code >= 0 ? code * 10 + (h[i] - '0') : -1;
	}
	if (code >= 100 && code < 200 && code != 101) {
		sbx_buf_add(&d->out, h, end);
	} else if (code >= 100) {
		size_t sl = (size_t)(eol - h);

		if (sl > 0 && h[sl - 1] == '\r')
			sl--;
		sbx_buf_add(&d->out, h, sl);
		sbx_buf_puts(&d->out, "\r\n");
		copy_fields(&d->out, eol + 1, end - (size_t)(eol + 1 - h), false);
		sbx_buf_puts(&d->out, "Connection: close\r\n\r\n");
		d->hdr = false;
	} else {
		sbx_buf_add(&d->out, h, d->hbuf.len);
		d->hbuf.len = 0;
		d->hdr = false;
		return true;
	}
	memmove(d->hbuf.data, d->hbuf.data + end, d->hbuf.len - end);
	d->hbuf.len -= end;
	if (!d->hdr && d->hbuf.len > 0) {
		sbx_buf_add(&d->out, d->hbuf.data, d->hbuf.len);
		d->hbuf.len = 0;
	}
	return true;
}

/* Moves what can move in d without blocking. Returns -1 on a broken
 * connection, else 0; *moved says whether anything happened. */
static int
pump(struct dir *d, bool *moved)
{
	for (;;) {
		bool progress = false;
		ssize_t n;

		if (d->outoff < d->out.len) {
			n = send(d->dst, d->out.data + d->outoff, d->out.len - d->outoff,
			    MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0) {
				d->outoff += (size_t)n;
				d->bytes += (uint64_t)n;
				progress = true;
			} else if (n < 0 && !again()) {
				return -1;
			}
			if (d->outoff < d->out.len)
				goto done;
			d->out.len = d->outoff = 0;
		}
		if (d->hdr) {
			char buf[8192];

			if (d->hbuf.len > 0 && rewrite_response(d)) {
				progress = true;
			} else if (d->eof) {
				d->hdr = false;
				progress = true;
			} else {
				size_t room = SBX_PROXY_HDR_MAX - d->hbuf.len;

				n = recv(d->src, buf, room < sizeof(buf) ? room : sizeof(buf),
				    MSG_DONTWAIT);
				if (n > 0) {
					sbx_buf_add(&d->hbuf, buf, (size_t)n);
					progress = true;
				} else if (n == 0) {
					d->eof = true;
					progress = true;
				} else if (!again()) {
					return -1;
				}
			}
			if (!progress)
				goto done;
			*moved = true;
			continue;
		}
		/* Reading only into an empty buffer keeps the direction in one
		 * of two states, waiting for src or waiting for dst, which is
		 * what dir_events() tells poll(). A bulk transfer, which fills
		 * the buffer, gets a bigger one: fewer, larger writes (1 MiB
		 * measured ahead of 256 KiB), while a quiet connection keeps
		 * 64 KiB. */
		if (!d->eof && d->len == 0) {
			if (d->buf == NULL || (d->full && d->cap < SBX_PROXY_BUF_MAX)) {
				d->cap = d->buf == NULL ? SBX_PROXY_BUF_MIN : d->cap * 2;
				free(d->buf);
				d->buf = sbx_xmalloc(d->cap);
			}
			n = recv(d->src, d->buf, d->cap, MSG_DONTWAIT);
			d->full = n > 0 && (size_t)n == d->cap;
			if (n > 0) {
				d->off = 0;
				d->len = (size_t)n;
				progress = true;
			} else if (n == 0) {
				d->eof = true;
				progress = true;
			} else if (!again()) {
				return -1;
			}
		}
		if (d->off < d->len) {
			n = send(
			    d->dst, d->buf + d->off, d->len - d->off, MSG_NOSIGNAL | MSG_DONTWAIT);
			if (n > 0) {
				d->off += (size_t)n;
				d->bytes += (uint64_t)n;
				if (d->off == d->len)
					d->off = d->len = 0;
				progress = true;
			} else if (n < 0 && !again()) {
				return -1;
			}
		}
	done:
		if (d->eof && !d->hdr && d->len == 0 && d->out.len == 0 && !d->shut) {
			shutdown(d->dst, SHUT_WR);
			d->shut = true;
		}
		if (!progress)
			return 0;
		*moved = true;
	}
}

/* The events d waits for on its source and its destination. */
static void
dir_events(const struct dir *d, short *src_ev, short *dst_ev)
{
	if (d->out.len > 0 || d->len > 0)
		*dst_ev |= POLLOUT;
	else if (!d->eof)
		*src_ev |= POLLIN;
}

static bool
dir_done(const struct dir *d)
{
	return d->shut;
}

static void
dir_init(struct dir *d, int src, int dst)
{
	memset(d, 0, sizeof(*d));
	d->src = src;
	d->dst = dst;
}

static void
dir_free(struct dir *d)
{
	free(d->buf);
	sbx_buf_free(&d->hbuf);
	sbx_buf_free(&d->out);
}

/* Carries bytes both ways between the client and the server until both
 * directions are done, either side breaks, or the proxy stops. For a
 * plain request (up_first holds the rewritten request) the connection
 * ends when the server's answer is complete. */
static void
relay(struct conn *c, int ufd, const struct sbx_buf *up_first, bool plain, uint64_t *up_bytes,
    uint64_t *down_bytes)
{
	struct dir up, down;

	dir_init(&up, c->cfd, ufd);
	dir_init(&down, ufd, c->cfd);
	if (up_first->len > 0)
		sbx_buf_add(&up.out, up_first->data, up_first->len);
	down.hdr = plain;

	for (;;) {
		struct pollfd pfd[3];
		short cev = 0, uev = 0;
		bool moved = false, hup = false;
		int n;

		if (pump(&up, &moved) < 0 || pump(&down, &moved) < 0)
			break;
		if (dir_done(&down) && (plain || dir_done(&up)))
			break;
		dir_events(&up, &cev, &uev);
		dir_events(&down, &uev, &cev);
		if (moved)
			continue;
		/* poll() ignores a negative fd, so a side with nothing to wait
		 * for cannot wake us with POLLHUP over and over. */
		pfd[0] = (struct pollfd){ .fd = cev ? c->cfd : -1, .events = cev };
		pfd[1] = (struct pollfd){ .fd = uev ? ufd : -1, .events = uev };
		pfd[2] = (struct pollfd){ .fd = c->p->wake[0], .events = POLLIN };
		n = poll(pfd, 3, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pfd[2].revents != 0)
			break;
		for (int i = 0; i < 2; i++)
			if (pfd[i].revents & (POLLERR | POLLNVAL))
				hup = true;
		if (hup) {
			moved = false;
			if (pump(&up, &moved) < 0 || pump(&down, &moved) < 0 || !moved)
				break;
		}
	}
	*up_bytes = up.bytes;
	*down_bytes = down.bytes;
	dir_free(&up);
	dir_free(&down);
}

static int
connect_addr(struct server *p, const struct addrinfo *ai, uint64_t deadline)
{
	socklen_t len = sizeof(int);
	int fd, w, soerr = 0;

	/* IPPROTO_TCP, spelled out: the proxy never opens MPTCP. */
	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, IPPROTO_TCP);
	if (fd < 0)
		return -1;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	w = wait_fd(p, fd, POLLOUT, deadline);
	if (w <= 0) {
		close(fd);
		errno = w == 0 ? ETIMEDOUT : ECANCELED;
		return -1;
	}
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) < 0 || soerr != 0) {
		close(fd);
		errno = soerr ? soerr : EIO;
		return -1;
	}
	return fd;
}

/* Whether the connection fd ended up on this machine after all: the
 * kernel picks a local destination's own address as the source, so equal
 * ends mean an address assigned after the interface list was read. */
static bool
connected_to_self(int fd)
{
	struct sockaddr_storage a, b;
	socklen_t al = sizeof(a), bl = sizeof(b);

	if (getsockname(fd, (struct sockaddr *)&a, &al) < 0 ||
	    getpeername(fd, (struct sockaddr *)&b, &bl) < 0)
		return true;
	return sbx_addr_equal((struct sockaddr *)&a, al, (struct sockaddr *)&b, bl);
}

static void
refuse(struct conn *c, struct sbx_proxy_event *ev, int status, const char *reason)
{
	ev->kind = SBX_PROXY_DECISION;
	ev->allowed = false;
	ev->status = status;
	ev->reason = reason;
	emit(c->p, ev);
	answer(c->p, c->cfd, status, reason);
}

/* The outcome of dial(): a connected socket, or why there is none. */
struct dialed {
	int fd; /* -1 when refused or failed */
	bool stopping; /* the proxy is stopping: say nothing, just end */
	int status; /* 403 (policy) or 502 (resolution, connection) */
	int err; /* the connect's errno, 0 if none */
	bool resolve_failed;
	const char *reason;
	char why[128];
	char addr[SBX_ADDR_STRLEN]; /* the address connected to or refused */
};

/* Whether a deny entry names the address a host resolved to:
 * --deny-host 198.51.100.7 keeps that address out however the request
 * spells the host (an allowed name of a wildcard that resolves to it),
 * not only when the request names it. */
static bool
addr_denied(const struct server *p, const struct sockaddr *sa, socklen_t len, uint16_t port)
{
	char a[INET6_ADDRSTRLEN], h[INET6_ADDRSTRLEN + 2];

	if (p->deny.n == 0)
		return false;
	sbx_addr_format(sa, len, a, sizeof(a));
	snprintf(h, sizeof(h), strchr(a, ':') ? "[%s]" : "%s", a);
	return sbx_host_decide(NULL, &p->deny, h, port) == SBX_HOST_DENIED;
}

/* Resolves host (normalized) once, checks every address, and connects
 * only to a checked one: the sockaddr that passed is the sockaddr used, so
 * no second lookup (DNS rebinding) can put another address in its place. */
static void
dial(struct server *p, const char *host, uint16_t port, struct dialed *d)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM, .ai_protocol = IPPROTO_TCP };
	struct addrinfo *res = NULL;
	struct sbx_addrlist own = { 0 };
	struct sbx_err err;
	struct in_addr a4;
	char name[SBX_HOST_MAX];
	uint64_t deadline;
	bool refused_any = false, denied_any = false;
	int rc;

	memset(d, 0, sizeof(*d));
	d->fd = -1;
	if (host[0] == '[') {
		snprintf(name, sizeof(name), "%.*s", (int)strlen(host) - 2, host + 1);
		hints.ai_flags = AI_NUMERICHOST;
	} else {
		snprintf(name, sizeof(name), "%s", host);
	}
	if (inet_pton(AF_INET, name, &a4) == 1)
		hints.ai_flags = AI_NUMERICHOST;
	rc = getaddrinfo(name, NULL, &hints, &res);
	if (is_stopping(p)) {
		if (rc == 0)
			freeaddrinfo(res);
		d->stopping = true;
		return;
	}
	if (rc != 0) {
		snprintf(d->why, sizeof(d->why), "cannot resolve host: %s", gai_strerror(rc));
		d->status = 502;
		d->reason = d->why;
		d->resolve_failed = true;
		return;
	}
	if (sbx_own_addrs(&own, &err) < 0) {
		freeaddrinfo(res);
		snprintf(d->why, sizeof(d->why), "cannot list local addresses: %s", err.msg);
		d->status = 502;
		d->reason = d->why;
		return;
	}
	deadline = now_ms() + SBX_PROXY_CONNECT_TIMEOUT_MS;
	for (struct addrinfo *ai = res; ai != NULL; ai = ai->ai_next) {
		if (ai->ai_family != AF_INET && ai->ai_family != AF_INET6)
			continue;
		if (ai->ai_family == AF_INET)
			((struct sockaddr_in *)ai->ai_addr)->sin_port = htons(port);
		else
			((struct sockaddr_in6 *)ai->ai_addr)->sin6_port = htons(port);
		/* The routing table too: an anycast or "local"-routed
		 * address is no interface's (sbx_own_addrs()) and still
		 * reaches this machine's services (linux-route.h). */
		bool denied = addr_denied(p, ai->ai_addr, ai->ai_addrlen, port);

		denied_any = denied_any || denied;
		if (denied || sbx_addr_refused(ai->ai_addr, ai->ai_addrlen, &own) ||
		    sbx_route_is_local(ai->ai_addr, ai->ai_addrlen) != 0) {
			if (!refused_any)
				sbx_addr_format(
				    ai->ai_addr, ai->ai_addrlen, d->addr, sizeof(d->addr));
			refused_any = true;
			continue;
		}
		sbx_addr_format(ai->ai_addr, ai->ai_addrlen, d->addr, sizeof(d->addr));
		d->fd = connect_addr(p, ai, deadline);
		if (d->fd >= 0 && connected_to_self(d->fd)) {
			close(d->fd);
			d->fd = -1;
			d->err = 0;
			refused_any = true;
			continue;
		}
		if (d->fd >= 0)
			break;
		d->err = errno;
		if (errno == ECANCELED)
			break;
	}
	freeaddrinfo(res);
	sbx_addrlist_free(&own);
	if (d->fd >= 0)
		return;
	if (d->err == ECANCELED) {
		d->stopping = true;
	} else if (d->err != 0) {
		snprintf(d->why, sizeof(d->why), "cannot connect: %s", strerror(d->err));
		d->status = 502;
		d->reason = d->why;
	} else if (refused_any) {
		d->status = 403;
		d->reason = denied_any ? "host resolves only to denied or local addresses"
				       : "host resolves only to local addresses";
	} else {
		d->status = 502;
		d->reason = "host has no IPv4 or IPv6 address";
	}
	if (!(refused_any || d->err != 0))
		d->addr[0] = '\0';
}

/* Carries an allowed connection to its end and logs it: first holds the
 * bytes that go to the server before anything the client sends now. */
static void
carry(struct conn *c, struct sbx_proxy_event *ev, int ufd, struct sbx_buf *first, bool plain)
{
	int one = 1;

	/* Tunnelled protocols are often request and answer: Nagle's
	 * algorithm against the peer's delayed ACK would stall each turn. */
	(void)setsockopt(ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	(void)setsockopt(c->cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	relay(c, ufd, first, plain, &ev->bytes_up, &ev->bytes_down);
	close(ufd);
	ev->kind = SBX_PROXY_CLOSED;
	emit(c->p, ev);
}

static void
serve_http(struct conn *c, uint64_t deadline)
{
	struct server *p = c->p;
	struct sbx_proxy_event ev = { .id = c->id };
	struct sbx_buf first = { 0 };
	struct request r;
	struct dialed d;
	enum sbx_host_verdict v;
	const char *reason;
	long end;

	end = read_request(c, deadline);
	if (end == 0)
		return;
	if (end < 0) {
		refuse(c, &ev, (int)-end,
		    end == -408 ? "request header not complete in time"
				: "request header too large");
		return;
	}
	if ((reason = parse_request(c->hdr, (size_t)end, &r)) != NULL) {
		if (r.method[0] != '\0')
			ev.method = r.method;
		/* A host no entry can name is a refusal of the rules, as the
		 * SOCKS5 side says: 403, counted, naming what was asked. */
		if (reason == bad_host_name) {
			ev.host = r.host;
			ev.port = r.port;
			refuse(
			    c, &ev, 403, "host not allowed (not a name or address the rules take)");
			return;
		}
		refuse(c, &ev, 400, reason);
		return;
	}
	ev.method = r.method;
	ev.host = r.host;
	ev.port = r.port;
	v = sbx_host_decide(&p->allow, &p->deny, r.host, r.port);
	if (v != SBX_HOST_ALLOWED) {
		refuse(c, &ev, 403, sbx_host_verdict_reason(v));
		return;
	}
	/* Methods restrict plain requests only: what travels in a tunnel is
	 * not the proxy's to read. */
	if (!r.connect && p->methods.n > 0 && !sbx_strv_contains(&p->methods, r.method)) {
		refuse(c, &ev, 403, "method not allowed");
		return;
	}
	dial(p, r.host, r.port, &d);
	if (d.stopping)
		return;
	if (d.fd < 0) {
		ev.addr = d.addr[0] ? d.addr : NULL;
		refuse(c, &ev, d.status, d.reason);
		return;
	}
	ev.kind = SBX_PROXY_DECISION;
	ev.allowed = true;
	ev.addr = d.addr;
	if (r.connect) {
		static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";

		ev.status = 200;
		emit(p, &ev);
		if (send_all(p, c->cfd, ok, sizeof(ok) - 1, now_ms() + SBX_PROXY_SEND_TIMEOUT_MS) <
		    0) {
			close(d.fd);
			ev.kind = SBX_PROXY_CLOSED;
			emit(p, &ev);
			return;
		}
	} else {
		ev.status = 0;
		emit(p, &ev);
		build_request(&first, &r);
	}
	/* Bytes the client sent after the header (a request body, or a
	 * TLS hello sent without waiting for the 200) go first. */
	if (c->hlen > (size_t)end)
		sbx_buf_add(&first, c->hdr + end, c->hlen - (size_t)end);
	carry(c, &ev, d.fd, &first, !r.connect);
	sbx_buf_free(&first);
}

/* ---- SOCKS5 (RFC 1928) on the same port ------------------------------
 *
 * CONNECT only, with no authentication: a client that offers only other
 * methods (username/password, GSSAPI) is told that none is acceptable.
 * Names are resolved by the proxy (socks5h); a name or an address goes
 * through exactly the host and port rules of a CONNECT tunnel. */

#define SOCKS_VERSION 5
#define SOCKS_OK 0x00
#define SOCKS_FAILURE 0x01
#define SOCKS_RULESET 0x02
#define SOCKS_NET_UNREACH 0x03
#define SOCKS_HOST_UNREACH 0x04
#define SOCKS_REFUSED 0x05
#define SOCKS_BAD_COMMAND 0x07
#define SOCKS_BAD_ATYP 0x08

/* Reads until c->hdr holds at least need bytes (need <= the buffer).
 * Returns 1, 0 when the client went away or the proxy stops, -1 when the
 * deadline passed. */
static int
read_at_least(struct conn *c, size_t need, uint64_t deadline)
{
	while (c->hlen < need) {
		ssize_t n;
		int w = wait_fd(c->p, c->cfd, POLLIN, deadline);

		if (w <= 0)
			return w < 0 ? 0 : -1;
		n = recv(c->cfd, c->hdr + c->hlen, SBX_PROXY_HDR_MAX - c->hlen, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && !again()))
			return 0;
		if (n > 0) {
			c->hlen += (size_t)n;
			c->hdr[c->hlen] = '\0';
		}
	}
	return 1;
}

/* Sends a SOCKS reply with code rep and an unspecified bound address;
 * for a refusal, then closes our side as answer() does. */
static int
socks_reply(struct server *p, int fd, int rep, bool final)
{
	const char r[10] = { SOCKS_VERSION, (char)rep, 0, 1, 0, 0, 0, 0, 0, 0 };

	if (send_all(p, fd, r, sizeof(r), now_ms() + SBX_PROXY_SEND_TIMEOUT_MS) < 0)
		return -1;
	if (final)
		linger_close(p, fd);
	return 0;
}

static void
socks_refuse(struct conn *c, struct sbx_proxy_event *ev, int rep, int status, const char *reason)
{
	ev->kind = SBX_PROXY_DECISION;
	ev->allowed = false;
	ev->status = status;
	ev->reason = reason;
	emit(c->p, ev);
	(void)socks_reply(c->p, c->cfd, rep, true);
}

/* The SOCKS reply for a connection that could not be made. */
static int
socks_dial_code(const struct dialed *d)
{
	if (d->status == 403)
		return SOCKS_RULESET;
	if (d->resolve_failed)
		return SOCKS_HOST_UNREACH;
	switch (d->err) {
	case ECONNREFUSED: return SOCKS_REFUSED;
	case ENETUNREACH: return SOCKS_NET_UNREACH;
	case EHOSTUNREACH:
	case ETIMEDOUT: return SOCKS_HOST_UNREACH;
	default: return SOCKS_FAILURE;
	}
}

static void
serve_socks(struct conn *c, uint64_t deadline)
{
	static const char method_ok[2] = { SOCKS_VERSION, 0x00 };
	static const char method_none[2] = { SOCKS_VERSION, (char)0xff };
	struct server *p = c->p;
	struct sbx_proxy_event ev = { .id = c->id, .method = "SOCKS5" };
	struct sbx_buf first = { 0 };
	const unsigned char *h = (const unsigned char *)c->hdr;
	char host[SBX_HOST_MAX];
	size_t g, need, alen;
	enum sbx_host_verdict v;
	struct dialed d;
	uint16_t port;
	int rc;

	/* Greeting: version, the number of methods, the methods. */
	if ((rc = read_at_least(c, 2, deadline)) <= 0 ||
	    (rc = read_at_least(c, 2 + (size_t)h[1], deadline)) <= 0) {
		if (rc < 0)
			socks_refuse(
			    c, &ev, SOCKS_FAILURE, 408, "SOCKS5 greeting not complete in time");
		return;
	}
	g = 2 + (size_t)h[1];
	if (memchr(h + 2, 0x00, g - 2) == NULL) {
		ev.kind = SBX_PROXY_DECISION;
		ev.status = 400;
		ev.reason = "SOCKS5 client offers no 'no authentication' method";
		emit(p, &ev);
		if (send_all(p, c->cfd, method_none, 2, now_ms() + SBX_PROXY_SEND_TIMEOUT_MS) == 0)
			linger_close(p, c->cfd);
		return;
	}
	if (send_all(p, c->cfd, method_ok, 2, now_ms() + SBX_PROXY_SEND_TIMEOUT_MS) < 0)
		return;

	/* Request: version, command, reserved, address type, address, port. */
	if ((rc = read_at_least(c, g + 5, deadline)) <= 0) {
		if (rc < 0)
			socks_refuse(
			    c, &ev, SOCKS_FAILURE, 408, "SOCKS5 request not complete in time");
		return;
	}
	if (h[g] != SOCKS_VERSION || h[g + 2] != 0) {
		socks_refuse(c, &ev, SOCKS_FAILURE, 400, "bad SOCKS5 request");
		return;
	}
	switch (h[g + 3]) {
	case 1: alen = 4; break;
	case 3: alen = 1 + (size_t)h[g + 4]; break;
	case 4: alen = 16; break;
	default:
		socks_refuse(c, &ev, SOCKS_BAD_ATYP, 400, "SOCKS5 address type not supported");
		return;
	}
	need = g + 4 + alen + 2;
	if ((rc = read_at_least(c, need, deadline)) <= 0) {
		if (rc < 0)
			socks_refuse(
			    c, &ev, SOCKS_FAILURE, 408, "SOCKS5 request not complete in time");
		return;
	}
	port = (uint16_t)(h[need - 2] << 8 | h[need - 1]);
	ev.port = port;
	if (h[g + 1] != 1) {
		/* BIND and UDP ASSOCIATE would open the host to inbound
		 * traffic or UDP: refused by sbxrun's rules, so a denial. */
		socks_refuse(
		    c, &ev, SOCKS_BAD_COMMAND, 403, "SOCKS5 command not supported (CONNECT only)");
		return;
	}
	if (h[g + 3] == 3) {
		if (!sbx_host_normalize(c->hdr + g + 5, alen - 1, host, sizeof(host))) {
			socks_refuse(c, &ev, SOCKS_RULESET, 403, "bad host name");
			return;
		}
	} else {
		char text[INET6_ADDRSTRLEN];
		int n;

		if (inet_ntop(h[g + 3] == 1 ? AF_INET : AF_INET6, h + g + 4, text, sizeof(text)) ==
		    NULL) {
			socks_refuse(c, &ev, SOCKS_FAILURE, 400, "bad SOCKS5 address");
			return;
		}
		n = snprintf(host, sizeof(host), h[g + 3] == 1 ? "%s" : "[%s]", text);
		if (n < 0 || (size_t)n >= sizeof(host)) {
			socks_refuse(c, &ev, SOCKS_FAILURE, 400, "bad SOCKS5 address");
			return;
		}
	}
	ev.host = host;
	v = sbx_host_decide(&p->allow, &p->deny, host, port);
	if (v != SBX_HOST_ALLOWED) {
		socks_refuse(c, &ev, SOCKS_RULESET, 403, sbx_host_verdict_reason(v));
		return;
	}
	dial(p, host, port, &d);
	if (d.stopping)
		return;
	if (d.fd < 0) {
		ev.addr = d.addr[0] ? d.addr : NULL;
		socks_refuse(c, &ev, socks_dial_code(&d), d.status, d.reason);
		return;
	}
	ev.kind = SBX_PROXY_DECISION;
	ev.allowed = true;
	ev.status = 200;
	ev.addr = d.addr;
	emit(p, &ev);
	if (socks_reply(p, c->cfd, SOCKS_OK, false) < 0) {
		close(d.fd);
		ev.kind = SBX_PROXY_CLOSED;
		emit(p, &ev);
		return;
	}
	/* Bytes a client sent without waiting for the reply go first. */
	if (c->hlen > need)
		sbx_buf_add(&first, c->hdr + need, c->hlen - need);
	carry(c, &ev, d.fd, &first, false);
	sbx_buf_free(&first);
}

/* One client: SOCKS5 when its first byte is 5 (no HTTP request line
 * starts with that byte), HTTP otherwise. */
static void
serve(struct conn *c)
{
	uint64_t deadline = now_ms() + SBX_PROXY_HDR_TIMEOUT_MS;
	int rc = read_at_least(c, 1, deadline);

	if (rc < 0) {
		struct sbx_proxy_event ev = { .id = c->id };

		refuse(c, &ev, 408, "request header not complete in time");
		return;
	}
	if (rc == 0)
		return;
	if (c->hdr[0] == SOCKS_VERSION)
		serve_socks(c, deadline);
	else
		serve_http(c, deadline);
}

static void
proxy_destroy(struct server *p)
{
	if (p->lfd >= 0)
		close(p->lfd);
	if (p->wake[0] >= 0)
		close(p->wake[0]);
	if (p->wake[1] >= 0)
		close(p->wake[1]);
	sbx_strv_free(&p->allow);
	sbx_strv_free(&p->deny);
	sbx_strv_free(&p->methods);
	pthread_cond_destroy(&p->idle);
	pthread_mutex_destroy(&p->mu);
	pthread_mutex_destroy(&p->logmu);
	free(p);
}

/* Ends a connection: closes its socket, takes it off the list and drops
 * its reference; frees c. Returns whether that was the proxy's last
 * reference. */
static bool
conn_release(struct conn *c)
{
	struct server *p = c->p;
	bool last;

	pthread_mutex_lock(&p->mu);
	/* Closed under the lock: stop() shuts down live client sockets by
	 * number, which must not be reused under it. */
	close(c->cfd);
	if (c->prev)
		c->prev->next = c->next;
	else
		p->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	p->nconns--;
	last = --p->refs == 0;
	pthread_cond_broadcast(&p->idle);
	pthread_mutex_unlock(&p->mu);
	free(c);
	return last;
}

static void *
conn_main(void *arg)
{
	struct conn *c = arg;
	struct server *p = c->p;

	serve(c);
	if (conn_release(c))
		proxy_destroy(p);
	return NULL;
}

static void
conn_spawn(struct server *p, int fd)
{
	struct conn *c;
	pthread_attr_t attr;
	pthread_t t;
	bool full;
	int rc;

	pthread_mutex_lock(&p->mu);
	full = p->nconns >= SBX_PROXY_MAX_CONNS;
	if (p->stopping || full) {
		struct sbx_proxy_event ev = {
			.kind = SBX_PROXY_DECISION,
			.id = ++p->next_id,
			.status = 503,
			.reason = "too many connections",
		};

		pthread_mutex_unlock(&p->mu);
		if (full) {
			static const char busy[] =
			    "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
			    "Connection: close\r\n\r\n";

			/* Never wait on this client: the accept thread serves
			 * everyone. The answer fits any socket buffer. */
			(void)send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			emit(p, &ev);
		}
		close(fd);
		return;
	}
	c = sbx_xcalloc(1, sizeof(*c));
	c->p = p;
	c->cfd = fd;
	c->id = ++p->next_id;
	c->next = p->conns;
	if (p->conns)
		p->conns->prev = c;
	p->conns = c;
	p->nconns++;
	p->refs++;
	pthread_mutex_unlock(&p->mu);

	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, SBX_PROXY_STACK_SIZE);
	rc = pthread_create(&t, &attr, conn_main, c);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		(void)conn_release(c); /* never the last: the owner joins the acceptor first */
}

/* Takes every announcement waiting on admit_fd. */
static void
admit_read(struct server *p)
{
	struct sbx_proxy_admit a;
	uint64_t now = now_ms();
	size_t k = 0;

	while (recv(p->admit_fd, &a, sizeof(a), MSG_DONTWAIT) == (ssize_t)sizeof(a)) {
		for (size_t i = 0; i < p->nadmitted; i++)
			if (p->admitted[i].addr == a.addr && p->admitted[i].port == a.port) {
				p->admitted[i] = p->admitted[--p->nadmitted];
				break;
			}
		if (!a.add)
			continue;
		if (p->nadmitted == ADMIT_MAX) {
			size_t oldest = 0;

			for (size_t i = 1; i < p->nadmitted; i++)
				if (p->admitted[i].at_ms < p->admitted[oldest].at_ms)
					oldest = i;
			p->admitted[oldest] = p->admitted[--p->nadmitted];
		}
		p->admitted[p->nadmitted++] = (struct admitted){ a.addr, a.port, now };
	}
	for (size_t i = 0; i < p->nadmitted; i++)
		if (now - p->admitted[i].at_ms <= ADMIT_TTL_MS)
			p->admitted[k++] = p->admitted[i];
	p->nadmitted = k;
}

/* Whether the client at peer was announced; its announcement is used up. */
static bool
admit_take(struct server *p, const struct sockaddr_in *peer)
{
	if (p->admit_fd < 0)
		return true;
	admit_read(p);
	if (peer->sin_family != AF_INET)
		return false;
	for (size_t i = 0; i < p->nadmitted; i++)
		if (p->admitted[i].addr == peer->sin_addr.s_addr &&
		    p->admitted[i].port == peer->sin_port) {
			p->admitted[i] = p->admitted[--p->nadmitted];
			return true;
		}
	return false;
}

static void *
accept_main(void *arg)
{
	struct server *p = arg;

	for (;;) {
		struct pollfd pfd[3] = {
			{ .fd = p->lfd, .events = POLLIN },
			{ .fd = p->wake[0], .events = POLLIN },
			{ .fd = p->admit_fd, .events = POLLIN },
		};
		struct sockaddr_in peer = { 0 };
		socklen_t len = sizeof(peer);
		int fd, n;

		n = poll(pfd, p->admit_fd >= 0 ? 3 : 2, -1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || pfd[1].revents != 0)
			break;
		if (p->admit_fd >= 0 && pfd[2].revents != 0)
			admit_read(p);
		if (pfd[0].revents == 0)
			continue;
		fd = accept4(p->lfd, (struct sockaddr *)&peer, &len, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd >= 0 && !admit_take(p, &peer)) {
			/* Not the sandbox's: another local user, or anything
			 * else of the machine's. Not served, not counted, not
			 * in the trace. */
			close(fd);
			continue;
		}
		if (fd < 0) {
			/* Out of descriptors or memory: back off instead of
			 * spinning on a listener that stays readable. */
			if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
			    errno == ENOMEM) {
				struct pollfd w = { .fd = p->wake[0], .events = POLLIN };

				if (poll(&w, 1, 100) > 0)
					break;
			}
			continue;
		}
		conn_spawn(p, fd);
	}
	return NULL;
}

/* The server inside the helper, serving the listener lfd. */
static int
server_open(struct server **sp, int lfd, const struct sbx_proxy_rules *rules, struct sbx_err *err)
{
	struct server *p;
	pthread_condattr_t ca;

	p = sbx_xcalloc(1, sizeof(*p));
	p->lfd = lfd;
	p->admit_fd = -1;
	p->wake[0] = p->wake[1] = -1;
	p->refs = 1;
	pthread_mutex_init(&p->mu, NULL);
	pthread_mutex_init(&p->logmu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&p->idle, &ca);
	pthread_condattr_destroy(&ca);
	if (rules->allow != NULL)
		sbx_strv_copy(&p->allow, rules->allow);
	if (rules->deny != NULL)
		sbx_strv_copy(&p->deny, rules->deny);
	if (rules->methods != NULL)
		sbx_strv_copy(&p->methods, rules->methods);
	if (pipe2(p->wake, O_CLOEXEC | O_NONBLOCK) < 0) {
		sbx_err_sys(err, "proxy: pipe");
		proxy_destroy(p);
		return -1;
	}
	*sp = p;
	return 0;
}

static int
server_start(struct server *p, sbx_proxy_log_fn log, void *ctx, struct sbx_err *err)
{
	int rc;

	p->log = log;
	p->log_ctx = ctx;
	/* The helper blocks every signal before it starts a thread, and
	 * threads inherit the mask; writes to a dead peer use MSG_NOSIGNAL,
	 * so no SIGPIPE is raised at all. */
	rc = pthread_create(&p->acceptor, NULL, accept_main, p);
	if (rc != 0) {
		errno = rc;
		return sbx_err_sys(err, "proxy: pthread_create");
	}
	p->started = true;
	return 0;
}

/* Stops serving: closes the listener, cuts every connection and waits
 * for the connection threads, at most SBX_PROXY_STOP_WAIT_MS: a thread
 * still inside getaddrinfo() dies with the helper. No log callback runs
 * after this returns. */
static void
server_stop(struct server *p)
{
	struct timespec ts;
	uint64_t ns;

	pthread_mutex_lock(&p->mu);
	p->stopping = true;
	p->stopped = true;
	pthread_mutex_unlock(&p->mu);

	if (p->started) {
		/* One byte, never read: the pipe stays readable, so every poll
		 * in every thread, now or later, sees the stop. */
		(void)write(p->wake[1], "x", 1);
		pthread_join(p->acceptor, NULL);
		close(p->lfd);
		p->lfd = -1;

		clock_gettime(CLOCK_MONOTONIC, &ts);
		ns = (uint64_t)ts.tv_nsec + (uint64_t)SBX_PROXY_STOP_WAIT_MS * 1000000;
		ts.tv_sec += (time_t)(ns / 1000000000);
		ts.tv_nsec = (long)(ns % 1000000000);
		pthread_mutex_lock(&p->mu);
		/* A thread inside getaddrinfo() cannot see the stop pipe;
		 * its client learns now that the proxy is gone. */
		for (struct conn *c = p->conns; c != NULL; c = c->next)
			shutdown(c->cfd, SHUT_RDWR);
		while (p->nconns > 0)
			if (pthread_cond_timedwait(&p->idle, &p->mu, &ts) == ETIMEDOUT)
				break;
		pthread_mutex_unlock(&p->mu);
	}
	pthread_mutex_lock(&p->logmu);
	p->log_closed = true;
	pthread_mutex_unlock(&p->logmu);
}

/* ---- The channel between the helper and sbxrun ----------------------
 *
 * One SOCK_SEQPACKET socket pair: each message is one struct wire, sent
 * whole and received whole. sbxrun trusts none of it: a message of any
 * other length, an unknown type or kind, a value out of range or a
 * string without its NUL inside its field ends the helper (it no longer
 * speaks the protocol, so it is no longer the proxy sbxrun started).
 * recv() offers no control buffer, so descriptors the helper might attach
 * (SCM_RIGHTS) are closed by the kernel, never installed in sbxrun. */

enum wire_type {
	WIRE_READY = 1, /* helper -> sbxrun: confined and about to serve */
	WIRE_ERROR, /* helper -> sbxrun: could not start; reason says why */
	WIRE_EVENT, /* helper -> sbxrun: one struct sbx_proxy_event */
};

#define WIRE_REASON 0x1u
#define WIRE_METHOD 0x2u
#define WIRE_HOST 0x4u
#define WIRE_ADDR 0x8u

struct wire {
	uint32_t type;
	uint32_t kind; /* enum sbx_proxy_event_kind */
	uint64_t id;
	uint32_t allowed;
	int32_t status; /* WIRE_ERROR: the errno */
	uint32_t port;
	uint32_t have; /* WIRE_* bits: which strings are present */
	uint64_t bytes_up;
	uint64_t bytes_down;
	char reason[SBX_ERR_MSG];
	char method[32];
	char host[SBX_HOST_MAX];
	char addr[SBX_ADDR_STRLEN];
};

static void
wire_put(char *dst, size_t size, const char *s, uint32_t bit, uint32_t *have)
{
	if (s == NULL)
		return;
	snprintf(dst, size, "%s", s);
	*have |= bit;
}

static void
wire_send(int chan, const struct wire *w)
{
	ssize_t n;

	/* Blocking: sbxrun drains the channel on a thread of its own. A
	 * closed channel means sbxrun is gone, and so will the helper be. */
	do
		n = send(chan, w, sizeof(*w), MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
}

/* The helper's log callback: every event goes to sbxrun. */
static void
helper_log(void *ctx, const struct sbx_proxy_event *ev)
{
	struct wire w;

	memset(&w, 0, sizeof(w));
	w.type = WIRE_EVENT;
	w.kind = (uint32_t)ev->kind;
	w.id = ev->id;
	w.allowed = ev->allowed;
	w.status = ev->status;
	w.port = ev->port;
	w.bytes_up = ev->bytes_up;
	w.bytes_down = ev->bytes_down;
	wire_put(w.reason, sizeof(w.reason), ev->reason, WIRE_REASON, &w.have);
	wire_put(w.method, sizeof(w.method), ev->method, WIRE_METHOD, &w.have);
	wire_put(w.host, sizeof(w.host), ev->host, WIRE_HOST, &w.have);
	wire_put(w.addr, sizeof(w.addr), ev->addr, WIRE_ADDR, &w.have);
	wire_send(*(int *)ctx, &w);
}

static const char *
wire_str(const char *field, size_t size, uint32_t have, uint32_t bit, bool *ok)
{
	if (memchr(field, '\0', size) == NULL)
		*ok = false;
	return (have & bit) ? field : NULL;
}

/* Checks a message of n bytes from the helper; fills ev (pointing into
 * w) for a WIRE_EVENT. */
static bool
wire_check(const struct wire *w, size_t n, struct sbx_proxy_event *ev)
{
	bool ok = true;

	if (n != sizeof(*w) || (w->have & ~(WIRE_REASON | WIRE_METHOD | WIRE_HOST | WIRE_ADDR)))
		return false;
	memset(ev, 0, sizeof(*ev));
	ev->reason = wire_str(w->reason, sizeof(w->reason), w->have, WIRE_REASON, &ok);
	ev->method = wire_str(w->method, sizeof(w->method), w->have, WIRE_METHOD, &ok);
	ev->host = wire_str(w->host, sizeof(w->host), w->have, WIRE_HOST, &ok);
	ev->addr = wire_str(w->addr, sizeof(w->addr), w->have, WIRE_ADDR, &ok);
	if (!ok)
		return false;
	if (w->type == WIRE_READY || w->type == WIRE_ERROR)
		return true;
	if (w->type != WIRE_EVENT ||
	    (w->kind != SBX_PROXY_DECISION && w->kind != SBX_PROXY_CLOSED) || w->allowed > 1 ||
	    w->status < 0 || w->status > 999 || w->port > 65535 || w->id == 0)
		return false;
	ev->kind = (enum sbx_proxy_event_kind)w->kind;
	ev->id = w->id;
	ev->allowed = w->allowed != 0;
	ev->status = w->status;
	ev->port = (uint16_t)w->port;
	ev->bytes_up = w->bytes_up;
	ev->bytes_down = w->bytes_down;
	return true;
}

/* Receives one message; returns its length, 0 at the end of the channel,
 * -1 on an error. */
static ssize_t
wire_recv(int chan, struct wire *w)
{
	/* One byte more than a message: a longer one shows as too long
	 * (SOCK_SEQPACKET truncates to the buffer and says MSG_TRUNC). */
	struct {
		struct wire w;
		char extra;
	} buf;
	ssize_t n;

	do
		n = recv(chan, &buf, sizeof(buf), MSG_TRUNC);
	while (n < 0 && errno == EINTR);
	if (n > 0)
		memcpy(w, &buf.w, (size_t)n < sizeof(*w) ? (size_t)n : sizeof(*w));
	return n;
}

/* ---- The helper process ---------------------------------------------- */

#define HELPER_LFD 3
#define HELPER_CHAN 4
#define HELPER_ADMIT 5
#define SBX_PROXY_READY_MS 10000

/* The environment variable through which a test asks the helper to
 * open a file once it is confined (see doc/design/proxy.md). */
#define SBX_PROXY_TEST_OPEN "SBXRUN_TEST_PROXY_OPEN"

static void __attribute__((noreturn)) helper_fail(int chan, const struct sbx_err *err)
{
	struct wire w;

	memset(&w, 0, sizeof(w));
	w.type = WIRE_ERROR;
	w.status = err->errnum;
	wire_put(w.reason, sizeof(w.reason), err->msg, WIRE_REASON, &w.have);
	wire_send(chan, &w);
	_exit(1);
}

/* The helper, from fork() to _exit(): never returns. */
static void __attribute__((noreturn))
helper_main(pid_t parent, int lfd, int chan, int admit, const struct sbx_proxy_rules *rules)
{
	struct sbx_ports ports = { 0 };
	static char test_open[4096];
	struct sbx_err err = { 0 };
	struct server *srv;
	struct wire w;
	sigset_t all;
	const char *t;
	char c;
	int null;

	/* Die with sbxrun, even if it died before this line. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != parent)
		_exit(1);
	/* Signals: none handled, the terminal's (^C) never seen. sbxrun
	 * ends the helper through the channel or with SIGKILL. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	(void)setsid();
	(void)prctl(PR_SET_NAME, "sbxrun-proxy", 0, 0, 0);

	/* Descriptors: /dev/null on 0-2, the listener on 3, the channel on
	 * 4, the announcements on 5, nothing else of sbxrun's (the script
	 * on stdin, the caller's terminal, the diagnostics descriptor, ...). */
	/* Copies above any number in use first (F_DUPFD picks a free one),
	 * so that placing one cannot close the other. */
	lfd = fcntl(lfd, F_DUPFD_CLOEXEC, HELPER_ADMIT + 1);
	chan = fcntl(chan, F_DUPFD_CLOEXEC, HELPER_ADMIT + 1);
	admit = fcntl(admit, F_DUPFD_CLOEXEC, HELPER_ADMIT + 1);
	if (lfd < 0 || chan < 0 || admit < 0 || dup3(lfd, HELPER_LFD, O_CLOEXEC) < 0 ||
	    dup3(chan, HELPER_CHAN, O_CLOEXEC) < 0 || dup3(admit, HELPER_ADMIT, O_CLOEXEC) < 0)
		_exit(1);
	chan = HELPER_CHAN;
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd <= 2; fd++) {
		if (null >= 0 && null != fd)
			(void)dup2(null, fd);
		else if (null < 0)
			close(fd);
	}
	closefrom(HELPER_ADMIT + 1);

	/* The caller's environment stays out of the helper's memory, but
	 * for the one test variable, copied first. */
	t = getenv(SBX_PROXY_TEST_OPEN);
	if (t != NULL)
		snprintf(test_open, sizeof(test_open), "%s", t);
	for (char **e = environ; e != NULL && *e != NULL; e++)
		explicit_bzero(*e, strlen(*e));
	(void)clearenv();

	if (server_open(&srv, HELPER_LFD, rules, &err) < 0)
		helper_fail(chan, &err);
	srv->admit_fd = rules->serve_unannounced ? -1 : HELPER_ADMIT;
	/* The helper connects only to the ports the allow entries name, and
	 * to 53, where the resolver retries a truncated answer over TCP. */
	sbx_host_allow_ports(rules->allow, &ports);
	sbx_ports_add(&ports, 53);
	if (sbx_proxyjail_enter(&ports, &err) < 0)
		helper_fail(chan, &err);
	/* A test's probe of the walls: a file this opens stays open, in
	 * sight of /proc/PID/fd; one the walls refuse leaves no trace. */
	if (test_open[0] != '\0')
		(void)open(test_open, O_RDONLY | O_CLOEXEC);

	memset(&w, 0, sizeof(w));
	w.type = WIRE_READY;
	wire_send(chan, &w);
	if (server_start(srv, helper_log, &chan, &err) < 0)
		helper_fail(chan, &err);
	/* Serve until sbxrun shuts its end down (or says anything at all). */
	while (recv(chan, &c, 1, 0) < 0 && errno == EINTR)
		;
	server_stop(srv);
	_exit(0);
}

/* ---- sbxrun's side ---------------------------------------------------- */

#ifndef __NR_pidfd_open
#define __NR_pidfd_open 434
#endif
#ifndef __NR_pidfd_send_signal
#define __NR_pidfd_send_signal 424
#endif
#ifndef P_PIDFD
#define P_PIDFD 3
#endif

struct sbx_proxy {
	int port;
	pid_t pid; /* the helper; 0 once reaped */
	int pidfd; /* -1 when the kernel has no pidfd_open() */
	int chan;
	int admit; /* sbxrun's end of the announcements (sbx_proxy_admit_fd) */
	pthread_t reader;
	bool started;
	bool stopped;
	sbx_proxy_log_fn log;
	void *log_ctx;
	sbx_refusal_fn refused; /* each counted denial, or NULL */
	void *refused_ctx;
	uint64_t denials; /* atomic */
};

/* Kills the helper through its pidfd: a pid that someone else reaped
 * (sbxrun reaps the landlock backend's orphans) may already name another
 * process, a pidfd never does. Safe from the reader thread. */
static void
helper_kill(struct sbx_proxy *p)
{
	if (p->pidfd >= 0)
		(void)syscall(__NR_pidfd_send_signal, p->pidfd, SIGKILL, NULL, 0);
}

/* Waits at most ms for the helper to end, then kills it and reaps it. */
static void
helper_reap(struct sbx_proxy *p, int ms)
{
	siginfo_t si;

	if (p->pid <= 0)
		return;
	if (p->pidfd >= 0) {
		struct pollfd pfd = { .fd = p->pidfd, .events = POLLIN };
		uint64_t deadline = now_ms() + (uint64_t)ms;
		int n;

		for (;;) {
			uint64_t t = now_ms();

			n = poll(&pfd, 1, t >= deadline ? 0 : (int)(deadline - t));
			if (n >= 0 || errno != EINTR)
				break;
		}
		if (n <= 0)
			helper_kill(p);
		/* Dead now, or dying of SIGKILL: this wait is short. ECHILD
		 * when another waiter reaped it first. */
		while (
		    waitid((idtype_t)P_PIDFD, (id_t)p->pidfd, &si, WEXITED) < 0 && errno == EINTR)
			;
	} else {
		for (int i = 0; i < ms / 10; i++) {
			if (waitpid(p->pid, NULL, WNOHANG) != 0)
				goto done;
			(void)poll(NULL, 0, 10);
		}
		(void)kill(p->pid, SIGKILL);
		while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
			;
	}
done:
	p->pid = 0;
}

static void
proxy_release(struct sbx_proxy *p)
{
	if (p->chan >= 0)
		close(p->chan);
	if (p->admit >= 0)
		close(p->admit);
	if (p->pidfd >= 0)
		close(p->pidfd);
	free(p);
}

int
sbx_proxy_open(struct sbx_proxy **pp, const struct sbx_proxy_rules *rules, struct sbx_err *err)
{
	struct sbx_proxy *p;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct sbx_proxy_event ev;
	struct pollfd pfd;
	struct wire w;
	socklen_t len = sizeof(sin);
	pid_t parent = getpid();
	int lfd, sv[2], av[2];
	ssize_t n;

	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (lfd < 0)
		return sbx_err_sys(err, "proxy: socket");
	if (bind(lfd, (struct sockaddr *)&sin, sizeof(sin)) < 0) {
		sbx_err_sys(err, "proxy: bind 127.0.0.1");
		close(lfd);
		return -1;
	}
	if (listen(lfd, 128) < 0 || getsockname(lfd, (struct sockaddr *)&sin, &len) < 0) {
		sbx_err_sys(err, "proxy: listen");
		close(lfd);
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		sbx_err_sys(err, "proxy: socketpair");
		close(lfd);
		return -1;
	}
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, av) < 0) {
		sbx_err_sys(err, "proxy: socketpair");
		close(lfd);
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	/* Only sbxrun speaks on it. */
	(void)shutdown(av[0], SHUT_RD);
	p = sbx_xcalloc(1, sizeof(*p));
	p->port = ntohs(sin.sin_port);
	p->chan = sv[0];
	p->admit = av[0];
	p->pidfd = -1;
	/* The caller is single-threaded here (see proxy.h), so the child
	 * may do anything before it starts its own threads. */
	p->pid = fork();
	if (p->pid < 0) {
		sbx_err_sys(err, "proxy: fork");
		close(lfd);
		close(sv[1]);
		close(av[1]);
		proxy_release(p);
		return -1;
	}
	if (p->pid == 0)
		helper_main(parent, lfd, sv[1], av[1], rules);
	close(lfd);
	close(sv[1]);
	close(av[1]);
	p->pidfd = (int)syscall(__NR_pidfd_open, p->pid, 0);

	/* The helper answers once it is confined, or says why it cannot be. */
	pfd = (struct pollfd){ .fd = p->chan, .events = POLLIN };
	while ((n = poll(&pfd, 1, SBX_PROXY_READY_MS)) < 0 && errno == EINTR)
		;
	n = n > 0 ? wire_recv(p->chan, &w) : -1;
	if (n <= 0 || !wire_check(&w, (size_t)n, &ev) || w.type != WIRE_READY) {
		if (n > 0 && wire_check(&w, (size_t)n, &ev) && w.type == WIRE_ERROR)
			sbx_err_set(err, w.status, "%s", ev.reason ? ev.reason : "proxy: failed");
		else
			sbx_err_set(err, EPROTO, "proxy: the helper process did not start");
		helper_reap(p, 0);
		proxy_release(p);
		return -1;
	}
	*pp = p;
	return 0;
}

int
sbx_proxy_port(const struct sbx_proxy *p)
{
	return p->port;
}

int
sbx_proxy_admit_fd(const struct sbx_proxy *p)
{
	return p->admit;
}

/* Hands one counted denial to the refusal hook, naming what was asked
 * for as "host:port" (the helper's checked, bounded strings). */
static void
report_refusal(struct sbx_proxy *p, const struct sbx_proxy_event *ev)
{
	char what[SBX_DENIED_WHAT_MAX + 8];
	struct sbx_refusal ref = { .kind = "proxy", .what = what, .why = ev->reason };

	if (p->refused == NULL)
		return;
	if (ev->host != NULL && ev->port != 0)
		snprintf(what, sizeof(what), "%s:%u", ev->host, (unsigned)ev->port);
	else if (ev->host != NULL)
		snprintf(what, sizeof(what), "%s", ev->host);
	else
		snprintf(what, sizeof(what), "%s", ev->method ? ev->method : "?");
	p->refused(p->refused_ctx, &ref);
}

void
sbx_proxy_set_refusal_hook(struct sbx_proxy *p, sbx_refusal_fn fn, void *ctx)
{
	p->refused = fn;
	p->refused_ctx = ctx;
}

/* sbxrun's reader: takes every message off the channel until the helper
 * is gone, counts the denials and hands each event to the log. */
static void *
reader_main(void *arg)
{
	struct sbx_proxy *p = arg;
	struct sbx_proxy_event ev;
	struct wire w;
	ssize_t n;

	while ((n = wire_recv(p->chan, &w)) > 0) {
		if (!wire_check(&w, (size_t)n, &ev) || w.type != WIRE_EVENT) {
			/* Not the protocol: not the helper sbxrun started. */
			helper_kill(p);
			break;
		}
		if (ev.kind == SBX_PROXY_DECISION && ev.status == 403) {
			__atomic_add_fetch(&p->denials, 1, __ATOMIC_RELAXED);
			report_refusal(p, &ev);
		}
		if (p->log != NULL)
			p->log(p->log_ctx, &ev);
	}
	return NULL;
}

int
sbx_proxy_start(struct sbx_proxy *p, sbx_proxy_log_fn log, void *ctx, struct sbx_err *err)
{
	sigset_t all, old;
	int rc;

	if (p->started || p->stopped)
		return sbx_err_set(err, EINVAL, "proxy: already started");
	p->log = log;
	p->log_ctx = ctx;
	/* With every signal blocked in the reader, process signals (SIGTERM,
	 * SIGCHLD, ...) still reach sbxrun's signalfd and never this thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&p->reader, NULL, reader_main, p);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		errno = rc;
		return sbx_err_sys(err, "proxy: pthread_create");
	}
	p->started = true;
	return 0;
}

void
sbx_proxy_stop(struct sbx_proxy *p)
{
	if (p == NULL || p->stopped)
		return;
	p->stopped = true;
	/* The helper's stop: its recv() on the channel sees the end. It
	 * then cuts every connection within SBX_PROXY_STOP_WAIT_MS; a
	 * little more, and it is killed. */
	(void)shutdown(p->chan, SHUT_WR);
	helper_reap(p, SBX_PROXY_STOP_WAIT_MS + 1000);
	/* The helper is gone and held the only other end: the reader sees
	 * the end of the channel once it has read what was left in it. */
	if (p->started)
		pthread_join(p->reader, NULL);
}

uint64_t
sbx_proxy_denials(const struct sbx_proxy *p)
{
	return __atomic_load_n(&p->denials, __ATOMIC_RELAXED);
}

void
sbx_proxy_free(struct sbx_proxy *p)
{
	if (p == NULL)
		return;
	sbx_proxy_stop(p);
	proxy_release(p);
}

int
sbx_own_addrs(struct sbx_addrlist *own, struct sbx_err *err)
{
	struct ifaddrs *ifa, *i;

	if (getifaddrs(&ifa) < 0)
		return sbx_err_sys(err, "getifaddrs");
	for (i = ifa; i != NULL; i = i->ifa_next) {
		if (i->ifa_addr == NULL)
			continue;
		if (i->ifa_addr->sa_family == AF_INET) {
			sbx_addrlist_add(own, i->ifa_addr, sizeof(struct sockaddr_in));
			/* A subnet's broadcast address reaches this machine too. */
			if ((i->ifa_flags & IFF_BROADCAST) && i->ifa_broadaddr != NULL)
				sbx_addrlist_add(own, i->ifa_broadaddr, sizeof(struct sockaddr_in));
		} else if (i->ifa_addr->sa_family == AF_INET6) {
			sbx_addrlist_add(own, i->ifa_addr, sizeof(struct sockaddr_in6));
		}
	}
	freeifaddrs(ifa);
	return 0;
}
