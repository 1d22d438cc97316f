/* The keeper (keeper.h, doc/design/lifecycle.md).
 *
 * sbxrun and the keeper talk over a SOCK_SEQPACKET pair, one request per
 * message: a header, then NUL-terminated strings, and at most one
 * descriptor (SCM_RIGHTS). Requests that change the disk are answered
 * (REPLY) once done; records are not; undo requests are answered with
 * WARN messages, then DONE. The keeper makes every change itself, so its
 * memory holds the record of a change before sbxrun can learn that it was
 * made, and sbxrun's death at any point leaves nothing unrecorded.
 *
 * On Linux the keeper is sbxrun's child, but a clone child: its end sends
 * no SIGCHLD, only a wait with __WCLONE or __WALL sees it, and the
 * supervisor, which kills and reaps every other descendant of sbxrun as
 * the sandbox's tree, leaves it alone by its pid (sbx_child.keeper). sbxrun
 * reaps it after FINISH, so no run leaves a zombie behind for an init
 * that reaps slowly or never (a container's pid 1 without --init). If
 * sbxrun dies first, the keeper goes to that init like any orphan.
 * Elsewhere it is an orphan of a double fork.
 *
 * A second channel, a pipe, tells it when to undo alone: sbxrun holds its
 * write end and the jail's init keeps the copy it inherits until its tree
 * is reaped, or as a pid namespace's init until it exits (launch.c), so
 * the end of file comes only when neither sbxrun nor the tree is left.
 * Until then a lent tree is never handed back under a running sandbox. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#include <sys/syscall.h>
#endif

#include "fsutil.h"
#include "cgroup.h"
#include "keeper.h"
#include "launch.h"
#include "resolve.h"
#include "rlimits.h"
#ifdef __linux__
#include "linux-owner.h"
#endif

enum k_op {
	K_MKDTEMP = 1,
	K_FORGET,
	K_SCRIPT,
	K_LEND,
	K_LINK,
	K_WATCH,
	K_UNDO_RUN,
	K_FINISH,
	K_CGROUP,
	K_COUNT,
	K_REPLY,
	K_WARN,
	K_DONE,
};

struct k_hdr {
	uint32_t op;
	int32_t err; /* REPLY: 0 or an errno */
	uint32_t a, b, c, d; /* ids, counts */
	uint32_t flags; /* LEND: K_THROWAWAY */
	uint32_t nstr;
};

/* LEND: the workdir is a temp directory this keeper made, removed at the
 * end (no --keep): nothing of it is handed back, it goes whole. */
#define K_THROWAWAY 1u
/* LEND: the hand-back takes ACLs naming others off (sbx_lease.acls);
 * with K_ACLS_ALL from every entry, changed after the lend or not. */
#define K_ACLS 2u
#define K_ACLS_ALL 4u

/* One message as read: the header and its strings. */
struct k_msg {
	struct k_hdr h;
	char *data;
	size_t len;
	const char **str;
	int fd; /* a descriptor that came with it, or -1 */
};

/* A directory the keeper made for sbxrun, as made (its MKDTEMP answer). */
struct k_made {
	char *path;
	int fd; /* O_PATH */
};

struct sbx_keeper {
	int sock;
	int hold; /* the pipe's write end */
	pid_t pid; /* our clone child, reaped by sbx_keeper_finish(); 0: not ours */
	bool unready; /* its first answer (ready) not read yet: sbx_keeper_launch() */
	bool moved; /* on the other CPUs until the first wait; mask: sbxrun's */
	cpu_set_t mask;
	bool spin; /* many_cpus(): await() polls */
	size_t asked; /* MKDTEMPs sent whose answers are not read yet */
	bool counting; /* a COUNT sent whose answer is not read yet */
	size_t count_after; /* MKDTEMP answers due before it */
	bool counted; /* its answer read, into count */
	uint64_t count;
	struct k_made *made;
	size_t nmade;
	bool finishing; /* FINISH sent, its answer not read yet */
	bool undoing; /* UNDO_RUN sent, its answer not read yet */
	struct sbx_strv undone; /* its warnings, read but not taken yet */
};

/* In the keeper process: everything to undo. */
struct k_tmp {
	int parent;
	int fd; /* the directory made, O_PATH */
	struct stat st; /* its fstat when made */
	char *name;
	char *path;
};

/* A cgroup v2 leaf made for the run (doc/design/limits.md). */
struct k_leaf {
	int parent; /* the directory it was made in, O_PATH */
	char *name;
	char *path;
	bool test; /* a fake tree: the files in it were made by us */
};

struct k_watch {
	int wd;
	char *tag;
	struct sbx_strv created, scrub, orphan, held;
	struct stat *held_st; /* what each held name was at the watch (st_ino 0: none) */
};

struct k_state {
	struct k_tmp *tmp;
	size_t ntmp;
	struct sbx_script script;
	bool have_script;
#ifdef __linux__
	struct sbx_lease lease;
	bool leased;
	bool throwaway; /* the lease's root is a temp dir made here (throwaway_st) */
	struct stat throwaway_st;
#endif
	struct k_watch *w;
	size_t nw;
	struct k_leaf *leaf;
	size_t nleaf;
	int link_wd;
	struct sbx_strv links, sources, made; /* made: directories, outermost first */
	struct sbx_strv warnings;
	int sock; /* -1 once sbxrun is gone */
};

/* ---- the wire ---- */

static int
k_send(int sock, const struct k_hdr *h, const struct sbx_strv *strs, int fd)
{
	struct sbx_buf b = { 0 };
	struct k_hdr hh = *h;
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	hh.nstr = strs ? (uint32_t)strs->n : 0;
	sbx_buf_add(&b, &hh, sizeof(hh));
	for (size_t i = 0; strs && i < strs->n; i++)
		sbx_buf_add(&b, strs->v[i], strlen(strs->v[i]) + 1);
	iov.iov_base = b.data;
	iov.iov_len = b.len;
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&u, 0, sizeof(u));
		msg.msg_control = u.buf;
		msg.msg_controllen = sizeof(u.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	sbx_buf_free(&b);
	return n < 0 ? -1 : 0;
}

static void
k_msg_free(struct k_msg *m)
{
	free(m->data);
	free(m->str);
	if (m->fd >= 0)
		close(m->fd);
	memset(m, 0, sizeof(*m));
	m->fd = -1;
}

/* 1 with a message, 0 at the end of file, -1 on an error (errno; EAGAIN
 * with MSG_DONTWAIT and nothing there) or a malformed message. */
static int
k_recv(int sock, struct k_msg *m, int flags)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov;
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	struct cmsghdr *c;
	ssize_t n;
	char *p;

	memset(m, 0, sizeof(*m));
	m->fd = -1;
	do
		n = recv(sock, NULL, 0, MSG_PEEK | MSG_TRUNC | flags);
	while (n < 0 && errno == EINTR);
	if (n <= 0)
		return n == 0 ? 0 : -1;
	m->data = sbx_xmalloc((size_t)n + 1);
	iov.iov_base = m->data;
	iov.iov_len = (size_t)n;
	msg.msg_control = u.buf;
	msg.msg_controllen = sizeof(u.buf);
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n <= 0) {
		k_msg_free(m);
		return n == 0 ? 0 : -1;
	}
	c = CMSG_FIRSTHDR(&msg);
	if (c && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&m->fd, CMSG_DATA(c), sizeof(int));
	m->len = (size_t)n;
	m->data[n] = '\0';
	if (m->len < sizeof(m->h)) {
		k_msg_free(m);
		return -1;
	}
	memcpy(&m->h, m->data, sizeof(m->h));
	m->str = sbx_xcalloc(m->h.nstr + 1, sizeof(*m->str));
	p = m->data + sizeof(m->h);
	for (uint32_t i = 0; i < m->h.nstr; i++) {
		if (p >= m->data + m->len) {
			k_msg_free(m);
			return -1;
		}
		m->str[i] = p;
		p += strlen(p) + 1;
	}
	return 1;
}

