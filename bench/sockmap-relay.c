/* An experiment for bench/net-sockmap, not part of sbxrun: a CONNECT relay
 * that carries an established tunnel's bytes either in user space or in the
 * kernel, with a sockhash and an SK_SKB program that redirects each
 * socket's ingress to its peer's egress. Raw bpf(2), hand-assembled
 * instructions, no libbpf. Root only (CAP_BPF and CAP_NET_ADMIN).
 *
 *   sockmap-relay MODE PORT
 *
 * MODE  user     a thread per direction, blocking recv()/send() of 1 MiB
 *       strp     sockhash, stream parser (the whole skb) + stream verdict
 *       verdict  sockhash, BPF_SK_SKB_VERDICT alone (no strparser)
 *
 * Listens on 127.0.0.1:PORT, one connection at a time; takes only
 * "CONNECT a.b.c.d:port" and sends no error replies. SOCKBUF=N sets
 * SO_SNDBUF and SO_RCVBUF of both sockets of a tunnel. In the kernel modes
 * the relay waits for the client to hang up, then drops both sockets: a
 * redirect does not carry a FIN, so the bench's server sends a
 * Content-Length, and curl closes once it has the body. */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/bpf.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef SO_COOKIE
#define SO_COOKIE 57
#endif

#define INSN(c, d, s, o, i) \
	((struct bpf_insn){ .code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i) })

static int map_fd = -1;
static int sockbuf;

static int
sys_bpf(int cmd, union bpf_attr *a)
{
	return (int)syscall(__NR_bpf, cmd, a, sizeof(*a));
}

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

static int
load(const struct bpf_insn *insns, size_t n, int attach_type)
{
	static char log[65536];
	union bpf_attr a;
	int fd;

	memset(&a, 0, sizeof(a));
	a.prog_type = BPF_PROG_TYPE_SK_SKB;
	a.insns = (uintptr_t)insns;
	a.insn_cnt = (uint32_t)n;
	a.license = (uintptr_t) "GPL";
	a.log_buf = (uintptr_t)log;
	a.log_size = sizeof(log);
	a.log_level = 1;
	a.expected_attach_type = attach_type;
	fd = sys_bpf(BPF_PROG_LOAD, &a);
	if (fd < 0) {
		fprintf(stderr, "%s\n", log);
		die("BPF_PROG_LOAD");
	}
	return fd;
}

static void
attach(int prog, int attach_type)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.target_fd = map_fd;
	a.attach_bpf_fd = prog;
	a.attach_type = attach_type;
	if (sys_bpf(BPF_PROG_ATTACH, &a) < 0)
		die("BPF_PROG_ATTACH");
}

/* The sockhash is keyed by socket cookie: under the cookie of one end of
 * a tunnel it holds the other end, so the verdict needs no second map. */
