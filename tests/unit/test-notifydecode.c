/* Hostile inputs for the decoder of what a trapped call points at
 * (src/notifydecode.c): the sandbox's memory is a byte buffer here. */
#include "config.h"

#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "notifydecode.h"
#include "tap.h"

#define BASE 0x10000u

/* The sandbox's memory: 4 KiB at BASE. */
static uint8_t mem[4096];

static int
fetch(void *ctx, uint64_t addr, void *buf, size_t len)
{
	(void)ctx;
	if (addr < BASE || addr - BASE > sizeof(mem) || len > sizeof(mem) - (addr - BASE))
		return -1;
	memcpy(buf, mem + (addr - BASE), len);
	return 0;
}

static const struct sbx_fetch F = { fetch, NULL };

static int taken;

static int
take(void *ctx, int fd)
{
	(void)ctx;
	if (fd == 99)
		return -1;
	if (fd == 98)
		return -ETOOMANYREFS;
	taken++;
	return fd + 100;
}

/* A msghdr at 0 with one 4-byte iovec (at 64, data at 240) and the
 * control bytes ctl at 256. */
static void
put_msg(const void *ctl, size_t ctllen, uint64_t iovlen)
{
	struct msghdr m = {
		.msg_iov = (void *)(uintptr_t)(BASE + 64),
		.msg_iovlen = iovlen,
		.msg_control = ctllen ? (void *)(uintptr_t)(BASE + 256) : NULL,
		.msg_controllen = ctllen,
	};
	struct iovec iov = { (void *)(uintptr_t)(BASE + 240), 4 };

	memset(mem, 0, sizeof(mem));
	memcpy(mem, &m, sizeof(m));
	memcpy(mem + 64, &iov, sizeof(iov));
	memcpy(mem + 240, "ping", 4);
	if (ctl)
		memcpy(mem + 256, ctl, ctllen);
}

/* One SOL_SOCKET control message of type type with cmsg_len len and the
 * descriptors fds (n of them) after the header. */
static size_t
make_cmsg(uint8_t *buf, size_t len, int type, const int *fds, size_t n)
{
	struct cmsghdr h = { .cmsg_len = len, .cmsg_level = SOL_SOCKET, .cmsg_type = type };

	memcpy(buf, &h, sizeof(h));
	memcpy(buf + CMSG_LEN(0), fds, n * sizeof(int));
	return CMSG_SPACE(n * sizeof(int));
}

/* Decodes the message at 0 and its rights: the first error, or 0. */
static int
decode(struct msghdr *out)
{
	int r = sbx_decode_msghdr(&F, BASE, out);

	taken = 0;
	return r < 0 ? r : sbx_decode_rights(out, take, NULL);
}

