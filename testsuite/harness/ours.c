/* Host callbacks for runtime/unwind in user space; see ours.h.  */
#define _GNU_SOURCE
#include "ours.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include "../../runtime/unwind/unwind_core.h"
#include "../../runtime/unwind/i386.h"
#include "../../runtime/unwind/x86_64.h"

/* ---- ELF files, parsed once ---- */

struct elf_image {
	char *key;             /* path, or "[vdso]@<address>" */
	uint8_t *bytes;        /* mmap of the file, or a malloc'ed copy */
	size_t size;
	bool mmapped;
	Elf *elf;
	GElf_Ehdr ehdr;
	struct uw_section eh_frame_hdr, eh_frame, debug_frame;
	uint64_t data_base;    /* i386 DW_EH_PE_datarel base: the GOT */
	struct uw_index_entry *index; /* sorted FDEs, for tables no header searches */
	uint32_t index_count;
	/* The tables compiled (uw_compile_begin), as the kernel's VMA
	   tracker compiles an object when it first sees it: rows and index
	   are this image's, NULL if compiling was off or failed. */
	struct uw_compiled_table *compiled;
	struct uw_compiled_row *compiled_rows;
	struct uw_compact_row *compiled_full;
	struct uw_compiled_unpacked *compiled_unpacked;
	uint32_t *compiled_index;
	struct uw_compile_stats compile_stats;
	double compile_ns;     /* the two passes' time */
	struct elf_image *next;
};

struct uw_elf_cache {
	struct elf_image *images;
};

struct uw_elf_cache *uw_elf_cache_new(void)
{
	elf_version(EV_CURRENT);
	return calloc(1, sizeof(struct uw_elf_cache));
}

void uw_elf_cache_free(struct uw_elf_cache *c)
{
	if (!c)
		return;
	for (struct elf_image *im = c->images, *next; im; im = next) {
		next = im->next;
		elf_end(im->elf);
		if (im->mmapped)
			munmap(im->bytes, im->size);
		else
			free(im->bytes);
		free(im->key);
		free(im->index);
		free(im->compiled);
		free(im->compiled_rows);
		free(im->compiled_full);
		free(im->compiled_unpacked);
		free(im->compiled_index);
		free(im);
	}
	free(c);
}

static void load_sections(struct elf_image *im)
{
	size_t shstrndx;
	if (elf_getshdrstrndx(im->elf, &shstrndx) != 0)
		return;
	for (Elf_Scn *scn = elf_nextscn(im->elf, NULL); scn; scn = elf_nextscn(im->elf, scn)) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS)
			continue;
		const char *name = elf_strptr(im->elf, shstrndx, sh.sh_name);
		if (!name || sh.sh_offset + sh.sh_size > im->size)
			continue;
		struct uw_section sec = { im->bytes + sh.sh_offset, sh.sh_addr, sh.sh_size };
		if (strcmp(name, ".eh_frame_hdr") == 0)
			im->eh_frame_hdr = sec;
		else if (strcmp(name, ".eh_frame") == 0)
			im->eh_frame = sec;
		else if (strcmp(name, ".debug_frame") == 0 && !(sh.sh_flags & SHF_COMPRESSED))
			im->debug_frame = (struct uw_section){ sec.data, 0, sh.sh_size };
		else if (strcmp(name, ".got.plt") == 0)
			im->data_base = sh.sh_addr;
		else if (strcmp(name, ".got") == 0 && im->data_base == 0)
			im->data_base = sh.sh_addr;
	}
}

static enum uw_arch image_arch(const struct elf_image *im)
{
	return im->ehdr.e_ident[EI_CLASS] == ELFCLASS64 ? UW_ARCH_X86_64 : UW_ARCH_I386;
}

/* Tables that no .eh_frame_hdr searches (none, or a .debug_frame) get
 * an index, made once here as the kernel module makes it in process
 * context: a linear scan of a big section is past a walk's work budget. */