static void
setup_bpf(int use_strparser)
{
	union bpf_attr a;

	memset(&a, 0, sizeof(a));
	a.map_type = BPF_MAP_TYPE_SOCKHASH;
	a.key_size = 8;
	a.value_size = 4;
	a.max_entries = 64;
	map_fd = sys_bpf(BPF_MAP_CREATE, &a);
	if (map_fd < 0)
		die("BPF_MAP_CREATE");

	/* r6 = skb; key = get_socket_cookie(skb) at fp-8;
	 * return sk_redirect_hash(skb, map, &key, 0)   (0: the egress) */
	const struct bpf_insn verdict[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 6, 1, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_socket_cookie),
		INSN(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -8, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 6, 0, 0),
		INSN(BPF_LD | BPF_IMM | BPF_DW, 2, BPF_PSEUDO_MAP_FD, 0, map_fd),
		INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -8),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_sk_redirect_hash),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	/* return skb->len: each skb is one message */
	const struct bpf_insn parser[] = {
		INSN(BPF_LDX | BPF_MEM | BPF_W, 0, 1, offsetof(struct __sk_buff, len), 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int vtype = use_strparser ? BPF_SK_SKB_STREAM_VERDICT : BPF_SK_SKB_VERDICT;

	attach(load(verdict, sizeof(verdict) / sizeof(verdict[0]), vtype), vtype);
	if (use_strparser)
		attach(load(parser, 2, BPF_SK_SKB_STREAM_PARSER), BPF_SK_SKB_STREAM_PARSER);
}

static uint64_t
cookie(int fd)
{
	uint64_t c;
	socklen_t l = sizeof(c);

	if (getsockopt(fd, SOL_SOCKET, SO_COOKIE, &c, &l) < 0)
		die("SO_COOKIE");
	return c;
}

static int
map_op(int cmd, uint64_t key, int fd)
{
	union bpf_attr a;
	uint32_t val = (uint32_t)fd;

	memset(&a, 0, sizeof(a));
	a.map_fd = map_fd;
	a.key = (uintptr_t)&key;
	a.value = (uintptr_t)&val;
	a.flags = BPF_ANY;
	return sys_bpf(cmd, &a);
}

struct pump {
	int from, to;
};

static void *
pump(void *arg)
{
	static __thread char buf[1 << 20];
	const struct pump *p = arg;
	ssize_t n, w, off;

	while ((n = recv(p->from, buf, sizeof(buf), 0)) > 0)
		for (off = 0; off < n; off += w)
			if ((w = send(p->to, buf + off, (size_t)(n - off), MSG_NOSIGNAL)) <= 0)
				goto out;
out:
	shutdown(p->to, SHUT_WR);
	return NULL;
}

static void
relay_user(int client, int server)
{
	struct pump up = { client, server }, down = { server, client };
	pthread_t t;

	if (pthread_create(&t, NULL, pump, &up) != 0)
		die("pthread_create");
	pump(&down);
	pthread_join(t, NULL);
}

static void
relay_kernel(int client, int server)
{
	struct pollfd p = { .fd = client, .events = POLLRDHUP };

	while (poll(&p, 1, -1) < 0 && errno == EINTR)
		;
	map_op(BPF_MAP_DELETE_ELEM, cookie(client), -1);
	map_op(BPF_MAP_DELETE_ELEM, cookie(server), -1);
}

static int
dial(const char *ip, int port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	int s;

	if (inet_pton(AF_INET, ip, &sa.sin_addr) != 1)
		return -1;
	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s >= 0 && connect(s, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(s);
		s = -1;
	}
	return s;
}

/* Reads "CONNECT a.b.c.d:port ...\r\n\r\n" (curl sends nothing more before
 * the reply) and dials it. */
static int
read_connect(int c)
{
	char h[4096], ip[64];
	size_t n = 0;
	ssize_t r;
	int port;

	while (n < sizeof(h) - 1 && (r = recv(c, h + n, sizeof(h) - 1 - n, 0)) > 0) {
		n += (size_t)r;
		h[n] = 0;
		if (strstr(h, "\r\n\r\n"))
			break;
	}
	h[n] = 0;
	if (sscanf(h, "CONNECT %63[0-9.]:%d", ip, &port) != 2)
		return -1;
	return dial(ip, port);
}

int
main(int argc, char **argv)
{
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	struct sockaddr_in sa = { .sin_family = AF_INET,
		.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int user, l, one = 1;

	if (argc != 3) {
		fprintf(stderr, "usage: sockmap-relay user|strp|verdict PORT\n");
		return 2;
	}
	user = strcmp(argv[1], "user") == 0;
	if (!user)
		setup_bpf(strcmp(argv[1], "strp") == 0);
	if (getenv("SOCKBUF"))
		sockbuf = atoi(getenv("SOCKBUF"));
	sa.sin_port = htons((uint16_t)atoi(argv[2]));
	l = socket(AF_INET, SOCK_STREAM, 0);
	setsockopt(l, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(l, 16) < 0)
		die("listen");
	printf("ready\n");
	fflush(stdout);
	for (;;) {
		int c = accept(l, NULL, NULL), s;

		if (c < 0)
			continue;
		s = read_connect(c);
		if (s >= 0) {
			if (sockbuf > 0)
				for (int i = 0; i < 2; i++) {
					int fd = i ? s : c;
					setsockopt(
					    fd, SOL_SOCKET, SO_SNDBUF, &sockbuf, sizeof(sockbuf));
					setsockopt(
					    fd, SOL_SOCKET, SO_RCVBUF, &sockbuf, sizeof(sockbuf));
				}
			/* Into the map before the reply: bytes that reach a
			 * socket before it is in the map stay in its queue
			 * until more arrive (the verdict runs from
			 * data_ready), and curl would wait forever for the
			 * answer to its GET. */
			if (!user &&
			    (map_op(BPF_MAP_UPDATE_ELEM, cookie(c), s) < 0 ||
				map_op(BPF_MAP_UPDATE_ELEM, cookie(s), c) < 0))
				die("BPF_MAP_UPDATE_ELEM");
			send(c, ok, sizeof(ok) - 1, MSG_NOSIGNAL);
			if (user)
				relay_user(c, s);
			else
				relay_kernel(c, s);
			close(s);
		}
		close(c);
	}
}
