/* stap-unwind: the indexes of -d modules' tables that no .eh_frame_hdr
 * searches, and their tables compiled (dmod_index.h).
 */
#ifndef STP_UW_DMOD_INDEX_C
#define STP_UW_DMOD_INDEX_C

#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include "stap-unwind/dmod_index.h"
#include "stap-unwind/usym_elf.h"	/* stp_uw_file_read */
#include "stap-unwind/compiled.h"

struct stp_uw_dmod_index {
	struct uw_index_entry *index;	/* vmalloc'd; NULL: none */
	uint32_t count;
	struct stp_uw_compiled *compiled;	/* kvmalloc'd; NULL: none */
};

/* Per _stp_modules[i]; NULL before init and after exit. */
static struct stp_uw_dmod_index *stp_uw_dmod_indexes;
static unsigned stp_uw_dmod_nindexes;

/* The sections of module m that the translator copied, as the core's
 * tables (link-time addresses; no bias, no index). */
static void stp_uw_dmod_sections(const struct _stp_module *m,
				 struct uw_tables *t)
{
	*t = (struct uw_tables){ 0 };
	if (m->eh_frame && m->eh_frame_len) {
		t->eh_frame = (struct uw_section){ m->eh_frame, m->eh_frame_addr,
						   m->eh_frame_len };
		if (m->unwind_hdr && m->unwind_hdr_len)
			t->eh_frame_hdr = (struct uw_section){
				m->unwind_hdr, m->unwind_hdr_addr, m->unwind_hdr_len };
	}
	if (m->debug_frame && m->debug_frame_len)
		t->debug_frame = (struct uw_section){ m->debug_frame, 0,
						      m->debug_frame_len };
}

static void stp_uw_dmod_tables(const struct _stp_module *m,
			       struct uw_tables *t)
{
	unsigned i;

	stp_uw_dmod_sections(m, t);
	if (!stp_uw_dmod_indexes)
		return;
	/* bound: _stp_num_modules, the modules named with -d */
	for (i = 0; i < stp_uw_dmod_nindexes; i++) {
		if (_stp_modules[i] == m) {
			t->index = stp_uw_dmod_indexes[i].index;
			t->index_count = stp_uw_dmod_indexes[i].count;
			if (stp_uw_dmod_indexes[i].compiled)
				t->compiled = &stp_uw_dmod_indexes[i].compiled->table;
			return;
		}
	}
}

/* The architecture of m's file, from its ELF header (a .debug_frame's
 * addresses are the target's size); 0 or -1 if it cannot be read. */
static int stp_uw_dmod_arch(const struct _stp_module *m, enum uw_arch *arch)
{
	struct uw_elf_src src;
	struct uw_elf_hdr h;
	struct file *f;
	int rc;

	if (!m->path)
		return -1;
	f = filp_open(m->path, O_RDONLY | O_LARGEFILE, 0);
	if (IS_ERR(f))
		return -1;
	uw_elf_src_file(&src, stp_uw_file_read, f);
	rc = uw_elf_read_header(&src, &h) == 0 ? 0 : -1;
	if (rc == 0)
		*arch = h.arch;
	filp_close(f, NULL);
	return rc;
}

static void *stp_uw_dmod_compiled_alloc(size_t bytes)
{
	return kvzalloc(bytes, GFP_KERNEL);
}

static void stp_uw_dmod_compiled_free(void *m, size_t bytes)
{
	kvfree(m);
}

static const struct stp_uw_compile_mem stp_uw_dmod_compile_mem = {
	.alloc = stp_uw_dmod_compiled_alloc,
	.free = stp_uw_dmod_compiled_free,
};

/* Index m's tables into *out if no header searches them; then compile
 * them, as unwind.c's tables of -d modules give them (with that index),
 * unless the table would pass STP_UW_VMA_COMPILE_MAX. */
static void stp_uw_dmod_index_one(struct uw_cursor *scratch,
				  const struct _stp_module *m,
				  struct stp_uw_dmod_index *out)
{
	enum uw_arch arch;
	struct uw_tables t;
	struct uw_index_entry *idx;
	uint64_t max, eh_at;
	int n, too_big;

	stp_uw_dmod_sections(m, &t);
	if (stp_uw_dmod_arch(m, &arch))
		return;		/* then scanned within the budget */
	if (!t.debug_frame.size
	    && (!t.eh_frame.size
		|| (t.eh_frame_hdr.size
		    && uw_hdr_searchable(scratch, arch, &t.eh_frame_hdr, &eh_at))))
		goto compile;
	max = min_t(uint64_t, (t.eh_frame.size + t.debug_frame.size) / 8 + 1,
		    2 * UW_MAX_SCAN_ENTRIES);
	idx = vmalloc(max * sizeof(*idx));
	if (!idx)
		return;
	n = uw_index_build(scratch, arch, &t, idx, (uint32_t)max);
	if (n <= 0) {
		vfree(idx);
		return;
	}
	out->index = idx;
	out->count = n;
	t.index = idx;
	t.index_count = n;
compile:
	if (t.eh_frame.size || t.debug_frame.size)
		out->compiled = stp_uw_compile(arch, &t, STP_UW_VMA_COMPILE_MAX,
					       &stp_uw_dmod_compile_mem, &too_big);
}

static int stp_uw_dmod_index_init(void)
{
	struct uw_cursor *scratch;
	unsigned i;

	if (stp_uw_dmod_indexes || _stp_num_modules == 0)
		return 0;
	scratch = kmalloc(sizeof(*scratch), GFP_KERNEL);
	stp_uw_dmod_indexes = vzalloc(sizeof(*stp_uw_dmod_indexes) * _stp_num_modules);
	if (!scratch || !stp_uw_dmod_indexes) {
		vfree(stp_uw_dmod_indexes);
		stp_uw_dmod_indexes = NULL;
		kfree(scratch);
		return 0;	/* then scanned within the budget */
	}
	stp_uw_dmod_nindexes = _stp_num_modules;
	/* bound: _stp_num_modules */
	for (i = 0; i < _stp_num_modules; i++) {
		const struct _stp_module *m = _stp_modules[i];

		if (m && m->name && m->name[0] == '/')	/* user modules only */
			stp_uw_dmod_index_one(scratch, m, &stp_uw_dmod_indexes[i]);
		cond_resched();
	}
	kfree(scratch);
	return 0;
}

static void stp_uw_dmod_index_exit(void)
{
	unsigned i;

	if (!stp_uw_dmod_indexes)
		return;
	/* bound: _stp_num_modules */
	for (i = 0; i < stp_uw_dmod_nindexes; i++) {
		vfree(stp_uw_dmod_indexes[i].index);
		kvfree(stp_uw_dmod_indexes[i].compiled);
	}
	vfree(stp_uw_dmod_indexes);
	stp_uw_dmod_indexes = NULL;
	stp_uw_dmod_nindexes = 0;
}

#endif /* STP_UW_DMOD_INDEX_C */