static void index_sections(struct elf_image *im)
{
	static struct uw_cursor scratch;
	struct uw_tables t = { .eh_frame = im->eh_frame, .debug_frame = im->debug_frame,
			       .data_base = im->data_base };
	uint32_t max;
	int n;

	if (im->eh_frame_hdr.size && !im->debug_frame.size)
		return;
	if (!im->eh_frame.size && !im->debug_frame.size)
		return;
	max = (uint32_t)((im->eh_frame.size + im->debug_frame.size) / 8 + 1);
	im->index = calloc(max, sizeof *im->index);
	n = uw_index_build(&scratch, image_arch(im), &t, im->index, max);
	if (n <= 0) {
		free(im->index);
		im->index = NULL;
		return;
	}
	im->index_count = (uint32_t)n;
}

static bool compiled_on = true;

void uw_ours_set_compiled(bool on)
{
	compiled_on = on;
}

/* The compile of one pass: out NULL counts the rows.  Returns the
   compiler's last status (0 = done). */
static int compile_pass(struct uw_compiler *comp, struct uw_cursor *scratch, enum uw_arch arch,
			const struct uw_tables *t, struct uw_compiled_row *out, uint32_t max,
			struct uw_compact_row *full, uint32_t max_full,
			struct uw_compiled_unpacked *unpacked, uint32_t max_unpacked)
{
	int rc = uw_compile_begin(comp, arch, t, out, max, full, max_full, unpacked,
				  max_unpacked);

	/* In chunks of 256 FDEs, as the kernel's builder runs them. */
	while (rc == 0 && (rc = uw_compile_run(comp, scratch, 256)) == 1)
		rc = 0;
	return rc;
}

/* Compile the image's tables as the kernel does for an object it first
   sees: count the rows, then write them, then the index. */
static void compile_sections(struct elf_image *im)
{
	static struct uw_cursor scratch;
	static struct uw_compiler comp;
	struct uw_tables t = { .index = im->index, .index_count = im->index_count,
			       .eh_frame_hdr = im->eh_frame_hdr, .eh_frame = im->eh_frame,
			       .debug_frame = im->debug_frame, .data_base = im->data_base };
	uint32_t words;
	struct timespec t0, t1;

	if (!compiled_on || (!im->eh_frame.size && !im->debug_frame.size))
		return;
	if (!im->index_count && !uw_hdr_searchable(&scratch, image_arch(im), &im->eh_frame_hdr,
						   &(uint64_t){ 0 }))
		return;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (compile_pass(&comp, &scratch, image_arch(im), &t, NULL, 0, NULL, 0, NULL, 0) != 0)
		return;
	uint32_t rows = comp.count, full = comp.full_count, unpacked = comp.unpacked_count;
	im->compiled_rows = calloc(rows, sizeof *im->compiled_rows);
	im->compiled_full = calloc(full ? full : 1, sizeof *im->compiled_full);
	im->compiled_unpacked = calloc(unpacked ? unpacked : 1, sizeof *im->compiled_unpacked);
	if (compile_pass(&comp, &scratch, image_arch(im), &t, im->compiled_rows, rows,
			 im->compiled_full, full, im->compiled_unpacked, unpacked) != 0)
		goto fail;
	words = uw_compile_index_size(&comp);
	im->compiled_index = calloc(words ? words : 1, sizeof *im->compiled_index);
	im->compiled = calloc(1, sizeof *im->compiled);
	if (uw_compile_end(&comp, im->compiled_index, words, im->compiled) != 0)
		goto fail;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	im->compile_stats = comp.stats;
	im->compile_ns = (t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec);
	return;
fail:
	free(im->compiled);
	free(im->compiled_rows);
	free(im->compiled_full);
	free(im->compiled_unpacked);
	free(im->compiled_index);
	im->compiled = NULL;
	im->compiled_rows = NULL;
	im->compiled_full = NULL;
	im->compiled_unpacked = NULL;
	im->compiled_index = NULL;
}

static struct elf_image *image_from_bytes(struct uw_elf_cache *c, const char *key, uint8_t *bytes,
					  size_t size, bool mmapped)
{
	struct elf_image *im = calloc(1, sizeof *im);
	im->key = strdup(key);
	im->bytes = bytes;
	im->size = size;
	im->mmapped = mmapped;
	im->elf = elf_memory((char *)bytes, size);
	if (!im->elf || !gelf_getehdr(im->elf, &im->ehdr)) {
		if (im->elf)
			elf_end(im->elf);
		im->elf = NULL;
	} else {
		load_sections(im);
		index_sections(im);
		compile_sections(im);
	}
	im->next = c->images;
	c->images = im;
	return im;
}

