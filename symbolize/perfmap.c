/* symbolize/perfmap.c: perf maps (perfmap.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "perfmap.h"

#define MAX_MAPS	4096		/* processes' maps kept per run */

struct entry {
	uint64_t start, size;
	uint64_t seq;		/* its line's order: the latest wins */
	char *name;
};

struct perf_map {
	struct perf_maps *pm;	/* whose run: its messages */
	char path[64 + 4096];
	int pid;		/* 0: given as a file */
	long euid;		/* by pid: the process's; -1: not known */
	int fd;			/* -1: not open (absent, or refused) */
	bool refused;
	off_t read_to;		/* bytes read, up to the last whole line */
	struct entry *e;	/* sorted by start, then seq */
	size_t n, cap;
};

struct perf_maps {
	const char *prog;
	struct perf_map *maps[MAX_MAPS];
	unsigned nmaps;
};

struct perf_maps *perf_maps_new(const char *prog)
{
	struct perf_maps *pm = calloc(1, sizeof(*pm));

	if (pm)
		pm->prog = prog;
	return pm;
}

void perf_maps_free(struct perf_maps *pm)
{
	if (!pm)
		return;
	for (unsigned i = 0; i < pm->nmaps; i++) {	/* bound: MAX_MAPS */
		struct perf_map *m = pm->maps[i];

		for (size_t k = 0; k < m->n; k++)	/* bound: the entries */
			free(m->e[k].name);
		free(m->e);
		if (m->fd >= 0)
			close(m->fd);
		free(m);
	}
	free(pm);
}