static void
test_cmsg(void)
{
	uint8_t ctl[256];
	int fds[2] = { 3, 4 }, got[2];
	struct msghdr m;
	size_t n;

	n = make_cmsg(ctl, CMSG_LEN(2 * sizeof(int)), SCM_RIGHTS, fds, 2);
	put_msg(ctl, n, 1);
	is_int(decode(&m), 0, "a well-formed SCM_RIGHTS message decodes");
	is_int(taken, 2, "both descriptors were taken");
	memcpy(got, CMSG_DATA((struct cmsghdr *)m.msg_control), sizeof(got));
	ok(got[0] == 103 && got[1] == 104, "and replaced by ours in place");
	is_u64(m.msg_iovlen, 1, "one iovec");
	ok(m.msg_iov[0].iov_len == 4 && memcmp(m.msg_iov[0].iov_base, "ping", 4) == 0,
	    "its data copied");
	sbx_decode_msghdr_free(&m);

	/* Finding: a cmsg_len below CMSG_LEN(0) made the count wrap. */
	for (size_t len = 0; len < CMSG_LEN(0); len += 4) {
		make_cmsg(ctl, len, SCM_RIGHTS, fds, 2);
		put_msg(ctl, CMSG_SPACE(2 * sizeof(int)), 1);
		is_int(decode(&m), -EINVAL, "cmsg_len %zu (below CMSG_LEN(0)) is EINVAL", len);
		is_int(taken, 0, "no descriptor taken for cmsg_len %zu", len);
		sbx_decode_msghdr_free(&m);
	}

	make_cmsg(ctl, 1000, SCM_RIGHTS, fds, 2);
	put_msg(ctl, CMSG_SPACE(2 * sizeof(int)), 1);
	is_int(decode(&m), -EINVAL, "a cmsg_len past the control buffer is EINVAL");
	is_int(taken, 0, "no descriptor taken then");
	sbx_decode_msghdr_free(&m);

	make_cmsg(ctl, CMSG_LEN(2 * sizeof(int)) + 1, SCM_RIGHTS, fds, 2);
	put_msg(ctl, CMSG_LEN(2 * sizeof(int)), 1);
	is_int(decode(&m), -EINVAL, "a cmsg_len one byte past the buffer is EINVAL");
	sbx_decode_msghdr_free(&m);

	/* A second header that starts inside the buffer but does not fit
	 * whole is ignored, as the kernel's walk ignores it. */
	n = make_cmsg(ctl, CMSG_LEN(sizeof(int)), SCM_RIGHTS, fds, 1);
	memset(ctl + n, 0xff, 8);
	put_msg(ctl, n + 8, 1);
	is_int(decode(&m), 0, "trailing bytes shorter than a header are ignored");
	is_int(taken, 1, "one descriptor taken");
	sbx_decode_msghdr_free(&m);

	/* Two messages, the second malformed: refused, after the first. */
	n = make_cmsg(ctl, CMSG_LEN(sizeof(int)), SCM_RIGHTS, fds, 1);
	make_cmsg(ctl + n, 3, SCM_RIGHTS, fds, 1);
	put_msg(ctl, n + CMSG_SPACE(sizeof(int)), 1);
	is_int(decode(&m), -EINVAL, "a short second header is EINVAL");
	sbx_decode_msghdr_free(&m);

	n = make_cmsg(ctl, CMSG_LEN(3 * sizeof(int)), SCM_CREDENTIALS, fds, 0);
	put_msg(ctl, n + 16, 1);
	is_int(decode(&m), -EPERM, "SCM_CREDENTIALS is refused");
	sbx_decode_msghdr_free(&m);

	/* An IPv6 routing header would send the datagram elsewhere first. */
	for (int type = 0; type < 2; type++) {
		struct cmsghdr h = { .cmsg_len = CMSG_LEN(24),
			.cmsg_level = IPPROTO_IPV6,
			.cmsg_type = type ? IPV6_2292RTHDR : IPV6_RTHDR };

		memset(ctl, 0, CMSG_SPACE(24));
		memcpy(ctl, &h, sizeof(h));
		put_msg(ctl, CMSG_SPACE(24), 1);
		is_int(decode(&m), -EPERM, "an IPv6 routing header (%s) is refused",
		    type ? "IPV6_2292RTHDR" : "IPV6_RTHDR");
		sbx_decode_msghdr_free(&m);
	}

	fds[0] = 99;
	n = make_cmsg(ctl, CMSG_LEN(sizeof(int)), SCM_RIGHTS, fds, 1);
	put_msg(ctl, n, 1);
	is_int(decode(&m), -EBADF, "a descriptor that cannot be taken is EBADF");
	sbx_decode_msghdr_free(&m);

	fds[0] = 98;
	n = make_cmsg(ctl, CMSG_LEN(sizeof(int)), SCM_RIGHTS, fds, 1);
	put_msg(ctl, n, 1);
	is_int(decode(&m), -ETOOMANYREFS, "a descriptor over sbxrun's bound is ETOOMANYREFS");
	sbx_decode_msghdr_free(&m);

	put_msg(NULL, SBX_DECODE_MAX_CONTROL + 1, 1);
	is_int(sbx_decode_msghdr(&F, BASE, &m), -ENOBUFS, "a huge control length is ENOBUFS");
	sbx_decode_msghdr_free(&m);

	put_msg(NULL, 4000, 1);
	is_int(sbx_decode_msghdr(&F, BASE, &m), -EFAULT,
	    "a control buffer past readable memory is EFAULT");
	sbx_decode_msghdr_free(&m);
}

