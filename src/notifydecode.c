#include "config.h"

#include <errno.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <sys/un.h>

#include "notifydecode.h"

/* The sandbox's struct msghdr as it lies in its memory: the same layout
 * as ours (only native calls reach the supervisor; foreign-architecture
 * calls are killed by the filter), but with its pointers as plain
 * numbers, never to be dereferenced here. */
struct raw_msghdr {
	uint64_t name;
	uint32_t namelen;
	uint64_t iov;
	uint64_t iovlen;
	uint64_t control;
	uint64_t controllen;
	int32_t flags;
};

struct raw_iovec {
	uint64_t base;
	uint64_t len;
};

_Static_assert(sizeof(struct raw_msghdr) == sizeof(struct msghdr), "msghdr layout");
_Static_assert(
    offsetof(struct raw_msghdr, namelen) == offsetof(struct msghdr, msg_namelen), "msghdr layout");
_Static_assert(
    offsetof(struct raw_msghdr, iovlen) == offsetof(struct msghdr, msg_iovlen), "msghdr layout");
_Static_assert(offsetof(struct raw_msghdr, controllen) == offsetof(struct msghdr, msg_controllen),
    "msghdr layout");
_Static_assert(sizeof(struct raw_iovec) == sizeof(struct iovec), "iovec layout");

static int
fetch(const struct sbx_fetch *f, uint64_t addr, void *buf, size_t len)
{
	if (len == 0)
		return 0;
	/* A range that wraps around the address space is not memory. */
	if (addr + len < addr)
		return -1;
	return f->fn(f->ctx, addr, buf, len);
}

/* A new buffer with len bytes of the sandbox's memory at addr. */
static int
fetch_alloc(const struct sbx_fetch *f, uint64_t addr, size_t len, void **out)
{
	void *buf = malloc(len ? len : 1);

	if (buf == NULL)
		return -ENOMEM;
	if (fetch(f, addr, buf, len) < 0) {
		free(buf);
		return -EFAULT;
	}
	*out = buf;
	return 0;
}

void
sbx_decode_msghdr_free(struct msghdr *m)
{
	if (m->msg_iov) {
		for (size_t i = 0; i < m->msg_iovlen; i++)
			free(m->msg_iov[i].iov_base);
		free(m->msg_iov);
	}
	free(m->msg_name);
	free(m->msg_control);
	memset(m, 0, sizeof(*m));
}

/* The iovecs of raw: their descriptors, then each one's data, the total
 * bounded by *left before each addition so that no sum can wrap; what was
 * taken is subtracted from *left. */
static int
decode_iov(
    const struct sbx_fetch *f, const struct raw_msghdr *raw, struct msghdr *out, size_t *left)
{
	struct raw_iovec *riov;
	size_t total = 0;
	int r = 0;

	if (raw->iovlen == 0)
		return 0;
	if (raw->iovlen > SBX_DECODE_MAX_IOV)
		return -EMSGSIZE;
	riov = calloc(raw->iovlen, sizeof(*riov));
	out->msg_iov = calloc(raw->iovlen, sizeof(*out->msg_iov));
	if (riov == NULL || out->msg_iov == NULL) {
		free(riov);
		return -ENOMEM;
	}
	out->msg_iovlen = raw->iovlen;
	if (fetch(f, raw->iov, riov, raw->iovlen * sizeof(*riov)) < 0) {
		free(riov);
		return -EFAULT;
	}
	for (size_t i = 0; i < raw->iovlen && r == 0; i++) {
		/* The kernel takes iov_len as a ssize_t. */
		if (riov[i].len > SSIZE_MAX)
			r = -EINVAL;
		else if (riov[i].len > *left - total)
			r = -EMSGSIZE;
		else {
			total += riov[i].len;
			r = fetch_alloc(f, riov[i].base, riov[i].len, &out->msg_iov[i].iov_base);
			if (r == 0)
				out->msg_iov[i].iov_len = riov[i].len;
		}
	}
	free(riov);
	if (r == 0)
		*left -= total;
	return r;
}

/* sbx_decode_msghdr() within what is left of a call's budgets of data and
 * control bytes (sendmmsg shares them among its messages). */
