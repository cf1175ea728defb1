/* Host callbacks for runtime/unwind with in-memory unwind tables; see
   ours_mem.h.  */
#define _GNU_SOURCE
#include "ours_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../../runtime/unwind/unwind_core.h"
#include "../../runtime/unwind/elfmem.h"
#include "../../runtime/unwind/i386.h"
#include "../../runtime/unwind/x86_64.h"

struct file_view {           /* replay only: a file mapping's bytes */
	bool tried;
	const uint8_t *bytes;
	size_t size;
};

struct uw_mem_space {
	char *maps_text;
	struct uw_snapshot parsed;  /* mappings only */
	struct file_view *files;    /* per mapping, replay only */
	struct uw_elfmem_cache cache;
	unsigned long unreadable;
};

static uint64_t path_ident(const char *path)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (; *path; path++)
		h = (h ^ (uint8_t)*path) * 0x100000001b3ull;
	return h;
}

struct uw_mem_space *uw_mem_space_new(const struct uw_snapshot *s)
{
	struct uw_mem_space *sp = calloc(1, sizeof *sp);
	sp->maps_text = strdup(s->maps_text);
	sp->parsed.maps_text = sp->maps_text;
	sp->parsed.maps_len = s->maps_len;
	uw_snapshot_parse_maps(&sp->parsed);
	sp->files = calloc((size_t)sp->parsed.nmappings + 1, sizeof *sp->files);
	uw_elfmem_cache_init(&sp->cache);
	return sp;
}

void uw_mem_space_free(struct uw_mem_space *sp)
{
	if (!sp)
		return;
	for (int i = 0; i < sp->parsed.nmappings; i++)
		if (sp->files[i].bytes)
			munmap((void *)sp->files[i].bytes, sp->files[i].size);
	free(sp->files);
	free(sp->parsed.mappings);
	free(sp->parsed.maps_storage);
	free(sp->maps_text);
	free(sp);
}

bool uw_mem_space_matches(const struct uw_mem_space *sp, const struct uw_snapshot *s)
{
	return sp && strcmp(sp->maps_text, s->maps_text) == 0;
}

void uw_mem_space_stats(const struct uw_mem_space *sp, unsigned long *scans,
			unsigned long *hits, unsigned long *unreadable)
{
	*scans = sp ? sp->cache.misses : 0;
	*hits = sp ? sp->cache.hits : 0;
	*unreadable = sp ? sp->unreadable : 0;
}

/* ---- memory ---- */

struct host {
	struct uw_mem_space *space;
	const struct uw_snapshot *snap;
	pid_t live_pid;
	struct uw_walk walk;
};

/* Replay: a file mapping's bytes from its file, if the mapping is
   readable.  */
static bool read_file_mapping(struct uw_mem_space *sp, uint64_t addr, void *buf, size_t len)
{
	for (int i = 0; i < sp->parsed.nmappings; i++) {
		const struct uw_mapping *m = &sp->parsed.mappings[i];
		if (addr < m->start || addr >= m->end)
			continue;
		if (len > m->end - addr || m->perms[0] != 'r' || m->path[0] != '/')
			return false;
		struct file_view *f = &sp->files[i];
		if (!f->tried) {
			f->tried = true;
			int fd = open(m->path, O_RDONLY | O_CLOEXEC);
			struct stat st;
			if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0) {
				void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
				if (p != MAP_FAILED) {
					f->bytes = p;
					f->size = (size_t)st.st_size;
				}
			}
			if (fd >= 0)
				close(fd);
		}
		uint64_t off = addr - m->start + m->offset;
		if (!f->bytes || off > f->size || len > f->size - off)
			return false;
		memcpy(buf, f->bytes + off, len);
		return true;
	}
	return false;
}

static int host_read_mem(void *arg, uint64_t addr, void *buf, uint32_t len)
{
	struct host *h = arg;
	if (uw_snapshot_read(h->snap, addr, buf, len))
		return 0;
	if (h->live_pid > 0)
		return uw_walk_read_live(h->live_pid, addr, buf, len);
	return read_file_mapping(h->space, addr, buf, len) ? 0 : -EFAULT;
}

static const struct uw_host_ops read_ops = { .read_mem = host_read_mem };

/* ---- tables ---- */

/* The mapping holding the ELF header of the object mapped at PC: the
   nearest mapping at or below PC of the same file at offset 0 (the vdso:
   its own mapping).  */
static const struct uw_mapping *header_mapping(const struct uw_mem_space *sp, uint64_t pc)
{
	const struct uw_snapshot *p = &sp->parsed;
	const struct uw_mapping *m = uw_snapshot_find_mapping(p, pc), *best = NULL;
	if (!m || !strchr(m->perms, 'x'))
		return NULL;
	if (m->path[0] != '/' && strcmp(m->path, "[vdso]") != 0)
		return NULL; /* anonymous (JIT) or another special mapping */
	for (int i = 0; i < p->nmappings; i++) {
		const struct uw_mapping *c = &p->mappings[i];
		if (c->offset == 0 && c->start <= pc && strcmp(c->path, m->path) == 0 &&
		    (!best || c->start > best->start))
			best = c;
	}
	return best;
}

static int host_find_tables(void *arg, uint64_t pc, struct uw_tables *out)
{
	struct host *h = arg;
	struct uw_mem_space *sp = h->space;
	const struct uw_mapping *hm = header_mapping(sp, pc);
	static struct uw_elfmem_info result;
	const struct uw_elfmem_info *info;

	if (!hm)
		return -1;
	int rc = uw_elfmem_lookup(&sp->cache, &read_ops, h, hm->start, path_ident(hm->path),
				  &result, &info);
	if (rc != UW_ELFMEM_OK) {
		if (rc == UW_ELFMEM_UNREADABLE)
			sp->unreadable++;
		if (getenv("UW_TRACE_DEBUG"))
			fprintf(stderr, "ours_mem: %s at %#llx: %s (addr %#llx)\n", hm->path,
				(unsigned long long)hm->start, uw_elfmem_status_name(rc),
				(unsigned long long)info->fail_addr);
		uw_elfmem_fail_tables(out, rc, info);
		out->module = hm->path;
		return -1;
	}
	enum uw_arch arch = h->snap->arch == 64 ? UW_ARCH_X86_64 : UW_ARCH_I386;
	if (info->arch != arch || !uw_elfmem_covers(info, pc))
		return -1;
	*out = info->tables;
	out->module = hm->path;
	return 0;
}

static void host_trace(void *arg, enum uw_trace_event ev, uint64_t a, uint64_t b)
{
	struct host *h = arg;
	(void)a;
	(void)b;
	uw_walk_trace(&h->walk, ev);
}

static const struct uw_host_ops host_ops = {
	.read_mem = host_read_mem,
	.find_tables = host_find_tables,
	.trace = host_trace,
};

int uw_mem_unwind(struct uw_mem_space *sp, const struct uw_snapshot *s, pid_t live_pid,
		  bool fp_fallback, struct uw_frame *out, int max, struct uw_ours_result *res,
		  struct uw_mem_stop *stop)
{
	static __thread struct uw_cursor cursor;
	struct host h = { sp, s, live_pid, { false } };
	int n = uw_walk_snapshot(&cursor, &h.walk, s, &host_ops, &h, fp_fallback, NULL, out, max,
				 res);

	if (stop)
		*stop = (struct uw_mem_stop){ cursor.stop.reason, cursor.stop.pc, cursor.stop.addr,
					      cursor.stop.module };
	return n;
}