/* Refuse m, saying why on one line. */
static void refuse(struct perf_map *m, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void refuse(struct perf_map *m, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: %s", m->pm->prog, m->path);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, ": the perf map is not used\n");
	m->refused = true;
	if (m->fd >= 0)
		close(m->fd);
	m->fd = -1;
}

static int entry_cmp(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* A hexadecimal number of 1 to 16 digits at *p, then one space. */
static bool hex_field(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;
	int k;

	for (k = 0; k < 17; k++) {	/* bound: 16 digits and the space */
		char c = s[k];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		if (k == 16)
			return false;	/* beyond 64 bits */
		v = v << 4 | d;
	}
	if (k == 0 || s[k] != ' ')
		return false;
	*out = v;
	*p = s + k + 1;
	return true;
}

/* Parse one line (without its newline) into m; NULL or what is wrong. */
static const char *parse_line(struct perf_map *m, const char *line, size_t len)
{
	const char *p = line;
	uint64_t start, size;
	struct entry *e;

	if (!hex_field(&p, &start) || !hex_field(&p, &size))
		return "not \"START SIZE NAME\" (START and SIZE in hexadecimal)";
	if (start + size < start)
		return "START + SIZE beyond 2^64";
	if (p == line + len)
		return "no NAME";
	for (const char *q = p; q < line + len; q++)	/* bound: the line */
		if ((unsigned char)*q < 0x20 || *q == 0x7f)
			return "a control character in NAME";
	if (m->n == PERF_MAP_MAX_ENTRIES)
		return NULL;	/* counted by the caller */
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		struct entry *more = realloc(m->e, cap * sizeof(*more));

		if (!more)
			return "out of memory";
		m->e = more;
		m->cap = cap;
	}
	e = &m->e[m->n];
	e->name = strndup(p, (size_t)(line + len - p));
	if (!e->name)
		return "out of memory";
	e->start = start;
	e->size = size;
	e->seq = m->n;
	m->n++;
	return NULL;
}

/* Read what was appended to m since it was last read: every whole line.
 * false if m is refused now. */
static bool read_more(struct perf_map *m)
{
	static char buf[1 << 16];
	char line[PERF_MAP_MAX_LINE + 1];
	size_t have = 0;	/* bytes of the line being read */
	size_t lineno;
	size_t old = m->n;
	off_t at = m->read_to;
	struct stat st;

	if (m->fd < 0 || fstat(m->fd, &st) != 0 || st.st_size <= m->read_to)
		return !m->refused;
	/* The number of the first line to read: its entries so far. */
	lineno = m->n;
	for (;;) {	/* bound: the file's size, read once */
		ssize_t got = pread(m->fd, buf, sizeof(buf), at);

		if (got < 0) {
			refuse(m, ": %s", strerror(errno));
			return false;
		}
		if (got == 0)
			break;
		for (ssize_t i = 0; i < got; i++) {	/* bound: the bytes read */
			const char *why;

			if (buf[i] != '\n') {
				if (have == PERF_MAP_MAX_LINE) {
					refuse(m, ":%zu: longer than %d bytes",
					       lineno + 1, PERF_MAP_MAX_LINE);
					return false;
				}
				line[have++] = buf[i];
				continue;
			}
			lineno++;
			why = parse_line(m, line, have);
			if (why) {
				refuse(m, ":%zu: %s", lineno, why);
				return false;
			}
			if (lineno > PERF_MAP_MAX_ENTRIES) {
				refuse(m, ": more than %d entries", PERF_MAP_MAX_ENTRIES);
				return false;
			}
			m->read_to = at + i + 1;
			have = 0;
		}
		at += got;
	}
	if (m->n > old)
		qsort(m->e, m->n, sizeof(*m->e), entry_cmp);
	return true;
}

/* A new map of the run, for path; NULL if there is no room. */
static struct perf_map *new_map(struct perf_maps *pm, const char *path, int pid,
				long euid)
{
	struct perf_map *m;

	if (pm->nmaps == MAX_MAPS || !(m = calloc(1, sizeof(*m))))
		return NULL;
	snprintf(m->path, sizeof(m->path), "%s", path);
	m->pm = pm;
	m->pid = pid;
	m->euid = euid;
	m->fd = -1;
	pm->maps[pm->nmaps++] = m;
	return m;
}

/* Open m's file if it is there; with the owner rule when by pid.  false
 * if it is absent or refused. */
static bool open_map(struct perf_map *m)
{
	struct stat st;

	if (m->refused)
		return false;
	if (m->fd >= 0)
		return true;
	m->fd = open(m->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (m->fd < 0) {
		if (errno == ENOENT)
			return false;	/* no map: not an error */
		refuse(m, ": %s", errno == ELOOP ? "a symbolic link" : strerror(errno));
		return false;
	}
	if (fstat(m->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		refuse(m, ": not a regular file");
		return false;
	}
	if (m->pid && m->euid < 0) {
		refuse(m, ": process %d is gone: whether its owner wrote it is not known",
		       m->pid);
		return false;
	}
	if (m->pid && st.st_uid != 0 && (long)st.st_uid != m->euid) {
		refuse(m, ": owned by uid %u, neither process %d's (%ld) nor root",
		       (unsigned)st.st_uid, m->pid, m->euid);
		return false;
	}
	return read_more(m);
}

struct perf_map *perf_maps_file(struct perf_maps *pm, const char *path)
{
	struct perf_map *m = new_map(pm, path, 0, -1);

	return m && open_map(m) ? m : NULL;
}

/* The effective uid of process pid from /proc, or -1. */
static long proc_euid(int pid)
{
	char path[64], line[256];
	long real, eff = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))	/* bound: the file's lines */
		if (sscanf(line, "Uid: %ld %ld", &real, &eff) == 2)
			break;
	fclose(f);
	return eff;
}

struct perf_map *perf_maps_pid(struct perf_maps *pm, int pid, long euid)
{
	char path[64];
	struct perf_map *m = NULL;

	for (unsigned i = 0; i < pm->nmaps; i++)	/* bound: MAX_MAPS */
		if (pm->maps[i]->pid == pid) {
			m = pm->maps[i];
			break;
		}
	if (!m) {
		snprintf(path, sizeof(path), "/tmp/perf-%d.map", pid);
		m = new_map(pm, path, pid, euid >= 0 ? euid : proc_euid(pid));
		if (!m)
			return NULL;
	}
	/* Absent until now: the process may have written it since. */
	return open_map(m) ? m : NULL;
}

/* The latest entry that contains a, or NULL. */
static const struct entry *find(const struct perf_map *m, uint64_t a)
{
	const struct entry *best = NULL;
	size_t lo = 0, hi = m->n;

	while (lo < hi) {	/* bound: log2(n) halvings */
		size_t mid = lo + (hi - lo) / 2;

		if (m->e[mid].start <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t k = 0; k < PERF_MAP_LOOKBACK && lo > 0; k++) {	/* bound: LOOKBACK */
		const struct entry *e = &m->e[--lo];

		if (a - e->start < e->size && (!best || e->seq > best->seq))
			best = e;
	}
	return best;
}

bool perf_map_lookup(struct perf_map *m, uint64_t pc, bool caller,
		     struct frame_name *out)
{
	uint64_t look = caller && pc > 0 ? pc - 1 : pc;
	const struct entry *e;
	size_t before = m->n;

	if (m->refused)
		return false;
	e = find(m, look);
	/* A miss: read what the process has appended since, if it grew. */
	if (!e && read_more(m) && m->n > before)
		e = find(m, look);
	if (!e)
		return false;
	memset(out, 0, sizeof(*out));
	out->kind = FRAME_PERF_MAP;
	out->name = e->name;
	out->off = pc - e->start;
	out->size = e->size;
	out->object = m->path;
	return true;
}
