/* A libFuzzer target for src/notifydecode.c: the bytes of one input are
 * the sandbox's memory, and the decoder is driven over them as the
 * supervisor drives it over a trapped call. Built with clang
 * -fsanitize=fuzzer,address,undefined under ./configure --enable-fuzzing;
 * replayed over its corpus by tests/fuzz/replay.c in "make check".
 *
 * Input: byte 0 picks the entry point, byte 1 the socket family, bytes
 * 2..9 a count (sendmmsg's vlen, an address length); the rest is memory
 * starting at FUZZ_BASE, where the struct msghdr (or address) lies. An
 * address past the end wraps around into the input, so any pointer the
 * fuzzer writes reaches some bytes; one below FUZZ_BASE is unreadable. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "fuzz.h"
#include "notifydecode.h"

#define FUZZ_BASE 0x10000u
#define FUZZ_HEAD 10

FUZZ_TARGET(decode);

struct mem {
	const uint8_t *p;
	size_t n;
};

static int
fetch(void *ctx, uint64_t addr, void *buf, size_t len)
{
	const struct mem *m = ctx;
	uint64_t off;

	if (addr < FUZZ_BASE || m->n == 0 || len > m->n)
		return -1;
	off = (addr - FUZZ_BASE) % m->n;
	if (len > m->n - off)
		return -1;
	memcpy(buf, m->p + off, len);
	return 0;
}

struct taken {
	size_t n;
};

static int
take(void *ctx, int fd)
{
	struct taken *t = ctx;

	if (fd < 0 || fd % 7 == 3)
		return -1;
	t->n++;
	return fd % 1000 + 1000;
}

/* Reads every byte the decoder says is ours, so that a length larger
 * than its buffer shows as an ASan report. */
static unsigned
touch(const void *p, size_t n)
{
	const volatile uint8_t *b = p;
	unsigned sum = 0;

	for (size_t i = 0; i < n; i++)
		sum += b[i];
	return sum;
}

static void
check_msg(const struct msghdr *m, int domain)
{
	char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
	size_t total = 0;

	if (m->msg_namelen > sizeof(struct sockaddr_storage) ||
	    m->msg_iovlen > SBX_DECODE_MAX_IOV || m->msg_controllen > SBX_DECODE_MAX_CONTROL)
		abort();
	touch(m->msg_name, m->msg_namelen);
	touch(m->msg_control, m->msg_controllen);
	for (size_t i = 0; m->msg_iov && i < m->msg_iovlen; i++) {
		total += m->msg_iov[i].iov_len;
		if (total > SBX_DECODE_MAX_PAYLOAD)
			abort();
		touch(m->msg_iov[i].iov_base, m->msg_iov[i].iov_len);
	}
	if (m->msg_name) {
		sbx_decode_sockaddr(domain, m->msg_name, m->msg_namelen);
		if (sbx_decode_unix_path(m->msg_name, m->msg_namelen, path, sizeof(path)) == 1 &&
		    strlen(path) >= sizeof(path))
			abort();
	}
}

FUZZ_TARGET(decode)
{
	static const int domains[] = { AF_UNIX, AF_INET, AF_INET6, AF_UNSPEC };
	struct mem mem;
	struct sbx_fetch f = { fetch, &mem };
	struct taken t = { 0 };
	uint64_t count;
	int domain;

	if (size < FUZZ_HEAD)
		return 0;
	domain = domains[data[1] % 4];
	memcpy(&count, data + 2, sizeof(count));
	mem = (struct mem){ data + FUZZ_HEAD, size - FUZZ_HEAD };
	switch (data[0] % 4) {
	case 0: {
		/* sendmsg */
		struct msghdr m;

		if (sbx_decode_msghdr(&f, FUZZ_BASE, &m) == 0) {
			check_msg(&m, domain);
			if (sbx_decode_rights(&m, take, &t) == 0 && t.n > SBX_DECODE_MAX_RIGHTS)
				abort();
			check_msg(&m, domain);
		}
		sbx_decode_msghdr_free(&m);
		break;
	}
	case 1: {
		/* sendmmsg, a short array: the cost is in the copies */
		struct mmsghdr *v;
		unsigned n;

		if (sbx_decode_mmsg(&f, FUZZ_BASE, count % 9, &v, &n) == 0) {
			for (unsigned i = 0; i < n; i++) {
				check_msg(&v[i].msg_hdr, domain);
				t.n = 0;
				sbx_decode_rights(&v[i].msg_hdr, take, &t);
				if (t.n > SBX_DECODE_MAX_RIGHTS)
					abort();
			}
		}
		sbx_decode_mmsg_free(v, n);
		break;
	}
	case 2: {
		/* connect, bind, sendto: a register length and an address */
		struct sockaddr_storage ss;
		char path[sizeof(((struct sockaddr_un *)0)->sun_path) + 1];
		socklen_t len;

		if (sbx_decode_addr(&f, FUZZ_BASE, count, &ss, &len) == 0) {
			if (len > sizeof(ss))
				abort();
			touch(&ss, len);
			sbx_decode_sockaddr(domain, &ss, len);
			if (sbx_decode_unix_path(&ss, len, path, sizeof(path)) == 1 &&
			    strlen(path) >= sizeof(path))
				abort();
		}
		break;
	}
	default: {
		/* A control buffer exactly as long as the input says. */
		struct msghdr m = { 0 };

		if (mem.n == 0)
			break;
		m.msg_control = malloc(mem.n);
		memcpy(m.msg_control, mem.p, mem.n);
		m.msg_controllen = count % (mem.n + 1);
		if (sbx_decode_rights(&m, take, &t) == 0 && t.n > SBX_DECODE_MAX_RIGHTS)
			abort();
		free(m.msg_control);
		break;
	}
	}
	return 0;
}