/* ---- in the keeper ---- */

static void
k_warn(struct k_state *st, char *text)
{
	sbx_strv_push_take(&st->warnings, text);
}

/* sbxrun's end is gone (a send failed): nothing more is sent, and the
 * socket is closed rather than left open until the keeper's exit. */
static void
k_lost(struct k_state *st)
{
	if (st->sock >= 0)
		close(st->sock);
	st->sock = -1;
}

static void
k_reply(struct k_state *st, const struct sbx_err *err, const char *text, int fd)
{
	struct k_hdr h = { .op = K_REPLY,
		.err = err && err->msg[0] ? (err->errnum ? err->errnum : EIO) : 0 };
	struct sbx_strv s = { 0 };

	sbx_strv_push(&s, err && err->msg[0] ? err->msg : text ? text : "");
	if (st->sock >= 0 && k_send(st->sock, &h, &s, fd) < 0)
		k_lost(st);
	sbx_strv_free(&s);
}

static void
do_mkdtemp(struct k_state *st, const struct k_msg *m)
{
	struct sbx_err err = { 0 };
	char *path, *name;
	struct stat sb;
	int parent, fd;

	if (m->h.nstr < 2) {
		sbx_err_set(&err, EINVAL, "keeper: malformed request");
		k_reply(st, &err, NULL, -1);
		return;
	}
	parent = open(m->str[0], O_PATH | O_DIRECTORY | O_CLOEXEC);
	/* Made in the directory just opened (through its descriptor's
	 * /proc/self/fd link), then opened following nothing and checked
	 * to be ours: whoever owns that directory may rename entries in it,
	 * but cannot make the name lead elsewhere for what follows, which
	 * uses only the descriptor (a root caller's lend, the Landlock rule,
	 * the removal). */
	path = sbx_xasprintf("/proc/self/fd/%d/%s.XXXXXX", parent, m->str[1]);
	if (parent >= 0 && access("/proc/self/fd", F_OK) < 0) {
		/* No /proc: by name; the check below still holds. */
		free(path);
		path = sbx_xasprintf("%s/%s.XXXXXX", m->str[0], m->str[1]);
	}
	if (parent < 0 || mkdtemp(path) == NULL) {
		sbx_err_sys(&err, "%s", m->str[0]);
		if (parent >= 0)
			close(parent);
		free(path);
		k_reply(st, &err, NULL, -1);
		return;
	}
	name = sbx_xstrdup(strrchr(path, '/') + 1);
	free(path);
	path = sbx_xasprintf("%s/%s", m->str[0], name);
	fd = openat(parent, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 && errno != ENOENT && errno != ENOTDIR && errno != ELOOP) {
		/* Out of descriptors, say: the directory just made is still
		 * the one at that name, and empty; not left behind. */
		sbx_err_sys(&err, "cannot open %s", path);
		(void)unlinkat(parent, name, AT_REMOVEDIR);
		close(parent);
		free(name);
		free(path);
		k_reply(st, &err, NULL, -1);
		return;
	}
	if (fd < 0 || fstat(fd, &sb) < 0 || sb.st_uid != geteuid() ||
	    (sb.st_mode & 07777) != 0700) {
		sbx_err_set(&err, EPERM, "%s was replaced right after it was made", path);
		if (fd >= 0)
			close(fd);
		close(parent);
		free(name);
		free(path);
		k_reply(st, &err, NULL, -1);
		return;
	}
	st->tmp = sbx_xreallocarray(st->tmp, st->ntmp + 1, sizeof(*st->tmp));
	st->tmp[st->ntmp++] = (struct k_tmp){ parent, fd, sb, name, path };
	/* The descriptor goes with the answer: sbxrun asks for it no more
	 * (sbx_keeper_tmp_fd()). */
	k_reply(st, NULL, path, fd);
}

static void
do_forget(struct k_state *st, const struct k_msg *m)
{
	for (size_t i = 0; m->h.nstr >= 1 && i < st->ntmp; i++) {
		if (strcmp(st->tmp[i].path, m->str[0]) != 0)
			continue;
		close(st->tmp[i].parent);
		close(st->tmp[i].fd);
		free(st->tmp[i].name);
		free(st->tmp[i].path);
		st->tmp[i] = st->tmp[--st->ntmp];
		return;
	}
}

/* The record of a directory made by MKDTEMP, by its path, or NULL. */
static const struct k_tmp *
tmp_of(const struct k_state *st, const char *path)
{
	for (size_t i = 0; i < st->ntmp; i++)
		if (strcmp(st->tmp[i].path, path) == 0)
			return &st->tmp[i];
	return NULL;
}

static void
do_script(struct k_state *st, const struct k_msg *m)
{
	struct sbx_err err = { 0 };
	int fd = -1;

	if (m->h.nstr < 2 || st->have_script || m->fd < 0) {
		sbx_err_set(&err, EINVAL, "keeper: malformed request");
		k_reply(st, &err, NULL, -1);
		return;
	}
	st->have_script = true;
	if (sbx_script_create(&st->script, m->fd, m->str[0], m->str[1], (uid_t)m->h.a, &fd, &err) <
	    0) {
		k_reply(st, &err, NULL, -1);
		return;
	}
	k_reply(st, NULL, NULL, fd);
	close(fd);
}

static void
do_lend(struct k_state *st, const struct k_msg *m)
{
	struct sbx_err err = { 0 };
#ifdef __linux__
	struct sbx_strv skip = { 0 };
	uid_t to = (uid_t)m->h.c;
	gid_t to_gid = (gid_t)m->h.d;
	const struct k_tmp *t = NULL;

	if (m->h.nstr < 2 || st->leased || m->fd < 0) {
		sbx_err_set(&err, EINVAL, "keeper: malformed request");
		k_reply(st, &err, NULL, -1);
		return;
	}
	/* Only a TMPDIR this keeper made, by its descriptor: the name may
	 * lead elsewhere by now. */
	if (m->str[1][0] && (t = tmp_of(st, m->str[1])) == NULL) {
		sbx_err_set(&err, EINVAL, "keeper: %s was not made by it", m->str[1]);
		k_reply(st, &err, NULL, -1);
		return;
	}
	/* EINVAL: the id is not mapped, as for root in a user namespace
	 * that maps only itself. */
	if (t && fchownat(t->fd, "", to, to_gid, AT_EMPTY_PATH) < 0) {
		sbx_err_sys(&err, "landlock: cannot give %s to uid %u%s", m->str[1], (unsigned)to,
		    errno == EINVAL ? " (that id does not exist in this user namespace)" : "");
		k_reply(st, &err, NULL, -1);
		return;
	}
	for (uint32_t i = 2; i < m->h.nstr; i++)
		sbx_strv_push(&skip, m->str[i]);
	/* From the workdir's pinned descriptor, never its name. */
	if (sbx_owner_lend(&st->lease, m->fd, m->str[0], (uid_t)m->h.a, (gid_t)m->h.b, to, to_gid,
		&skip, &err) == 0) {
		st->leased = true;
		st->lease.acls = (m->h.flags & K_ACLS) != 0;
		st->lease.acls_all = (m->h.flags & K_ACLS_ALL) != 0;
	}
	/* Believed only of a directory made here (the very inode). */
	if (st->leased && (m->h.flags & K_THROWAWAY)) {
		struct stat sb;
		bool known = fstat(m->fd, &sb) == 0;

		for (size_t i = 0; known && i < st->ntmp; i++)
			if (sbx_same_file(&sb, &st->tmp[i].st)) {
				st->throwaway = true;
				st->throwaway_st = sb;
				break;
			}
	}
	sbx_strv_free(&skip);
#else
	sbx_err_set(&err, ENOTSUP, "keeper: no lend on this system");
#endif
	k_reply(st, &err, NULL, -1);
}