static void
test_rights_limit(void)
{
	static uint8_t ctl[CMSG_SPACE(300 * sizeof(int))];
	int fds[300] = { 0 };
	struct msghdr m = { .msg_control = ctl };

	m.msg_controllen = make_cmsg(ctl, CMSG_LEN(253 * sizeof(int)), SCM_RIGHTS, fds, 253);
	taken = 0;
	is_int(sbx_decode_rights(&m, take, NULL), 0, "253 descriptors pass");
	m.msg_controllen = make_cmsg(ctl, CMSG_LEN(254 * sizeof(int)), SCM_RIGHTS, fds, 254);
	taken = 0;
	is_int(sbx_decode_rights(&m, take, NULL), -EINVAL, "254 descriptors are EINVAL");
	is_int(taken, 0, "none taken");
}

static void
test_iov(void)
{
	struct msghdr m;
	struct iovec iov[2] = { { (void *)(uintptr_t)(BASE + 240), 4 },
		{ (void *)(uintptr_t)(BASE + 240), SBX_DECODE_MAX_PAYLOAD } };

	put_msg(NULL, 0, (uint64_t)1 << 40);
	is_int(sbx_decode_msghdr(&F, BASE, &m), -EMSGSIZE, "a huge iovlen is EMSGSIZE");
	sbx_decode_msghdr_free(&m);
	put_msg(NULL, 0, SBX_DECODE_MAX_IOV + 1);
	is_int(sbx_decode_msghdr(&F, BASE, &m), -EMSGSIZE, "iovlen past UIO_MAXIOV is EMSGSIZE");
	sbx_decode_msghdr_free(&m);
	put_msg(NULL, 0, 2);
	memcpy(mem + 64, iov, sizeof(iov));
	is_int(sbx_decode_msghdr(&F, BASE, &m), -EMSGSIZE,
	    "iovec lengths summing past the payload bound are EMSGSIZE");
	sbx_decode_msghdr_free(&m);
	iov[0].iov_len = 4;
	iov[1].iov_len = (size_t)1 << 63;
	memcpy(mem + 64, iov, sizeof(iov));
	is_int(sbx_decode_msghdr(&F, BASE, &m), -EINVAL, "a negative iov_len is EINVAL");
	sbx_decode_msghdr_free(&m);
	put_msg(NULL, 0, 300);
	is_int(sbx_decode_msghdr(&F, BASE, &m), -EFAULT, "iovecs past readable memory are EFAULT");
	sbx_decode_msghdr_free(&m);
}