static int
decode_msghdr(const struct sbx_fetch *f, uint64_t addr, struct msghdr *out, size_t *data_left,
    size_t *control_left)
{
	struct raw_msghdr raw;
	int r;

	memset(out, 0, sizeof(*out));
	if (fetch(f, addr, &raw, sizeof(raw)) < 0)
		return -EFAULT;
	/* The kernel reads msg_namelen as an int, refuses a negative one and
	 * cuts a longer one to a sockaddr_storage (__copy_msghdr). */
	if ((int32_t)raw.namelen < 0)
		return -EINVAL;
	if (raw.namelen > sizeof(struct sockaddr_storage))
		raw.namelen = sizeof(struct sockaddr_storage);
	if (raw.name == 0)
		raw.namelen = 0;
	/* The kernel refuses a control length over INT_MAX with ENOBUFS, and
	 * one over its socket option memory the same way. */
	if (raw.controllen > *control_left)
		return -ENOBUFS;
	if (raw.control == 0)
		raw.controllen = 0;
	if (raw.namelen > 0) {
		if ((r = fetch_alloc(f, raw.name, raw.namelen, &out->msg_name)) < 0)
			return r;
		out->msg_namelen = raw.namelen;
	}
	if (raw.controllen > 0) {
		if ((r = fetch_alloc(f, raw.control, raw.controllen, &out->msg_control)) < 0)
			return r;
		out->msg_controllen = raw.controllen;
		*control_left -= raw.controllen;
	}
	return decode_iov(f, &raw, out, data_left);
}

int
sbx_decode_msghdr(const struct sbx_fetch *f, uint64_t addr, struct msghdr *out)
{
	size_t data = SBX_DECODE_MAX_PAYLOAD, control = SBX_DECODE_MAX_CONTROL;

	return decode_msghdr(f, addr, out, &data, &control);
}

void
sbx_decode_mmsg_free(struct mmsghdr *v, unsigned n)
{
	for (unsigned i = 0; v && i < n; i++)
		sbx_decode_msghdr_free(&v[i].msg_hdr);
	free(v);
}

int
sbx_decode_mmsg(
    const struct sbx_fetch *f, uint64_t addr, uint64_t vlen, struct mmsghdr **out, unsigned *n)
{
	struct mmsghdr *v;
	unsigned count = vlen > SBX_DECODE_MAX_MMSG ? SBX_DECODE_MAX_MMSG : (unsigned)vlen;
	/* One budget for the whole call, not one per message: 1024 messages
	 * whose iovecs all point at one buffer were 16 GiB of copies from
	 * 16 MiB of the sandbox's memory. */
	size_t data = SBX_DECODE_MAX_PAYLOAD, control = SBX_DECODE_MAX_CONTROL;

	*out = NULL;
	*n = 0;
	v = calloc(count ? count : 1, sizeof(*v));
	if (v == NULL)
		return -ENOMEM;
	*out = v;
	*n = count;
	for (unsigned i = 0; i < count; i++) {
		uint64_t at = addr + (uint64_t)i * sizeof(*v);
		int r = at < addr ? -EFAULT : decode_msghdr(f, at, &v[i].msg_hdr, &data, &control);

		if (r == 0)
			continue;
		if (i == 0)
			return r;
		/* As the kernel does when a later message fails: the ones
		 * before it are sent and counted, and the caller sends the
		 * rest again. */
		sbx_decode_msghdr_free(&v[i].msg_hdr);
		*n = i;
		return 0;
	}
	return 0;
}