static struct elf_image *image_lookup(struct uw_elf_cache *c, const char *key)
{
	for (struct elf_image *im = c->images; im; im = im->next)
		if (strcmp(im->key, key) == 0)
			return im;
	return NULL;
}

static struct elf_image *image_for_file(struct uw_elf_cache *c, const char *path)
{
	struct elf_image *im = image_lookup(c, path);
	if (im)
		return im;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;
	void *map = MAP_FAILED;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_size > 0)
		map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (fd >= 0)
		close(fd);
	if (map == MAP_FAILED)
		return image_from_bytes(c, path, NULL, 0, false);
	return image_from_bytes(c, path, map, (size_t)st.st_size, true);
}

bool uw_elf_file_tables(struct uw_elf_cache *c, const char *path, struct uw_tables *t,
			enum uw_arch *arch, const struct uw_compile_stats **stats, double *compile_ns)
{
	struct elf_image *im = image_for_file(c, path);

	if (!im->elf || (!im->eh_frame.size && !im->debug_frame.size))
		return false;
	*t = (struct uw_tables){ .index = im->index, .index_count = im->index_count,
				 .eh_frame_hdr = im->eh_frame_hdr, .eh_frame = im->eh_frame,
				 .debug_frame = im->debug_frame, .data_base = im->data_base,
				 .module = im->key, .compiled = im->compiled };
	*arch = image_arch(im);
	*stats = im->compiled ? &im->compile_stats : NULL;
	*compile_ns = im->compile_ns;
	return true;
}

/* ---- address spaces ---- */

struct module {
	struct uw_module_view view;
	struct elf_image *image;
	struct uw_tables tables;
	bool has_tables;
	struct uw_step_counts steps;	/* the core's counts of the steps its
					   tables served (tables.steps) */
};

struct uw_space {
	char *maps_text;
	int nmodules;
	struct module *modules;    /* executable file and vdso mappings */
	int nfiles;
	struct uw_mapping *files;  /* read-only file mappings, for read_mem */
	struct elf_image **file_images;
	char *storage;
	int last;                  /* index of the last module found */
	int last_region;           /* snapshot region of the last read: the
				      stack, almost always (see uw_space_read) */
	uint64_t id;               /* never given twice: the row cache's
				      space (its modules' tables stay as they
				      are while it lives) */
};