/* The directory holding rel below wd, opened following nothing, and the
 * last component in *name (pointing into copy). */
static int
parent_of(int wd, char *copy, const char **name)
{
	char *slash = strrchr(copy, '/');
	struct stat sb;
	int fd;

	if (slash == NULL) {
		*name = copy;
		return fcntl(wd, F_DUPFD_CLOEXEC, 0);
	}
	*slash = '\0';
	*name = slash + 1;
	fd = sbx_open_nofollow(wd, copy, &sb);
	if (fd >= 0 && !S_ISDIR(sb.st_mode)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void
do_link(struct k_state *st, const struct k_msg *m)
{
	struct sbx_err err = { 0 };
	_cleanup_free_ char *copy = NULL;
	const char *last;
	struct stat sb;
	char *c;
	int dir;

	if (m->h.nstr < 2 || m->fd < 0) {
		sbx_err_set(&err, EINVAL, "keeper: malformed request");
		k_reply(st, &err, NULL, -1);
		return;
	}
	if (st->link_wd < 0)
		st->link_wd = fcntl(m->fd, F_DUPFD_CLOEXEC, 0);
	copy = sbx_xstrdup(m->str[0]);
	dir = fcntl(st->link_wd, F_DUPFD_CLOEXEC, 0);
	/* One component at a time from the workdir's descriptor, following
	 * no symbolic link; each directory made is recorded at once. */
	for (c = copy; dir >= 0 && (c = strchr(c, '/')) != NULL; c++) {
		const char *name;
		int next;

		*c = '\0';
		name = strrchr(copy, '/');
		name = name ? name + 1 : copy;
		if (mkdirat(dir, name, 0755) == 0) {
			sbx_strv_push(&st->made, copy);
		} else if (errno != EEXIST) {
			sbx_err_sys(&err, "landlock: cannot make %s", copy);
			break;
		}
		next = openat(dir, name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		close(dir);
		dir = next;
		if (dir < 0)
			sbx_err_sys(&err, "landlock: cannot open %s", copy);
		*c = '/';
	}
	last = strrchr(m->str[0], '/');
	last = last ? last + 1 : m->str[0];
	if (dir >= 0 && !err.msg[0]) {
		if (fstatat(dir, last, &sb, AT_SYMLINK_NOFOLLOW) == 0)
			sbx_err_set(&err, EEXIST,
			    "landlock: mount target %s exists; without a mount namespace only a "
			    "symbolic link to %s could be made there",
			    m->str[0], m->str[1]);
		else if (symlinkat(m->str[1], dir, last) < 0)
			sbx_err_sys(&err, "landlock: cannot make %s", m->str[0]);
		else {
			sbx_strv_push(&st->links, m->str[0]);
			sbx_strv_push(&st->sources, m->str[1]);
		}
	}
	if (dir >= 0)
		close(dir);
	k_reply(st, &err, NULL, -1);
}

/* COUNT: the tasks of uid a, as sbxrun would count them
 * (sbx_limits_uid_tasks()), in decimal. */
static void
do_count(struct k_state *st, const struct k_msg *m)
{
	char text[24];

	snprintf(text, sizeof(text), "%" PRIu64, sbx_limits_uid_tasks((uid_t)m->h.a));
	k_reply(st, NULL, text, -1);
}

/* What rel below wd is, no link followed on the way or at the end, from
 * what the kernel has cached: the name may be the root of a mount whose
 * server never answers (tests/integration/attack-stall.sh). */
static int
held_stat(int wd, const char *rel, struct stat *st)
{
	_cleanup_free_ char *copy = sbx_xstrdup(rel);
	const char *name;
	_cleanup_close_ int dir = parent_of(wd, copy, &name);

	return dir < 0 ? -1 : sbx_stat_cached(dir, name, AT_SYMLINK_NOFOLLOW, st);
}

/* A protected entry the jail held read-only by a bind onto itself, with
 * another file under its name now: a second run's keeper moved the one
 * held aside (the bind goes with it), which freed the name inside, and
 * the sandbox made this one (threat-model.md, "A second sandbox on the
 * same workdir"). Moved aside as a scrubbed name is. */
static void
undo_held(struct k_state *st, struct k_watch *w)
{
	for (size_t i = 0; i < w->held.n; i++) {
		_cleanup_free_ char *copy = sbx_xstrdup(w->held.v[i]);
		_cleanup_free_ char *aside = NULL;
		const char *name;
		_cleanup_close_ int dir = -1;
		struct stat now;

		if (w->held_st[i].st_ino == 0)
			continue;
		dir = parent_of(w->wd, copy, &name);
		if (dir < 0 || sbx_stat_cached(dir, name, AT_SYMLINK_NOFOLLOW, &now) < 0 ||
		    sbx_same_file(&now, &w->held_st[i]))
			continue;
		aside = sbx_rename_aside(dir, name);
		k_warn(st,
		    aside ? sbx_xasprintf("%s: the sandbox made %s in place of the protected one "
					  "(another run on the workdir had moved that aside); it "
					  "was moved aside to %.*s%s",
				w->tag, w->held.v[i], (int)(name - copy), w->held.v[i], aside)
			  : sbx_xasprintf("%s: the sandbox made %s in place of the protected one, "
					  "and it cannot be moved aside: %s",
				w->tag, w->held.v[i], strerror(errno)));
	}
}

static void
do_watch(struct k_state *st, struct k_msg *m)
{
	struct k_watch *w;

	if (m->fd < 0 || m->h.nstr < 1 || (uint64_t)m->h.a + m->h.b + m->h.c > m->h.nstr - 1)
		return;
	st->w = sbx_xreallocarray(st->w, st->nw + 1, sizeof(*st->w));
	w = &st->w[st->nw++];
	memset(w, 0, sizeof(*w));
	w->wd = steal_fd(&m->fd);
	w->tag = sbx_xstrdup(m->str[0]);
	for (uint32_t i = 1; i < m->h.nstr; i++)
		sbx_strv_push(i <= m->h.a                         ? &w->created
			: i <= (uint64_t)m->h.a + m->h.b          ? &w->scrub
			: i <= (uint64_t)m->h.a + m->h.b + m->h.c ? &w->orphan
								  : &w->held,
		    m->str[i]);
	w->held_st = sbx_xcalloc(w->held.n + 1, sizeof(*w->held_st));
	for (size_t i = 0; i < w->held.n; i++)
		if (held_stat(w->wd, w->held.v[i], &w->held_st[i]) < 0)
			w->held_st[i].st_ino = 0;
}

static void
undo_links(struct k_state *st)
{
	char buf[4096];

	for (size_t i = 0; st->link_wd >= 0 && i < st->links.n; i++) {
		_cleanup_free_ char *copy = sbx_xstrdup(st->links.v[i]);
		const char *name;
		_cleanup_close_ int dir = parent_of(st->link_wd, copy, &name);
		ssize_t n;

		/* Only our own link: the sandbox may have put anything there. */
		if (dir < 0 || (n = readlinkat(dir, name, buf, sizeof(buf) - 1)) < 0)
			continue;
		buf[n] = '\0';
		if (strcmp(buf, st->sources.v[i]) == 0)
			unlinkat(dir, name, 0);
	}
	for (size_t i = st->made.n; st->link_wd >= 0 && i-- > 0;)
		sbx_remove_empty_at(st->link_wd, st->made.v[i]);
	sbx_strv_free(&st->links);
	sbx_strv_free(&st->sources);
	sbx_strv_free(&st->made);
}

/* Writes text to the file name in the directory dir; 0, or -1 with
 * errno. In a test tree the file is made if missing (the kernel makes
 * them in a real leaf). */
static int
write_at(int dir, const char *name, const char *text, bool create)
{
	int fd = openat(
	    dir, name, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | (create ? O_CREAT | O_APPEND : 0), 0644);
	ssize_t n;
	int e;

	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	e = errno;
	close(fd);
	errno = e;
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* CGROUP: strings PARENT, NAME, SUP (empty: none), ENABLE (the
 * "+memory +pids" line for SUP's parent), then FILE, VALUE, OPTIONAL
 * triples; a: sbxrun's pid; d: 1 for a test tree. With SUP, sbxrun and
 * the keeper first move into PARENT/SUP, so that PARENT holds no process
 * and may hand its controllers down (the kernel's "no internal
 * processes" rule), and ENABLE is written to PARENT's subtree_control.
 * Then PARENT/NAME is made (recorded at once) and the files written;
 * the leaf's directory goes back to sbxrun. */
static void
do_cgroup(struct k_state *st, const struct k_msg *m)
{
	struct sbx_err err = { 0 };
	bool test = m->h.d != 0;
	int parent, leaf = -1;
	char pid[32];

	if (m->h.nstr < 4 || (m->h.nstr - 4) % 3 != 0 || strchr(m->str[1], '/') ||
	    m->str[1][0] == '\0' || m->str[1][0] == '.') {
		sbx_err_set(&err, EINVAL, "keeper: malformed request");
		k_reply(st, &err, NULL, -1);
		return;
	}
	parent = open(m->str[0], O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (parent < 0) {
		sbx_err_sys(&err, "cgroup: %s", m->str[0]);
		k_reply(st, &err, NULL, -1);
		return;
	}
	if (m->str[2][0]) {
		int sup;

		if (mkdirat(parent, m->str[2], 0755) < 0 && errno != EEXIST) {
			sbx_err_sys(&err, "cgroup: cannot make %s/%s", m->str[0], m->str[2]);
			goto fail;
		}
		sup = openat(parent, m->str[2], O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		snprintf(pid, sizeof(pid), "%u\n", m->h.a);
		/* One pid per write: cgroup.procs takes one at a time. */
		if (sup < 0 || write_at(sup, "cgroup.procs", pid, test) < 0 ||
		    (snprintf(pid, sizeof(pid), "%d\n", (int)getpid()),
			write_at(sup, "cgroup.procs", pid, test) < 0)) {
			sbx_err_sys(
			    &err, "cgroup: cannot move sbxrun into %s/%s", m->str[0], m->str[2]);
			if (sup >= 0)
				close(sup);
			goto fail;
		}
		close(sup);
		if (write_at(parent, "cgroup.subtree_control", m->str[3], false) < 0) {
			sbx_err_sys(&err, "cgroup: cannot enable %s in %s", m->str[3], m->str[0]);
			goto fail;
		}
	}
	if (mkdirat(parent, m->str[1], 0755) < 0) {
		sbx_err_sys(&err, "cgroup: cannot make %s/%s", m->str[0], m->str[1]);
		goto fail;
	}
	st->leaf = sbx_xreallocarray(st->leaf, st->nleaf + 1, sizeof(*st->leaf));
	st->leaf[st->nleaf++] = (struct k_leaf){ parent, sbx_xstrdup(m->str[1]),
		sbx_xasprintf("%s/%s", m->str[0], m->str[1]), test };
	parent = -1;
	leaf = openat(st->leaf[st->nleaf - 1].parent, m->str[1],
	    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (leaf < 0) {
		sbx_err_sys(&err, "cgroup: %s", st->leaf[st->nleaf - 1].path);
		goto fail;
	}
	if (test && write_at(leaf, "cgroup.procs", "", true) < 0) {
		sbx_err_sys(&err, "cgroup: %s", st->leaf[st->nleaf - 1].path);
		goto fail;
	}
	for (uint32_t i = 4; i + 2 < m->h.nstr; i += 3) {
		bool optional = m->str[i + 2][0] == '1';

		if (write_at(leaf, m->str[i], m->str[i + 1], test) == 0)
			continue;
		if (optional && errno == ENOENT)
			continue;
		sbx_err_sys(&err, "cgroup: cannot write %s to %s/%s", m->str[i + 1],
		    st->leaf[st->nleaf - 1].path, m->str[i]);
		goto fail;
	}
	k_reply(st, NULL, st->leaf[st->nleaf - 1].path, leaf);
	close(leaf);
	return;
fail:
	if (leaf >= 0)
		close(leaf);
	if (parent >= 0)
		close(parent);
	k_reply(st, &err, NULL, -1);
}

/* Removes the run's leaves, once nothing of the run is left: a leaf that
 * still holds a process (one that escaped init's kill, or a kill of
 * sbxrun and init) is emptied with cgroup.kill first (Linux 5.14). A
 * removed leaf takes its counters with it. */
static void
undo_cgroups(struct k_state *st)
{
	for (size_t i = 0; i < st->nleaf; i++) {
		struct k_leaf *l = &st->leaf[i];
		bool done = false;

		if (l->test) {
			/* Our own plain files: a real leaf's go with it. */
			int leaf = openat(
			    l->parent, l->name, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
			static const char *const files[] = { "cgroup.procs", "memory.max",
				"memory.swap.max", "pids.max", "memory.events", "memory.peak",
				"pids.events", "cgroup.kill" };

			for (size_t k = 0; leaf >= 0 && k < SBX_ARRAY_LEN(files); k++)
				(void)unlinkat(leaf, files[k], 0);
			if (leaf >= 0)
				close(leaf);
		}
		/* About two seconds at most: the kill is asynchronous, and a
		 * task leaves the group as it exits. */
		for (int tries = 0; tries < 200 && !done; tries++) {
			if (unlinkat(l->parent, l->name, AT_REMOVEDIR) == 0 || errno == ENOENT) {
				done = true;
				break;
			}
			if (errno != EBUSY)
				break;
			if (tries == 0) {
				int leaf = openat(l->parent, l->name,
				    O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

				if (leaf >= 0) {
					(void)write_at(leaf, "cgroup.kill", "1", false);
					close(leaf);
				}
			}
			poll(NULL, 0, 10);
		}
		if (!done)
			k_warn(st,
			    sbx_xasprintf("cgroup: the run's leaf %s could not be removed: %s",
				l->path, strerror(errno)));
		close(l->parent);
		free(l->name);
		free(l->path);
	}
	free(st->leaf);
	st->leaf = NULL;
	st->nleaf = 0;
}

#ifdef __linux__
/* Whether the lease is of a temp workdir still recorded for removal. */
static bool
lease_thrown_away(const struct k_state *st)
{
	for (size_t i = 0; st->throwaway && i < st->ntmp; i++)
		if (sbx_same_file(&st->tmp[i].st, &st->throwaway_st))
			return true;
	return false;
}
#endif

/* What the run changed in the workdirs: moved aside, removed, handed
 * back; orphaned: sbxrun died before its FINISH, so its own checks after
 * the run may not have been made (the watches' orphan names). */
static void
undo_run(struct k_state *st, bool orphaned)
{
	for (size_t k = 0; k < st->nw; k++) {
		struct k_watch *w = &st->w[k];

		for (size_t i = 0; orphaned && i < w->orphan.n; i++) {
			struct sbx_err err = { 0 };
			_cleanup_free_ char *aside = sbx_move_aside_at(w->wd, w->orphan.v[i], &err);

			if (aside)
				k_warn(st,
				    sbx_xasprintf(
					"%s: sbxrun ended before its checks; %s, which "
					"would make the workdir a git repository, was moved "
					"aside to %s",
					w->tag, w->orphan.v[i], aside));
		}

		for (size_t i = 0; i < w->scrub.n; i++) {
			struct sbx_err err = { 0 };
			_cleanup_free_ char *made = NULL;
			_cleanup_free_ char *aside =
			    sbx_move_aside_way(w->wd, w->scrub.v[i], &made, &err);

			/* The plan scrubs no path that passed through a symlink
			 * at the start (plan.c, protect_one): one met on the way
			 * now was made or put there in the run, and would lead
			 * the caller's tools into a tree of the sandbox's. */
			if (aside) {
				k_warn(st,
				    sbx_xasprintf("%s: the sandbox made %s, where nothing may be "
						  "made (a symlink on the way to %s); it was moved "
						  "aside to %s",
					w->tag, made, w->scrub.v[i], aside));
				continue;
			}
			if (err.msg[0]) {
				k_warn(st, sbx_xasprintf("%s: %s", w->tag, err.msg));
				continue;
			}
			aside = sbx_move_aside_at(w->wd, w->scrub.v[i], &err);
			if (aside)
				k_warn(st,
				    sbx_xasprintf("%s: the sandbox made %s, where nothing may be "
						  "made; it was moved aside to %s",
					w->tag, w->scrub.v[i], aside));
			else if (err.msg[0])
				k_warn(st, sbx_xasprintf("%s: %s", w->tag, err.msg));
		}
		undo_held(st, w);
	}
	undo_links(st);
	for (size_t k = 0; k < st->nw; k++) {
		struct k_watch *w = &st->w[k];

		for (size_t i = w->created.n; i-- > 0;)
			sbx_remove_empty_at(w->wd, w->created.v[i]);
		close(w->wd);
		free(w->tag);
		sbx_strv_free(&w->created);
		sbx_strv_free(&w->scrub);
		sbx_strv_free(&w->orphan);
		sbx_strv_free(&w->held);
		free(w->held_st);
	}
	free(st->w);
	st->w = NULL;
	st->nw = 0;
#ifdef __linux__
	/* A thrown-away workdir still due for removal (undo_files(); the
	 * keeper's record of it, not forgotten) is not walked: the removal
	 * takes all of it, whoever owns what. */
	if (st->leased && lease_thrown_away(st))
		sbx_owner_drop(&st->lease);
	else if (st->leased)
		sbx_owner_return(&st->lease, &st->warnings);
	st->leased = false;
	st->throwaway = false;
#endif
}

static void
undo_files(struct k_state *st)
{
	if (st->have_script)
		sbx_script_remove(&st->script);
	st->have_script = false;
	for (size_t i = 0; i < st->ntmp; i++) {
		struct sbx_err err = { 0 };
		struct stat now;

		/* The name may have been given to another directory meanwhile
		 * by whoever owns the parent: only the one made is removed. */
		if (fstatat(st->tmp[i].parent, st->tmp[i].name, &now, AT_SYMLINK_NOFOLLOW) < 0 ||
		    !sbx_same_file(&now, &st->tmp[i].st))
			k_warn(st,
			    sbx_xasprintf("%s is no longer the directory sbxrun made; left alone",
				st->tmp[i].path));
		else if (sbx_rm_rf_at(st->tmp[i].parent, st->tmp[i].name, &st->tmp[i].st,
			     st->tmp[i].path, &err) < 0)
			k_warn(st, sbx_xstrdup(err.msg));
		close(st->tmp[i].fd);
		close(st->tmp[i].parent);
		free(st->tmp[i].name);
		free(st->tmp[i].path);
	}
	free(st->tmp);
	st->tmp = NULL;
	st->ntmp = 0;
}

/* The warnings gathered, then DONE. */
static void
report(struct k_state *st)
{
	struct k_hdr h = { .op = K_WARN };
	struct k_hdr done = { .op = K_DONE };

	for (size_t i = 0; st->sock >= 0 && i < st->warnings.n; i++) {
		struct sbx_strv one = { 0 };

		sbx_strv_push(&one, st->warnings.v[i]);
		if (k_send(st->sock, &h, &one, -1) < 0)
			k_lost(st);
		sbx_strv_free(&one);
	}
	sbx_strv_free(&st->warnings);
	if (st->sock >= 0 && k_send(st->sock, &done, NULL, -1) < 0)
		k_lost(st);
}

/* 1 when sbxrun said FINISH, 0 after any other request, 2 when there is
 * nothing to read (MSG_DONTWAIT), -1 when sbxrun is gone. */
static int
serve_one(struct k_state *st, int flags)
{
	struct k_msg m;
	int r = k_recv(st->sock, &m, flags);

	if (r < 0 && errno == EAGAIN)
		return 2;
	if (r <= 0)
		return -1;
	switch (m.h.op) {
	case K_MKDTEMP: do_mkdtemp(st, &m); break;
	case K_FORGET: do_forget(st, &m); break;
	case K_SCRIPT: do_script(st, &m); break;
	case K_LEND: do_lend(st, &m); break;
	case K_LINK: do_link(st, &m); break;
	case K_WATCH: do_watch(st, &m); break;
	case K_CGROUP: do_cgroup(st, &m); break;
	case K_COUNT: do_count(st, &m); break;
	case K_UNDO_RUN:
		undo_run(st, false);
		report(st);
		break;
	case K_FINISH: k_msg_free(&m); return 1;
	default: break;
	}
	k_msg_free(&m);
	return 0;
}

/* Either side, a message due within microseconds is polled for up to
 * this long before the process sleeps: the other side works on another
 * CPU, and a sleeping process is woken ~30 us after the message on a VM
 * whose idle CPUs halt, a polling one at once (doc/design/startup.md,
 * section 32). A process on the same CPU runs at each sched_yield(). */
#define BUSY_POLL_NS 200000u

static uint64_t
mono_ns(void)
{
	struct timespec t;

	if (clock_gettime(CLOCK_MONOTONIC, &t) < 0)
		return 0;
	return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static uint64_t
busy_deadline(void)
{
	uint64_t now = mono_ns();

	return now ? now + BUSY_POLL_NS : 0;
}

/* Whether the caller may run on more than one CPU: only then is a
 * message polled for (on one CPU the other side needs that CPU). */
static bool
many_cpus(void)
{
#ifdef __linux__
	cpu_set_t mask;

	return sched_getaffinity(0, sizeof(mask), &mask) == 0 && CPU_COUNT(&mask) > 1;
#else
	return false;
#endif
}

/* Whether a busy poll with that deadline goes on (yielding first). */
static bool
still_busy(const uint64_t *until)
{
	uint64_t now = mono_ns();

	if (now == 0 || now >= *until)
		return false;
	sched_yield();
	return true;
}

/* spin: many_cpus() in sbxrun as it forked the keeper. */
static noreturn void
keeper_main(int sock, int hold, bool spin)
{
	struct k_state st = { .link_wd = -1, .sock = sock };
	bool finish = false;
	uint64_t busy_until = 0;
	sigset_t all;

	/* Only SIGKILL ends it: not the terminal's ^C, not a signal to
	 * sbxrun's process group, not a closed pipe. */
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	(void)setsid();
#ifdef __linux__
	(void)prctl(PR_SET_NAME, "sbxrun-keeper", 0, 0, 0);
#endif
	if (chdir("/") < 0) {
		/* it holds no path relative to its directory */
	}
	{
		int keep[] = { sock, hold };

		sbx_close_fds_except(keep, 2);
		sbx_stdio_to_null();
	}
	/* Ready: sbxrun waits for this (sbx_keeper_start()). */
	k_reply(&st, NULL, "", -1);
	for (;;) {
		struct pollfd pfd[2] = {
			{ .fd = st.sock, .events = POLLIN },
			{ .fd = hold, .events = POLLIN },
		};
		char buf[64];
		int n = poll(pfd, 2, busy_until ? 0 : -1);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (n == 0) {
			if (!still_busy(&busy_until))
				busy_until = 0;
			continue;
		}
		if (pfd[0].revents) {
			int r = serve_one(&st, 0);

			if (r == 1)
				finish = true;
			else if (r < 0)
				k_lost(&st);
			continue;
		}
		if (pfd[1].revents) {
			ssize_t got = read(hold, buf, sizeof(buf));

			if (got == 0 || (got < 0 && errno != EINTR && errno != EAGAIN))
				break;
			/* Init's word that the tree is reaped (sbx_init_main()):
			 * sbxrun's undo requests follow within microseconds. */
			if (got > 0 && spin)
				busy_until = busy_deadline();
		}
	}
	/* Nothing of the run is left: what sbxrun sent before it closed its
	 * end is read first. */
	while (st.sock >= 0 && !finish) {
		int r = serve_one(&st, MSG_DONTWAIT);

		if (r == 1)
			finish = true;
		else if (r != 0)
			break;
	}
	undo_run(&st, !finish);
	undo_files(&st);
	undo_cgroups(&st);
	if (finish)
		report(&st);
	_exit(0);
}

/* ---- in sbxrun ---- */

static int reply(struct sbx_keeper *k, char **text, int *fd, struct sbx_err *err);

static struct sbx_keeper *
keeper_fork(struct sbx_err *err)
{
	int sv[2], hold[2];
	struct sbx_keeper *k;
	bool spin = many_cpus();
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) < 0) {
		sbx_err_sys(err, "keeper: socketpair");
		return NULL;
	}
	if (pipe2(hold, O_CLOEXEC) < 0) {
		sbx_err_sys(err, "keeper: pipe");
		close(sv[0]);
		close(sv[1]);
		return NULL;
	}
	fflush(NULL);
#ifdef __linux__
	/* fork() with no signal at the end (a clone child): the raw system
	 * call, as glibc has no fork with another exit signal. sbxrun is one
	 * thread here and holds no lock, so the state fork() would update
	 * needs nothing in the copy; the keeper blocks every signal first. */
	pid = (pid_t)syscall(SYS_clone, 0UL, 0UL, NULL, NULL, 0UL);
	if (pid == 0) {
		close(sv[0]);
		close(hold[1]);
		keeper_main(sv[1], hold[0], spin);
	}
#else
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		close(hold[1]);
		pid = fork();
		if (pid == 0)
			keeper_main(sv[1], hold[0], spin);
		_exit(pid < 0 ? 1 : 0);
	}
#endif
	if (pid < 0) {
		sbx_err_sys(err, "keeper: fork");
		close(sv[0]);
		close(hold[1]);
		close(sv[1]);
		close(hold[0]);
		return NULL;
	}
	close(sv[1]);
	close(hold[0]);
	k = sbx_xcalloc(1, sizeof(*k));
	k->sock = sv[0];
	k->hold = hold[1];
	k->spin = spin;
#ifdef __linux__
	k->pid = pid;
#else
	{
		int st;

		while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
			;
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			sbx_err_set(err, EAGAIN, "keeper: cannot fork");
			close(sv[0]);
			close(hold[1]);
			free(k);
			return NULL;
		}
	}
#endif
	return k;
}

struct sbx_keeper *
sbx_keeper_start(struct sbx_err *err)
{
	struct sbx_keeper *k = keeper_fork(err);

	/* Until the keeper says it is ready, sbxrun waits, and the keeper has
	 * the CPU: started and left to itself, it first ran only once the
	 * idle vCPU it was placed on woke, and its answers to the first
	 * requests came 0.2 ms later (doc/design/startup.md, section 12). */
	if (k != NULL && reply(k, NULL, NULL, err) < 0) {
		sbx_keeper_finish(k, NULL);
		return NULL;
	}
	return k;
}

struct sbx_keeper *
sbx_keeper_launch(struct sbx_err *err)
{
	struct sbx_keeper *k = keeper_fork(err);

	if (k != NULL)
		k->unready = true;
	return k;
}

pid_t
sbx_keeper_pid(const struct sbx_keeper *k)
{
	return k ? k->pid : 0;
}

int
sbx_keeper_hold_fd(const struct sbx_keeper *k)
{
	return k ? k->hold : -1;
}

/* From the first wait for a keeper launched on the other CPUs on, it
 * may run on sbxrun's again, where its answers come soonest. */
static void
settle(struct sbx_keeper *k)
{
	if (k->moved) {
		k->moved = false;
		(void)sched_setaffinity(k->pid, sizeof(k->mask), &k->mask);
	}
}

static void collect(struct sbx_keeper *k, struct sbx_strv *warnings);

/* Returns once the keeper's next message (or its end) is there, or after
 * BUSY_POLL_NS: the caller's recv then sleeps as before. */
static void
await(const struct sbx_keeper *k)
{
	struct pollfd p = { .fd = k->sock, .events = POLLIN };
	uint64_t until = k->spin ? busy_deadline() : 0;

	while (until && poll(&p, 1, 0) == 0 && still_busy(&until))
		;
}

/* The answer of an UNDO_RUN asked without a wait, read into k->undone
 * before anything that follows it on the socket. */
static void
undo_read(struct sbx_keeper *k)
{
	if (!k->undoing)
		return;
	k->undoing = false;
	collect(k, &k->undone);
}

/* Reads the REPLY to a request sent: 0, or -1 with err (the keeper's
 * message). The descriptor of the reply, if any, goes to *fd. */
static int
reply(struct sbx_keeper *k, char **text, int *fd, struct sbx_err *err)
{
	struct k_msg m;

	undo_read(k);

	/* A keeper launched without a wait answered "ready" first. */
	settle(k);
	if (k->unready) {
		k->unready = false;
		if (reply(k, NULL, NULL, err) < 0)
			return -1;
	}
	await(k);
	if (k_recv(k->sock, &m, 0) <= 0 || m.h.op != K_REPLY)
		return sbx_err_set(err, EIO, "keeper: no answer");
	if (m.h.err != 0) {
		sbx_err_set(err, m.h.err, "%s", m.h.nstr ? m.str[0] : "keeper: failed");
		k_msg_free(&m);
		return -1;
	}
	if (text)
		*text = sbx_xstrdup(m.h.nstr ? m.str[0] : "");
	if (fd) {
		*fd = m.fd;
		m.fd = -1;
	}
	k_msg_free(&m);
	return 0;
}

/* Reads the answer to a COUNT still due (sbx_keeper_count_ask()), which
 * comes before the answer to any request sent after it. */
static void
count_read(struct sbx_keeper *k)
{
	struct sbx_err e = { 0 };
	char *text = NULL, *end = NULL;
	unsigned long long n;

	if (!k->counting)
		return;
	k->counting = false;
	if (reply(k, &text, NULL, &e) == 0 && text[0] >= '0' && text[0] <= '9') {
		errno = 0;
		n = strtoull(text, &end, 10);
		if (errno == 0 && *end == '\0') {
			k->count = n;
			k->counted = true;
		}
	}
	free(text);
}

/* Sends a request, runs meanwhile (when not NULL), and waits for the
 * request's REPLY (reply()). */
static int
request_meanwhile(struct sbx_keeper *k, const struct k_hdr *h, const struct sbx_strv *strs,
    int send_fd, void (*meanwhile)(void *), void *ctx, char **text, int *fd, struct sbx_err *err)
{
	if (k == NULL)
		return sbx_err_set(err, EINVAL, "no keeper for this run");
	if (k_send(k->sock, h, strs, send_fd) < 0)
		return sbx_err_sys(err, "keeper: cannot send");
	if (meanwhile != NULL)
		meanwhile(ctx);
	count_read(k);
	return reply(k, text, fd, err);
}

static int
request(struct sbx_keeper *k, const struct k_hdr *h, const struct sbx_strv *strs, int send_fd,
    char **text, int *fd, struct sbx_err *err)
{
	return request_meanwhile(k, h, strs, send_fd, NULL, NULL, text, fd, err);
}

static void
made_close(struct k_made *m)
{
	close(m->fd);
	free(m->path);
}

int
sbx_keeper_mkdtemp(
    struct sbx_keeper *k, const char *parent, const char *prefix, char **path, struct sbx_err *err)
{
	struct sbx_err later = { 0 };
	int r = sbx_keeper_mkdtemps_ask(k, parent, &prefix, 1, err);

	/* Read even after a failed ask: the next request reads its own. */
	if (sbx_keeper_mkdtemps_take(k, path, 1, r < 0 ? &later : err) < 0)
		r = -1;
	return r;
}

int
sbx_keeper_mkdtemps_ask(struct sbx_keeper *k, const char *parent, const char *const *prefixes,
    size_t n, struct sbx_err *err)
{
	struct k_hdr h = { .op = K_MKDTEMP };
	cpu_set_t others;

	if (k == NULL)
		return sbx_err_set(err, EINVAL, "no keeper for this run");
	/* A keeper launched a moment ago, asked before sbxrun waits for it,
	 * goes off sbxrun's CPU, where it would wait for sbxrun to block: it
	 * starts and makes them while sbxrun works (doc/design/startup.md,
	 * section 21). */
	if (k->unready && !k->moved && n > 0 &&
	    sched_getaffinity(0, sizeof(k->mask), &k->mask) == 0 && sbx_cpu_others(&others))
		k->moved = sched_setaffinity(k->pid, sizeof(others), &others) == 0;
	for (size_t i = 0; i < n; i++) {
		struct sbx_strv s = { 0 };
		int r;

		sbx_strv_push(&s, parent);
		sbx_strv_push(&s, prefixes[i]);
		r = k_send(k->sock, &h, &s, -1);
		sbx_strv_free(&s);
		if (r < 0)
			return sbx_err_sys(err, "keeper: cannot send");
		k->asked++;
	}
	return 0;
}

int
sbx_keeper_mkdtemps_take(struct sbx_keeper *k, char **paths, size_t n, struct sbx_err *err)
{
	size_t asked;
	int r = 0;

	for (size_t i = 0; i < n; i++)
		paths[i] = NULL;
	if (k == NULL)
		return sbx_err_set(err, EINVAL, "no keeper for this run");
	asked = k->asked;
	k->asked = 0;
	/* Every reply is read, so that the next request reads its own. */
	for (size_t i = 0; i < asked; i++) {
		struct sbx_err e = { 0 };
		char *path = NULL;
		int fd = -1;

		if (k->counting && i == k->count_after)
			count_read(k);
		if (reply(k, &path, &fd, &e) < 0) {
			if (r == 0) {
				*err = e;
				r = -1;
			}
			continue;
		}
		if (i >= n) {
			free(path);
			if (fd >= 0)
				close(fd);
			continue;
		}
		paths[i] = path;
		if (fd < 0)
			continue;
		k->made = sbx_xreallocarray(k->made, k->nmade + 1, sizeof(*k->made));
		k->made[k->nmade++] = (struct k_made){ sbx_xstrdup(path), fd };
	}
	/* A COUNT asked after all of them is now the first answer due. */
	k->count_after = 0;
	return r;
}

int
sbx_keeper_count_ask(struct sbx_keeper *k, uid_t uid)
{
	struct k_hdr h = { .op = K_COUNT, .a = (uint32_t)uid };

	if (k == NULL || k->counting || k->counted || k_send(k->sock, &h, NULL, -1) < 0)
		return -1;
	k->counting = true;
	k->count_after = k->asked;
	return 0;
}

int
sbx_keeper_count_take(struct sbx_keeper *k, uint64_t *n)
{
	if (k == NULL)
		return -1;
	if (k->asked > 0)
		return -1;
	count_read(k);
	if (!k->counted)
		return -1;
	k->counted = false;
	*n = k->count;
	return 0;
}

void
sbx_keeper_forget(struct sbx_keeper *k, const char *path)
{
	struct k_hdr h = { .op = K_FORGET };
	struct sbx_strv s = { 0 };

	if (k == NULL)
		return;
	sbx_strv_push(&s, path);
	k_send(k->sock, &h, &s, -1);
	sbx_strv_free(&s);
	for (size_t i = 0; i < k->nmade; i++)
		if (strcmp(k->made[i].path, path) == 0) {
			made_close(&k->made[i]);
			k->made[i] = k->made[--k->nmade];
			break;
		}
}

size_t
sbx_keeper_forget_fds(const struct sbx_keeper *k, const char *path, int *fds, size_t max)
{
	size_t n = 0;

	if (k == NULL)
		return 0;
	if (n < max)
		fds[n++] = k->sock;
	for (size_t i = 0; n < max && i < k->nmade; i++)
		if (strcmp(k->made[i].path, path) == 0)
			fds[n++] = k->made[i].fd;
	return n;
}

int
sbx_keeper_script(struct sbx_keeper *k, int wd, const char *workdir, const char *name, uid_t owner,
    int *fd, struct sbx_err *err)
{
	struct k_hdr h = { .op = K_SCRIPT, .a = (uint32_t)owner };
	struct sbx_strv s = { 0 };
	int r;

	*fd = -1;
	if (wd < 0)
		return sbx_err_set(err, EBADF, "no descriptor of the workdir %s", workdir);
	sbx_strv_push(&s, workdir);
	sbx_strv_push(&s, name);
	r = request(k, &h, &s, wd, NULL, fd, err);
	sbx_strv_free(&s);
	if (r == 0 && *fd < 0)
		return sbx_err_set(err, EIO, "keeper: no script file");
	return r;
}

int
sbx_keeper_tmp_fd(struct sbx_keeper *k, const char *path, int *fd, struct sbx_err *err)
{
	*fd = -1;
	for (size_t i = 0; k != NULL && i < k->nmade; i++)
		if (strcmp(k->made[i].path, path) == 0) {
			*fd = fcntl(k->made[i].fd, F_DUPFD_CLOEXEC, 3);
			return *fd < 0 ? sbx_err_sys(err, "%s", path) : 0;
		}
	return sbx_err_set(err, ENOENT, "keeper: %s was not made by it", path);
}

int
sbx_keeper_tmp_stat(const struct sbx_keeper *k, const char *path, struct stat *st)
{
	for (size_t i = 0; k != NULL && i < k->nmade; i++)
		if (strcmp(k->made[i].path, path) == 0)
			return fstat(k->made[i].fd, st);
	errno = ENOENT;
	return -1;
}

int
sbx_keeper_lend(struct sbx_keeper *k, int wd, const char *root, const char *tmpdir, uid_t owner,
    gid_t owner_gid, uid_t to, gid_t to_gid, const struct sbx_strv *skip, bool throwaway, int acls,
    void (*meanwhile)(void *), void *ctx, struct sbx_err *err)
{
	struct k_hdr h = { .op = K_LEND,
		.a = owner,
		.b = owner_gid,
		.c = to,
		.d = to_gid,
		.flags = (throwaway ? K_THROWAWAY : 0) |
		    (acls != SBX_KEEPER_ACLS_NONE ? K_ACLS : 0) |
		    (acls == SBX_KEEPER_ACLS_ALL ? K_ACLS_ALL : 0) };
	struct sbx_strv s = { 0 };
	int r;

	sbx_strv_push(&s, root);
	sbx_strv_push(&s, tmpdir ? tmpdir : "");
	for (size_t i = 0; skip && i < skip->n; i++)
		sbx_strv_push(&s, skip->v[i]);
	r = request_meanwhile(k, &h, &s, wd, meanwhile, ctx, NULL, NULL, err);
	sbx_strv_free(&s);
	return r;
}

int
sbx_keeper_link(
    struct sbx_keeper *k, int wd, const char *rel, const char *source, struct sbx_err *err)
{
	struct k_hdr h = { .op = K_LINK };
	struct sbx_strv s = { 0 };
	int r;

	sbx_strv_push(&s, rel);
	sbx_strv_push(&s, source);
	r = request(k, &h, &s, wd, NULL, NULL, err);
	sbx_strv_free(&s);
	return r;
}

void
sbx_keeper_watch(struct sbx_keeper *k, int wd, const char *tag, const struct sbx_strv *created,
    const struct sbx_strv *scrub, const struct sbx_strv *orphan, const struct sbx_strv *held)
{
	struct k_hdr h = { .op = K_WATCH,
		.a = (uint32_t)created->n,
		.b = (uint32_t)scrub->n,
		.c = orphan ? (uint32_t)orphan->n : 0 };
	struct sbx_strv s = { 0 };

	if (k == NULL)
		return;
	sbx_strv_push(&s, tag);
	for (size_t i = 0; i < created->n; i++)
		sbx_strv_push(&s, created->v[i]);
	for (size_t i = 0; i < scrub->n; i++)
		sbx_strv_push(&s, scrub->v[i]);
	for (size_t i = 0; orphan && i < orphan->n; i++)
		sbx_strv_push(&s, orphan->v[i]);
	for (size_t i = 0; held && i < held->n; i++)
		sbx_strv_push(&s, held->v[i]);
	k_send(k->sock, &h, &s, wd);
	sbx_strv_free(&s);
}

int
sbx_keeper_cgroup(struct sbx_keeper *k, const char *parent, const char *name, const char *sup,
    const char *enable, const struct sbx_cg_write *w, size_t nw, bool test, char **path, int *fd,
    struct sbx_err *err)
{
	struct k_hdr h = { .op = K_CGROUP, .a = (uint32_t)getpid(), .d = test };
	struct sbx_strv s = { 0 };
	int r;

	sbx_strv_push(&s, parent);
	sbx_strv_push(&s, name);
	sbx_strv_push(&s, sup ? sup : "");
	sbx_strv_push(&s, enable ? enable : "");
	for (size_t i = 0; i < nw; i++) {
		sbx_strv_push(&s, w[i].file);
		sbx_strv_push(&s, w[i].value);
		sbx_strv_push(&s, w[i].optional ? "1" : "0");
	}
	r = request(k, &h, &s, -1, path, fd, err);
	sbx_strv_free(&s);
	return r;
}

/* Takes WARN messages into warnings until DONE. */
static void
collect(struct sbx_keeper *k, struct sbx_strv *warnings)
{
	struct k_msg m;

	/* Every REPLY not read yet is passed over, "ready" and a COUNT's
	 * included. */
	settle(k);
	k->unready = false;
	k->counting = false;
	await(k);
	while (k_recv(k->sock, &m, 0) > 0) {
		uint32_t op = m.h.op;

		if (op == K_WARN && m.h.nstr && warnings)
			sbx_strv_push(warnings, m.str[0]);
		k_msg_free(&m);
		if (op == K_DONE)
			break;
	}
}

void
sbx_keeper_undo_run(struct sbx_keeper *k, struct sbx_strv *warnings)
{
	struct k_hdr h = { .op = K_UNDO_RUN };

	if (k == NULL)
		return;
	/* An earlier undo's answer is not this one's. */
	undo_read(k);
	if (k_send(k->sock, &h, NULL, -1) < 0)
		return;
	collect(k, warnings);
}

void
sbx_keeper_undo_run_ask(struct sbx_keeper *k)
{
	struct k_hdr h = { .op = K_UNDO_RUN };

	if (k == NULL)
		return;
	undo_read(k);
	k->undoing = k_send(k->sock, &h, NULL, -1) == 0;
}

void
sbx_keeper_undone(struct sbx_keeper *k, struct sbx_strv *warnings)
{
	if (k == NULL)
		return;
	undo_read(k);
	for (size_t i = 0; warnings && i < k->undone.n; i++)
		sbx_strv_push(warnings, k->undone.v[i]);
	sbx_strv_free(&k->undone);
}

void
sbx_keeper_finish_ask(struct sbx_keeper *k)
{
	struct k_hdr h = { .op = K_FINISH };

	if (k == NULL || k->hold < 0)
		return;
	/* FINISH before the end of file, so that the keeper knows to answer. */
	k->finishing = k_send(k->sock, &h, NULL, -1) == 0;
	close(k->hold);
	k->hold = -1;
}

void
sbx_keeper_finish(struct sbx_keeper *k, struct sbx_strv *warnings)
{
	if (k == NULL)
		return;
	sbx_keeper_finish_ask(k);
	/* The undo's answer comes first on the socket; its warnings, if
	 * nobody took them, are said with the FINISH's. */
	sbx_keeper_undone(k, warnings);
	if (k->finishing)
		collect(k, warnings);
	k->finishing = false;
}

void
sbx_keeper_reap(struct sbx_keeper *k)
{
	if (k == NULL)
		return;
	sbx_keeper_finish(k, NULL);
	/* The keeper's end closes when it exits. */
	{
		struct k_msg m;

		for (;;) {
			await(k);
			if (k_recv(k->sock, &m, 0) <= 0)
				break;
			k_msg_free(&m);
		}
	}
	close(k->sock);
	if (k->pid > 0) {
		uint64_t until = k->spin ? busy_deadline() : 0;
		pid_t r;

		while ((r = waitpid(k->pid, NULL, (int)__WCLONE | WNOHANG)) == 0 && until &&
		    still_busy(&until))
			;
		while (r == 0 || (r < 0 && errno == EINTR))
			r = waitpid(k->pid, NULL, (int)__WCLONE);
	}
	for (size_t i = 0; i < k->nmade; i++)
		made_close(&k->made[i]);
	free(k->made);
	free(k);
}