int
sbx_decode_rights(struct msghdr *m, sbx_take_fn take, void *ctx)
{
	const size_t hdr = sizeof(struct cmsghdr);
	unsigned char *buf = m->msg_control;
	size_t size = m->msg_control ? m->msg_controllen : 0, total = 0;

	/* The kernel's walk (for_each_cmsghdr, CMSG_OK in __scm_send): a
	 * header is there when all of it fits; its cmsg_len covers at least
	 * the header and ends within the buffer, else EINVAL; the next one
	 * starts at the aligned end. Bytes after the last whole header are
	 * ignored. */
	for (size_t off = 0; size - off >= hdr;) {
		struct cmsghdr cm;
		size_t n, next;

		memcpy(&cm, buf + off, hdr);
		if (cm.cmsg_len < hdr || cm.cmsg_len > size - off)
			return -EINVAL;
		if (cm.cmsg_level == SOL_SOCKET && cm.cmsg_type == SCM_CREDENTIALS)
			return -EPERM;
		/* A routing header for one datagram: it goes first to an
		 * address of the header's, not to the one judged (the
		 * socket option is refused by the filter, linux-seccomp.c). */
		if (cm.cmsg_level == IPPROTO_IPV6 &&
		    (cm.cmsg_type == IPV6_RTHDR || cm.cmsg_type == IPV6_2292RTHDR))
			return -EPERM;
		if (cm.cmsg_level == SOL_SOCKET && cm.cmsg_type == SCM_RIGHTS) {
			unsigned char *data = buf + off + CMSG_LEN(0);

			n = cm.cmsg_len < CMSG_LEN(0) ? 0
						      : (cm.cmsg_len - CMSG_LEN(0)) / sizeof(int);
			if (n > SBX_DECODE_MAX_RIGHTS - total)
				return -EINVAL;
			total += n;
			for (size_t i = 0; i < n; i++) {
				int fd;

				memcpy(&fd, data + i * sizeof(int), sizeof(int));
				if ((fd = take(ctx, fd)) < 0)
					return fd < -1 ? fd : -EBADF;
				memcpy(data + i * sizeof(int), &fd, sizeof(int));
			}
		}
		next = CMSG_ALIGN(cm.cmsg_len);
		if (next > size - off)
			break;
		off += next;
	}
	return 0;
}

int
sbx_decode_addr(const struct sbx_fetch *f, uint64_t addr, uint64_t len, struct sockaddr_storage *ss,
    socklen_t *sslen)
{
	*sslen = 0;
	/* move_addr_to_kernel: a length over a sockaddr_storage (or a
	 * negative int) is EINVAL. */
	if (len > sizeof(*ss))
		return -EINVAL;
	if (fetch(f, addr, ss, len) < 0)
		return -EFAULT;
	*sslen = (socklen_t)len;
	return 0;
}

int
sbx_decode_sockaddr(int domain, const void *sa, size_t len)
{
	sa_family_t family;
	size_t need;

	if (len > sizeof(struct sockaddr_storage) || len < sizeof(family))
		return -EINVAL;
	memcpy(&family, sa, sizeof(family));
	switch (family) {
	case AF_UNSPEC: return 0;
	case AF_INET:
		/* An IPv6 datagram socket takes an IPv4 address too (the
		 * kernel hands it to IPv4 unless the socket is v6-only). */
		if (domain != AF_INET && domain != AF_INET6)
			return -EAFNOSUPPORT;
		need = sizeof(struct sockaddr_in);
		break;
	case AF_INET6:
		if (domain != AF_INET6)
			return -EAFNOSUPPORT;
		/* The whole structure, scope id included: the rules read
		 * the port and address from it (the kernel would take the
		 * 24-byte RFC 2133 form too; nothing current makes it). */
		need = sizeof(struct sockaddr_in6);
		break;
	case AF_UNIX:
		if (domain != AF_UNIX)
			return -EAFNOSUPPORT;
		/* unix_validate_addr: the family, then at most sun_path. */
		if (len > sizeof(struct sockaddr_un))
			return -EINVAL;
		need = offsetof(struct sockaddr_un, sun_path);
		break;
	default: return -EAFNOSUPPORT;
	}
	return len < need ? -EINVAL : 0;
}

int
sbx_decode_unix_path(const void *sa, size_t len, char *buf, size_t size)
{
	const size_t off = offsetof(struct sockaddr_un, sun_path);
	const unsigned char *p = sa;
	sa_family_t family;
	size_t plen;

	if (len <= off || len > sizeof(struct sockaddr_un) || size == 0)
		return -1;
	memcpy(&family, sa, sizeof(family));
	if (family != AF_UNIX)
		return -1;
	plen = len - off;
	if (p[off] == '\0')
		return 0;
	if (plen >= size)
		return -1;
	/* The kernel reads the path up to its first NUL or the length. */
	memcpy(buf, p + off, plen);
	buf[plen] = '\0';
	return 1;
}