static void
test_names(void)
{
	struct sockaddr_un un = { .sun_family = AF_UNIX, .sun_path = "/tmp/s" };
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(80) };
	struct sockaddr_in6 in6 = { .sin6_family = AF_INET6 };
	struct sockaddr_storage ss;
	struct msghdr m = { .msg_name = (void *)(uintptr_t)(BASE + 96), .msg_namelen = 0xffff };
	char path[sizeof(un.sun_path) + 1], big[200];
	uint16_t fam = 77;
	socklen_t len;

	memset(mem, 0, sizeof(mem));
	memcpy(mem, &m, sizeof(m));
	is_int(sbx_decode_msghdr(&F, BASE, &m), 0, "a long msg_namelen decodes");
	is_int(m.msg_namelen, sizeof(struct sockaddr_storage), "cut to a sockaddr_storage");
	sbx_decode_msghdr_free(&m);
	m = (struct msghdr){ .msg_name = (void *)(uintptr_t)(BASE + 96),
		.msg_namelen = 0x80000000u };
	memcpy(mem, &m, sizeof(m));
	is_int(sbx_decode_msghdr(&F, BASE, &m), -EINVAL, "a negative msg_namelen is EINVAL");
	sbx_decode_msghdr_free(&m);

	memcpy(mem, &in, sizeof(in));
	is_int(sbx_decode_addr(&F, BASE, sizeof(ss) + 1, &ss, &len), -EINVAL,
	    "an address longer than a sockaddr_storage is EINVAL");
	is_int(sbx_decode_addr(&F, BASE, (uint64_t)1 << 33, &ss, &len), -EINVAL,
	    "a 64-bit address length is EINVAL");
	is_int(sbx_decode_addr(&F, 0, 16, &ss, &len), -EFAULT, "an unreadable address is EFAULT");
	is_int(sbx_decode_addr(&F, BASE, sizeof(in), &ss, &len), 0, "an address decodes");
	is_int(len, sizeof(in), "with its length");

	is_int(sbx_decode_sockaddr(AF_INET, &in, sizeof(in)), 0, "sockaddr_in fits AF_INET");
	is_int(sbx_decode_sockaddr(AF_INET, &in, sizeof(in) - 1), -EINVAL,
	    "a short sockaddr_in is EINVAL");
	is_int(
	    sbx_decode_sockaddr(AF_INET, &in, 1), -EINVAL, "a length below the family is EINVAL");
	is_int(sbx_decode_sockaddr(AF_INET6, &in, sizeof(in)), 0,
	    "an IPv4 address on an IPv6 socket passes (the kernel takes it on datagrams)");
	is_int(sbx_decode_sockaddr(AF_INET6, &in6, sizeof(in6)), 0, "sockaddr_in6 fits AF_INET6");
	is_int(sbx_decode_sockaddr(AF_INET6, &in6, 24), -EINVAL, "a short sockaddr_in6 is EINVAL");
	is_int(sbx_decode_sockaddr(AF_INET, &in6, sizeof(in6)), -EAFNOSUPPORT,
	    "an IPv6 address on an IPv4 socket is EAFNOSUPPORT");
	is_int(sbx_decode_sockaddr(AF_INET, &un, sizeof(un)), -EAFNOSUPPORT,
	    "a unix address on an IPv4 socket is EAFNOSUPPORT");
	is_int(sbx_decode_sockaddr(AF_INET, &fam, sizeof(fam)), -EAFNOSUPPORT,
	    "an unknown family is EAFNOSUPPORT");
	fam = AF_UNSPEC;
	is_int(sbx_decode_sockaddr(AF_INET, &fam, sizeof(fam)), 0, "AF_UNSPEC passes");
	memset(big, 0, sizeof(big));
	memcpy(big, &in, sizeof(in));
	is_int(sbx_decode_sockaddr(AF_INET, big, sizeof(big)), -EINVAL,
	    "an address longer than a sockaddr_storage is EINVAL");
	is_int(sbx_decode_sockaddr(AF_UNIX, &un, sizeof(un) + 1), -EINVAL,
	    "a unix address past sun_path is EINVAL");

	is_int(sbx_decode_unix_path(
		   &un, offsetof(struct sockaddr_un, sun_path) + 7, path, sizeof(path)),
	    1, "a unix path decodes");
	is_str(path, "/tmp/s", "to its path");
	is_int(sbx_decode_unix_path(
		   &un, offsetof(struct sockaddr_un, sun_path) + 6, path, sizeof(path)),
	    1, "a unix path without its NUL decodes");
	is_str(path, "/tmp/s", "NUL-terminated by us");
	is_int(
	    sbx_decode_unix_path(&un, offsetof(struct sockaddr_un, sun_path), path, sizeof(path)),
	    -1, "an empty unix address is malformed");
	is_int(sbx_decode_unix_path(&un, 1, path, sizeof(path)), -1,
	    "a one-byte unix address is malformed");
	is_int(sbx_decode_unix_path(&un, sizeof(un), path, 8), -1,
	    "a path longer than the buffer is malformed");
	memset(big, 'a', sizeof(big));
	memcpy(big, &un, 2);
	is_int(sbx_decode_unix_path(big, sizeof(big), path, sizeof(path)), -1,
	    "a unix address longer than sockaddr_un is malformed");
	is_int(sbx_decode_unix_path(&in, sizeof(in), path, sizeof(path)), -1,
	    "an AF_INET address is not a unix path");
	un.sun_path[0] = '\0';
	is_int(sbx_decode_unix_path(
		   &un, offsetof(struct sockaddr_un, sun_path) + 3, path, sizeof(path)),
	    0, "an abstract name is 0");
}