static bool bias_for(const struct elf_image *im, const struct uw_mapping *m, uint64_t *bias)
{
	if (!im->elf)
		return false;
	size_t n;
	if (elf_getphdrnum(im->elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(im->elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		uint64_t page_off = ph.p_offset & ~(uint64_t)0xfff;
		if (m->offset >= page_off && m->offset < ph.p_offset + ph.p_filesz) {
			*bias = m->start - (ph.p_vaddr + m->offset - ph.p_offset);
			return true;
		}
	}
	return false;
}

struct uw_space *uw_space_new(struct uw_elf_cache *cache, const struct uw_snapshot *s)
{
	static uint64_t last_id;
	struct uw_space *sp = calloc(1, sizeof *sp);
	struct uw_snapshot parsed = { .maps_text = s->maps_text, .maps_len = s->maps_len };
	uw_snapshot_parse_maps(&parsed);
	sp->maps_text = strdup(s->maps_text);
	sp->modules = calloc((size_t)parsed.nmappings + 1, sizeof *sp->modules);
	sp->files = calloc((size_t)parsed.nmappings + 1, sizeof *sp->files);
	sp->file_images = calloc((size_t)parsed.nmappings + 1, sizeof *sp->file_images);
	sp->storage = parsed.maps_storage; /* paths point into it */
	sp->id = ++last_id;

	for (int i = 0; i < parsed.nmappings; i++) {
		const struct uw_mapping *m = &parsed.mappings[i];
		struct elf_image *im = NULL;
		if (strcmp(m->path, "[vdso]") == 0) {
			char key[64];
			snprintf(key, sizeof key, "[vdso]@%llx", (unsigned long long)m->start);
			im = image_lookup(cache, key);
			if (!im) {
				size_t len = m->end - m->start;
				uint8_t *copy = malloc(len);
				if (!uw_snapshot_read(s, m->start, copy, len)) {
					free(copy);
					continue;
				}
				im = image_from_bytes(cache, key, copy, len, false);
			}
		} else if (m->path[0] == '/') {
			im = image_for_file(cache, m->path);
			if (!strchr(m->perms, 'w')) {
				sp->files[sp->nfiles] = *m;
				sp->file_images[sp->nfiles++] = im;
			}
		}
		if (!im || !strchr(m->perms, 'x'))
			continue;
		struct module *mod = &sp->modules[sp->nmodules];
		uint64_t bias;
		if (!bias_for(im, m, &bias))
			continue;
		mod->image = im;
		mod->view = (struct uw_module_view){
			.start = m->start, .end = m->end, .bias = bias,
			.image = im->bytes, .image_size = im->size, .path = m->path,
			.eh_frame_hdr_addr = im->eh_frame_hdr.addr,
			.eh_frame_hdr_size = im->eh_frame_hdr.size,
			.eh_frame_addr = im->eh_frame.addr, .eh_frame_size = im->eh_frame.size,
			.debug_frame_off = im->debug_frame.data ? (uint64_t)(im->debug_frame.data - im->bytes) : 0,
			.debug_frame_size = im->debug_frame.size,
		};
		mod->tables = (struct uw_tables){
			.index = im->index, .index_count = im->index_count,
			.eh_frame_hdr = im->eh_frame_hdr, .eh_frame = im->eh_frame,
			.debug_frame = im->debug_frame, .bias = bias,
			.data_base = im->data_base, .module = m->path,
			.pc_lo = m->start, .pc_hi = m->end, .compiled = im->compiled,
			/* As the kernel's host: its vDSO keeps frame pointers. */
			.keeps_frame_pointer = strcmp(m->path, "[vdso]") == 0,
			.steps = &mod->steps,
		};
		mod->has_tables = im->eh_frame.size || im->eh_frame_hdr.size || im->debug_frame.size;
		sp->nmodules++;
	}
	free(parsed.mappings);
	return sp;
}

void uw_space_free(struct uw_space *sp)
{
	if (!sp)
		return;
	free(sp->maps_text);
	free(sp->modules);
	free(sp->files);
	free(sp->file_images);
	free(sp->storage);
	free(sp);
}

bool uw_space_matches(const struct uw_space *sp, const struct uw_snapshot *s)
{
	return sp && strcmp(sp->maps_text, s->maps_text) == 0;
}

static struct module *find_module(struct uw_space *sp, uint64_t pc)
{
	struct module *last = &sp->modules[sp->last];
	if (sp->nmodules && pc >= last->view.start && pc < last->view.end)
		return last;
	for (int i = 0; i < sp->nmodules; i++)
		if (pc >= sp->modules[i].view.start && pc < sp->modules[i].view.end) {
			sp->last = i;
			return &sp->modules[i];
		}
	return NULL;
}

const struct uw_module_view *uw_space_find_module(struct uw_space *sp, uint64_t pc)
{
	struct module *m = find_module(sp, pc);
	return m ? &m->view : NULL;
}

/* ---- host callbacks ---- */

struct host {
	struct uw_space *space;
	const struct uw_snapshot *snap;
	pid_t live_pid;
	struct uw_walk walk;
};

int uw_walk_read_live(pid_t pid, uint64_t addr, void *buf, uint32_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -EFAULT;
}

void uw_walk_trace(struct uw_walk *w, enum uw_trace_event ev)
{
	if (ev == UW_TR_STEP)
		w->step_found_fde = false;
	else if (ev == UW_TR_FDE || ev == UW_TR_SIGFRAME)
		w->step_found_fde = true;
}

/* Untraced walks by uw_step, as traced ones (default), or by uw_step_many
   (uw_ours_set_step_many). */
static bool step_many_on;

/* The walk of a snapshot frame by frame, by uw_step, as the kernel runtime
   walks: out[0] the first frame, then each one stepped to, up to max in
   all.  A traced walk also says of each frame whether an FDE covered its
   pc (no_cfi_to_caller). */
static int walk_by_step(struct uw_cursor *c, struct uw_walk *w, struct uw_frame *out, int max)
{
	int n = 0;

	while (n < max) {
		uint64_t frame_sp = uw_sp(c);
		out[n] = (struct uw_frame){ uw_pc(c), frame_sp, c->pc_is_exact != 0,
					    frame_sp != 0, false, n ? c->cfa : 0 };
		n++;
		w->step_found_fde = true;
		bool stepped = uw_step(c) == 1;
		out[n - 1].no_cfi_to_caller = !w->step_found_fde;
		if (!stepped)
			break;
	}
	return n;
}

/* The same walk by uw_step_many, which gives the same frames (uw-trace
   checks it at every stop), untraced. */
static int walk_by_step_many(struct uw_cursor *c, struct uw_frame *out, int max)
{
	struct uw_stepped_frame f[64];
	int n = 0;

	if (max < 1)
		return 0;
	out[n++] = (struct uw_frame){ uw_pc(c), uw_sp(c), c->pc_is_exact != 0,
				      uw_sp(c) != 0, false, 0 };
	while (n < max) {
		uint32_t want = max - n < 64 ? (uint32_t)(max - n) : 64;
		uint32_t got = uw_step_many(c, f, want);

		for (uint32_t i = 0; i < got; i++)
			out[n++] = (struct uw_frame){ f[i].pc, f[i].sp, f[i].pc_is_exact != 0,
						      f[i].sp != 0, false, f[i].cfa };
		if (got < want)
			break;
	}
	return n;
}

/* The start of every walk of a snapshot here: its registers, the
   policy (every method, with fp_fallback) and the row cache.  0, or
   uw_init's failure (c->stop says why). */
static int walk_start(struct uw_cursor *c, const struct uw_snapshot *s,
		      const struct uw_host_ops *ops, void *host, bool fp_fallback,
		      struct uw_cache *cache)
{
	enum uw_arch arch = s->arch == 64 ? UW_ARCH_X86_64 : UW_ARCH_I386;
	struct uw_regs regs;

	uw_regs_from_pt_regs(&regs, arch, (const uw_pt_regs *)&s->regs,
			     arch == UW_ARCH_X86_64 ? UW_X86_64_ALL : UW_I386_ALL);
	if (uw_init(c, arch, ops, host, &regs) != 0)
		return -1;
	if (fp_fallback)
		c->policy |= UW_POLICY_ALL;
	c->cache = cache;
	return 0;
}

int uw_walk_snapshot(struct uw_cursor *c, struct uw_walk *w, const struct uw_snapshot *s,
		     const struct uw_host_ops *ops, void *host, bool fp_fallback,
		     struct uw_cache *cache, struct uw_frame *out, int max,
		     struct uw_ours_result *res)
{
	int n = 0;

	memset(res, 0, sizeof *res);
	if (walk_start(c, s, ops, host, fp_fallback, cache) == 0) {
		if (ops->trace || !step_many_on)
			n = walk_by_step(c, w, out, max);
		else
			n = walk_by_step_many(c, out, max);
	}
	res->nframes = n;
	res->stop_reason = uw_stop_reason_name(c->stop.reason);
	res->stop_pc = c->stop.pc;
	res->stopped_cleanly = c->stop.reason == UW_STOP_END_OF_STACK;
	return n;
}

static void host_trace(void *arg, enum uw_trace_event ev, uint64_t a, uint64_t b)
{
	struct host *h = arg;
	(void)a;
	(void)b;
	uw_walk_trace(&h->walk, ev);
}

/* Region r's bytes [addr, addr + len) into buf, if it holds them all. */
static inline __attribute__((always_inline)) bool
region_read(const struct uw_region *r, uint64_t addr, void *buf, size_t len)
{
	if (addr - r->base > r->len || len > r->len - (addr - r->base))
		return false;
	memcpy(buf, r->bytes + (addr - r->base), len);
	return true;
}

/* The fast path of uw_space_read, for every peer: the region that served
   the last read (the stack).  Regions of one snapshot are disjoint, so
   this returns what the scan (space_read_scan) would.  Inline in ours'
   read_mem, as a kernel host's read is a copy from the user's stack with
   nothing between. */
static inline __attribute__((always_inline)) bool
space_read_last(struct uw_space *sp, const struct uw_snapshot *s, uint64_t addr,
		void *buf, size_t len)
{
	return (unsigned)sp->last_region < (unsigned)s->nregions &&
	       region_read(&s->regions[sp->last_region], addr, buf, len);
}

/* The rest of uw_space_read: every region, then the files mapped. */
static __attribute__((noinline)) bool
space_read_scan(struct uw_space *sp, const struct uw_snapshot *s, uint64_t addr,
		void *buf, size_t len)
{
	for (int i = 0; i < s->nregions; i++) {
		if (region_read(&s->regions[i], addr, buf, len)) {
			sp->last_region = i;
			return true;
		}
	}
	for (int i = 0; i < sp->nfiles; i++) {
		const struct uw_mapping *m = &sp->files[i];
		const struct elf_image *im = sp->file_images[i];
		if (addr < m->start || addr + len > m->end || !im || !im->bytes)
			continue;
		uint64_t off = addr - m->start + m->offset;
		if (off + len > im->size)
			return false;
		memcpy(buf, im->bytes + off, len);
		return true;
	}
	return false;
}

/* uw_space_read, inline where ours' read_mem calls it. */
static inline __attribute__((always_inline)) bool
space_read(struct uw_space *sp, const struct uw_snapshot *s, uint64_t addr,
	   void *buf, size_t len)
{
	return space_read_last(sp, s, addr, buf, len) ||
	       space_read_scan(sp, s, addr, buf, len);
}

bool uw_space_read(struct uw_space *sp, const struct uw_snapshot *s, uint64_t addr,
		   void *buf, size_t len)
{
	return space_read(sp, s, addr, buf, len);
}

int uw_space_nmodules(const struct uw_space *sp)
{
	return sp->nmodules;
}

const struct uw_module_view *uw_space_module(const struct uw_space *sp, int i)
{
	return &sp->modules[i].view;
}

static int host_read_mem(void *arg, uint64_t addr, void *buf, uint32_t len)
{
	struct host *h = arg;
	if (space_read(h->space, h->snap, addr, buf, len))
		return 0;
	return h->live_pid > 0 ? uw_walk_read_live(h->live_pid, addr, buf, len) : -EFAULT;
}

static int host_find_tables(void *arg, uint64_t pc, struct uw_tables *out)
{
	struct host *h = arg;
	struct module *m = find_module(h->space, pc);
	if (!m || !m->has_tables)
		return -ENOENT;
	*out = m->tables;
	return 0;
}

static const struct uw_host_ops host_ops = {
	.read_mem = host_read_mem,
	.find_tables = host_find_tables,
	.trace = host_trace,
};

/* Without the trace callback (as the kernel runtime runs): the frames'
   no_cfi_to_caller is then not known (false). */
static const struct uw_host_ops host_ops_untraced = {
	.read_mem = host_read_mem,
	.find_tables = host_find_tables,
};

static bool trace_on = true;
static bool row_cache_on = true;
/* 4096 rows of 344 bytes: the rows of every snapshot the benchmark
   replays (several processes, thousands of distinct pcs) fit, as all of
   libdw's parsed CFI stays in its per-Dwfl caches. */
#define ROW_CACHE_ENTRIES 4096
static __thread struct uw_cache row_cache;
static __thread struct uw_cache_entry row_cache_entries[ROW_CACHE_ENTRIES];

/* ---- The pages a walk touches (uw_ours_count_pages) ----
   The cursor, the row cache and its entries, each in pages of its own,
   are made inaccessible before each walk; the first touch of each page
   faults, and the handler counts it and opens the page.  What a
   sampler's walk pays for memory that is cold after a context switch
   (under TCG, a TLB refill a page). */
static struct paged {
	const char *name;
	uint8_t *base;
	size_t len;
	unsigned long long walk, total, max;	/* touched: this walk, all, most */
} paged[] = { { .name = "cursor" }, { .name = "row cache" }, { .name = "its entries" } };
#define NPAGED (sizeof paged / sizeof paged[0])
static struct uw_cursor *paged_cursor;
static struct uw_cache *paged_cache;
static unsigned long long paged_walks;
static uintptr_t paged_page;		/* the page size */

static void page_touched(int sig, siginfo_t *si, void *ctx)
{
	uint8_t *a = si->si_addr;
	size_t i;

	(void)ctx;
	for (i = 0; i < NPAGED; i++)	/* bound: NPAGED */
		if (a >= paged[i].base && a < paged[i].base + paged[i].len) {
			mprotect((void *)((uintptr_t)a & ~(paged_page - 1)), paged_page,
				 PROT_READ | PROT_WRITE);
			paged[i].walk++;
			return;
		}
	signal(sig, SIG_DFL);	/* not ours: the access faults again, as it would */
}

static void *paged_alloc(size_t i, size_t len)
{
	paged[i].len = (len + paged_page - 1) & ~(paged_page - 1);
	paged[i].base = mmap(NULL, paged[i].len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (paged[i].base == MAP_FAILED) {
		perror("uw_ours_count_pages: mmap");
		exit(2);
	}
	return paged[i].base;
}

void uw_ours_count_pages(void)
{
	struct sigaction sa = { .sa_sigaction = page_touched, .sa_flags = SA_SIGINFO };

	paged_page = (uintptr_t)sysconf(_SC_PAGESIZE);
	paged_cursor = paged_alloc(0, sizeof *paged_cursor);
	paged_cache = paged_alloc(1, sizeof *paged_cache);
	uw_cache_init(paged_cache, paged_alloc(2, ROW_CACHE_ENTRIES * sizeof(struct uw_cache_entry)),
		      ROW_CACHE_ENTRIES);
	sigaction(SIGSEGV, &sa, NULL);
}

static void pages_close(void)
{
	for (size_t i = 0; i < NPAGED; i++) {	/* bound: NPAGED */
		paged[i].walk = 0;
		mprotect(paged[i].base, paged[i].len, PROT_NONE);
	}
}

static void pages_open(void)
{
	for (size_t i = 0; i < NPAGED; i++) {	/* bound: NPAGED */
		mprotect(paged[i].base, paged[i].len, PROT_READ | PROT_WRITE);
		paged[i].total += paged[i].walk;
		if (paged[i].walk > paged[i].max)
			paged[i].max = paged[i].walk;
	}
	paged_walks++;
}

void uw_ours_page_stats(FILE *out, const char *what)
{
	for (size_t i = 0; i < NPAGED; i++) {	/* bound: NPAGED */
		if (out && paged_walks)
			fprintf(out, "pages:  ours %s, %-11s (%4zu KiB): %5.2f pages touched a walk,"
				" at most %llu (%llu walks)\n", what, paged[i].name,
				paged[i].len / 1024, (double)paged[i].total / paged_walks,
				paged[i].max, paged_walks);
		paged[i].total = paged[i].max = 0;
	}
	paged_walks = 0;
}

void uw_ours_set_row_cache(bool on)
{
	row_cache_on = on;
}

void uw_ours_set_trace(bool on)
{
	trace_on = on;
}

void uw_ours_set_step_many(bool on)
{
	step_many_on = on;
}

/* The row cache of this thread's walks: the one counted in pages if
   there is one. */
static struct uw_cache *walk_cache(void)
{
	return paged_cache ? paged_cache : &row_cache;
}

void uw_ours_row_cache_stats(unsigned long long *hits, unsigned long long *misses,
			     unsigned long long *cie_misses)
{
	*hits = walk_cache()->hits;
	*misses = walk_cache()->misses;
	*cie_misses = walk_cache()->cie_misses;
}

static unsigned long long steps_compiled, steps_full, steps_marked, steps_uncompiled;

void uw_ours_step_stats(unsigned long long *compiled, unsigned long long *full,
			unsigned long long *marked, unsigned long long *uncompiled)
{
	*compiled = steps_compiled;
	*full = steps_full;
	*marked = steps_marked;
	*uncompiled = steps_uncompiled;
}

void uw_ours_forget_rows(void)
{
	if (walk_cache()->state.entries)
		uw_cache_forget_rows(walk_cache());
}

/* The row cache for a walk of space sp, or NULL when it is off. */
static struct uw_cache *walk_cache_for(const struct uw_space *sp)
{
	struct uw_cache *cache = walk_cache();

	if (!row_cache_on)
		return NULL;
	if (!cache->state.entries)
		uw_cache_init(cache, row_cache_entries, ROW_CACHE_ENTRIES);
	/* Its tables hold for as long as the space lives. */
	cache->space = sp->id;
	return cache;
}

int uw_ours_unwind(struct uw_space *sp, const struct uw_snapshot *s, pid_t live_pid,
		   bool fp_fallback, struct uw_frame *out, int max, struct uw_ours_result *res)
{
	static __thread struct uw_cursor cursor; /* ~12 KiB: keep it off the stack */
	struct uw_cursor *c = paged_cursor ? paged_cursor : &cursor;
	struct uw_cache *cache = walk_cache_for(sp);
	struct host h = { sp, s, live_pid, { false } };

	if (paged_cursor)
		pages_close();
	int n = uw_walk_snapshot(c, &h.walk, s, trace_on ? &host_ops : &host_ops_untraced,
				 &h, fp_fallback, cache, out, max, res);
	if (paged_cursor)
		pages_open();

	steps_compiled += c->steps_compiled;
	steps_full += c->steps_full;
	steps_marked += c->steps_marked;
	steps_uncompiled += c->steps_uncompiled;
	return n;
}

/* The entry of objs[0, *n) for module m, added if there is room; NULL
   for no module, or no room. */
static struct uw_object_steps *object_entry(struct uw_object_steps *objs, int max, int *n,
					    const struct module *m)
{
	int i;

	if (!m)
		return NULL;
	for (i = 0; i < *n; i++)	/* bound: *n <= max */
		if (strcmp(objs[i].path, m->view.path) == 0)
			return &objs[i];
	if (*n == max)
		return NULL;
	objs[*n] = (struct uw_object_steps){
		.path = m->view.path,
		.rows = m->image && m->image->compiled ? &m->image->compile_stats : NULL,
	};
	return &objs[(*n)++];
}

void uw_ours_object_steps(struct uw_space *sp, const struct uw_snapshot *s, bool fp_fallback,
			  struct uw_object_steps *objs, int max, int *n)
{
	static struct uw_cursor c;
	struct host h = { sp, s, 0, { false } };
	int depth;

	if (walk_start(&c, s, &host_ops_untraced, &h, fp_fallback, walk_cache_for(sp)) != 0)
		return;
	for (depth = 0; depth < UW_MAX_FRAMES; depth++) {	/* bound: UW_MAX_FRAMES */
		const uint64_t pc = uw_pc(&c) - (c.pc_is_exact ? 0 : 1);
		const uint32_t compiled = c.steps_compiled, full = c.steps_full;
		const uint32_t marked = c.steps_marked, uncompiled = c.steps_uncompiled;
		struct uw_object_steps *o = object_entry(objs, max, n, find_module(sp, pc));
		int rc = uw_step(&c);

		if (o) {
			o->by_frame.compiled += c.steps_compiled - compiled;
			o->by_frame.full += c.steps_full - full;
			o->by_frame.marked += c.steps_marked - marked;
			o->by_frame.uncompiled += c.steps_uncompiled - uncompiled;
			o->steps++;
		}
		if (rc != 1)
			break;
	}
}

void uw_ours_object_counts(struct uw_space *sp, const struct uw_snapshot *s, bool fp_fallback,
			   struct uw_object_steps *objs, int max, int *n)
{
	static struct uw_cursor c;
	static struct uw_stepped_frame frames[UW_MAX_FRAMES];
	struct uw_step_counts *before = calloc((size_t)sp->nmodules + 1, sizeof *before);
	struct host h = { sp, s, 0, { false } };
	uint32_t got = 0;
	int i;

	if (!before)
		return;
	for (i = 0; i < sp->nmodules; i++)	/* bound: nmodules */
		before[i] = sp->modules[i].steps;
	if (walk_start(&c, s, &host_ops_untraced, &h, fp_fallback, walk_cache_for(sp)) != 0) {
		free(before);
		return;
	}
	/* bound: UW_MAX_FRAMES frames, at least one a call until the end */
	while (got < UW_MAX_FRAMES) {
		uint32_t more = uw_step_many(&c, frames + got, UW_MAX_FRAMES - got);

		got += more;
		if (more == 0 || c.stop.reason != UW_STOP_NONE)
			break;
	}
	for (i = 0; i < sp->nmodules; i++) {	/* bound: nmodules */
		const struct uw_step_counts *now = &sp->modules[i].steps;
		struct uw_object_steps *o;

		if (memcmp(now, &before[i], sizeof *now) == 0)
			continue;
		o = object_entry(objs, max, n, &sp->modules[i]);
		if (!o)
			continue;
		o->counted.compiled += now->compiled - before[i].compiled;
		o->counted.full += now->full - before[i].full;
		o->counted.marked += now->marked - before[i].marked;
		o->counted.uncompiled += now->uncompiled - before[i].uncompiled;
	}
	free(before);
}