static void
test_mmsg(void)
{
	struct mmsghdr *v;
	unsigned n;

	memset(mem, 0, sizeof(mem));
	is_int(sbx_decode_mmsg(&F, BASE, 3, &v, &n), 0, "three empty messages decode");
	is_int(n, 3, "three of them");
	sbx_decode_mmsg_free(v, n);
	/* 64 readable messages in 4 KiB, then unreadable memory: sent and
	 * counted up to there, as the kernel does. */
	is_int(sbx_decode_mmsg(&F, BASE, UINT64_MAX, &v, &n), 0,
	    "a huge vlen is cut to 1024, and the array ends at unreadable memory");
	is_int(n, sizeof(mem) / sizeof(struct mmsghdr), "... after the readable messages");
	sbx_decode_mmsg_free(v, n);
	is_int(sbx_decode_mmsg(&F, BASE + sizeof(mem), 2, &v, &n), -EFAULT,
	    "an unreadable first message is EFAULT");
	sbx_decode_mmsg_free(v, n);
	is_int(sbx_decode_mmsg(&F, UINT64_MAX - 8, 2, &v, &n), -EFAULT,
	    "an array wrapping around the address space is EFAULT");
	sbx_decode_mmsg_free(v, n);
}

/* Memory at HUGE and above reads as zeros, without a copy of its own:
 * the buffers a hostile sendmmsg points every message at. */
#define HUGE 0x100000000u

static int
fetch_huge(void *ctx, uint64_t addr, void *buf, size_t len)
{
	if (addr >= HUGE) {
		memset(buf, 0, len);
		return 0;
	}
	return fetch(ctx, addr, buf, len);
}

static const struct sbx_fetch H = { fetch_huge, NULL };

/* n messages at BASE, each with one iovec of len bytes at HUGE (the
 * iovec at 2048) and ctl control bytes at HUGE. */
static void
put_mmsg(unsigned n, size_t len, size_t ctl)
{
	struct iovec iov = { (void *)(uintptr_t)HUGE, len };

	memset(mem, 0, sizeof(mem));
	for (unsigned i = 0; i < n; i++) {
		struct mmsghdr m = { .msg_hdr = {
					 .msg_iov = (void *)(uintptr_t)(BASE + 2048),
					 .msg_iovlen = 1,
					 .msg_control = ctl ? (void *)(uintptr_t)HUGE : NULL,
					 .msg_controllen = ctl,
				     } };

		memcpy(mem + i * sizeof(m), &m, sizeof(m));
	}
	memcpy(mem + 2048, &iov, sizeof(iov));
}

/* One budget for a whole sendmmsg: its messages all pointing at one
 * buffer no longer multiply the copies sbxrun holds. */
static void
test_mmsg_budget(void)
{
	struct mmsghdr *v;
	unsigned n;

	put_mmsg(3, SBX_DECODE_MAX_PAYLOAD / 2, 0);
	is_int(sbx_decode_mmsg(&H, BASE, 3, &v, &n), 0, "three messages of half the budget each");
	is_int(n, 2, "... two are copied, the third ends the array");
	sbx_decode_mmsg_free(v, n);
	put_mmsg(2, SBX_DECODE_MAX_PAYLOAD + 1, 0);
	is_int(sbx_decode_mmsg(&H, BASE, 2, &v, &n), -EMSGSIZE,
	    "a first message over the budget is EMSGSIZE");
	sbx_decode_mmsg_free(v, n);
	put_mmsg(3, 1, SBX_DECODE_MAX_CONTROL / 2 + 1);
	is_int(sbx_decode_mmsg(&H, BASE, 3, &v, &n), 0, "control buffers share one budget too");
	is_int(n, 1, "... the second ends the array");
	sbx_decode_mmsg_free(v, n);
}

int
main(void)
{
	test_cmsg();
	test_rights_limit();
	test_iov();
	test_names();
	test_mmsg();
	test_mmsg_budget();
	return done_testing();
}
