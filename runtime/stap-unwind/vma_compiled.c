/* stap-unwind: each tracked object's CFI compiled once, when its record
 * is made (process context), into the core's compiled table
 * (unwind_core.h, "Compiled tables"): a probe's step at any pc of the
 * object then finds its row by a binary search and parses only the rows
 * the table marks.  One table per object record, so per file: shared by
 * every process that maps it, freed with the record, charged to the
 * tracking's budget (vma_map.c's top comment: "Compiled tables").
 *
 * The tables compiled are the ones a probe's scan of an image of the file
 * finds (uw_elfmem_scan_file: the same scan, on the file), with the
 * tracker's index where no header searches them (vma_object.c), exactly
 * as stock/unwind.c's stp_uw_tables_tracked gives them to the core, so
 * that every step is the same with the table as without it.
 */
#ifndef STP_UW_VMA_COMPILED_C
#define STP_UW_VMA_COMPILED_C

#include <asm/vdso.h>
#include "stap-unwind/vma_records.h"
#include "stap-unwind/usym_elf.h"
#include "stap-unwind/compiled.h"

/* Working memory of stp_uw_obj_compile's scan of the file: the rescan
 * mutex is held there. */
static struct uw_elfmem_scratch stp_uw_obj_elf_scratch;
static struct uw_elfmem_info stp_uw_obj_elf_info;

static atomic_t stp_uw_compiled_objs = ATOMIC_INIT(0);
static atomic_t stp_uw_compiled_refused = ATOMIC_INIT(0);
static atomic_long_t stp_uw_compiled_bytes = ATOMIC_LONG_INIT(0);
static atomic_long_t stp_uw_compiled_rows = ATOMIC_LONG_INIT(0);
static atomic_long_t stp_uw_compiled_parse_rows = ATOMIC_LONG_INIT(0);

/* Count c's bytes and rows in (sign 1) or out (-1) of the counters. */
static void stp_uw_compiled_count(const struct stp_uw_compiled *c, int sign)
{
	atomic_add(sign, &stp_uw_compiled_objs);
	atomic_long_add(sign * (long)c->bytes, &stp_uw_compiled_bytes);
	atomic_long_add(sign * (long)c->table.count, &stp_uw_compiled_rows);
	atomic_long_add(sign * (long)c->parse_rows, &stp_uw_compiled_parse_rows);
}

/* The bytes of the section s of the file f, whose program headers are p,
 * in a kvmalloc()ed buffer (s->data), or -1. */
static int stp_uw_obj_read_section(struct file *f,
				   const struct uw_elf_phdrs *p,
				   struct uw_section *s)
{
	uint64_t at;
	void *buf;

	if (uw_elf_file_offset(p, s->addr, s->size, &at) ||
	    s->size > STP_UW_VMA_INDEX_MAX)
		return -1;
	buf = kvmalloc(s->size, GFP_KERNEL);
	if (!buf)
		return -1;
	if (stp_uw_file_read(f, at, buf, s->size)) {
		kvfree(buf);
		return -1;
	}
	s->data = buf;
	return 0;
}

/* Tracked objects' tables come from the tracking's budget. */
static void *stp_uw_obj_compiled_alloc(size_t bytes)
{
	return stp_uw_vma_alloc(bytes, true);
}

static const struct stp_uw_compile_mem stp_uw_obj_compile_mem = {
	.alloc = stp_uw_obj_compiled_alloc,
	.free = stp_uw_vma_free,
};

/* t compiled into a table charged to the budget, or NULL: see
 * stp_uw_compile, and refused (and counted) where the table would pass
 * STP_UW_VMA_COMPILE_MAX or the tables' share of the budget
 * (STP_UW_VMA_COMPILE_BYTES).  Only rescans, one at a time, add to the
 * share. */
static struct stp_uw_compiled *stp_uw_obj_compile_tables(enum uw_arch arch,
						       const struct uw_tables *t)
{
	long used = atomic_long_read(&stp_uw_compiled_bytes);
	size_t room = used < (long)STP_UW_VMA_COMPILE_BYTES ?
		STP_UW_VMA_COMPILE_BYTES - used : 0;
	struct stp_uw_compiled *c;
	int too_big;

	c = stp_uw_compile(arch, t, min_t(size_t, room, STP_UW_VMA_COMPILE_MAX),
			   &stp_uw_obj_compile_mem, &too_big);
	if (too_big)
		atomic_inc(&stp_uw_compiled_refused);
	if (c)
		stp_uw_compiled_count(c, 1);
	return c;
}

/* Compile the unwind tables of o, whose file is f, as a probe finds them
 * (above).  Nothing is compiled (probes parse, as they would anyway) when
 * the file has no tables a search serves, they cannot be read, or the
 * table would pass its bound or the budget.  Process context, rescan
 * mutex held; after stp_uw_obj_index. */
static void stp_uw_obj_compile(struct stp_uw_obj *o, struct file *f)
{
	struct uw_elfmem_info *info = &stp_uw_obj_elf_info;
	struct uw_elf_src src;
	struct uw_tables t;
	uint64_t eh_at;

	if (!STP_UW_COMPILED)
		return;
	uw_elf_src_file(&src, stp_uw_file_read, f);
	if (uw_elfmem_scan_file(&src, info, &stp_uw_obj_elf_scratch) != UW_ELFMEM_OK)
		return;
	t = info->tables;
	if (o->index) {
		t.index = o->index->entries;
		t.index_count = o->index->count;
		t.eh_frame = (struct uw_section){ NULL, o->index->eh_frame,
						  o->index->eh_frame_size };
	}
	/* The core finds .eh_frame through the header where the scan gives
	 * no extent: not a table to compile from bytes read here. */
	if (!t.eh_frame.size || !t.eh_frame_hdr.size)
		return;
	if (stp_uw_obj_read_section(f, &stp_uw_obj_elf_scratch.phdrs, &t.eh_frame_hdr))
		return;
	if (!o->index && !uw_hdr_searchable(&stp_uw_obj_scratch, info->arch,
					    &t.eh_frame_hdr, &eh_at))
		goto out;
	if (stp_uw_obj_read_section(f, &stp_uw_obj_elf_scratch.phdrs, &t.eh_frame))
		goto out;
	o->compiled = stp_uw_obj_compile_tables(info->arch, &t);
	if (o->compiled)
		o->charged += o->compiled->bytes;
	kvfree(t.eh_frame.data);
out:
	kvfree(t.eh_frame_hdr.data);
}

/* ------------------------------------------------------------------ */
/* The vdso                                                            */

/* Each vdso image the kernel maps (struct vdso_image: the 64-bit, x32
 * and 32-bit ones, arch/x86/entry/vdso/) compiled once, from the kernel's
 * own copy of it: the tables a probe's scan of the mapped image gives
 * (stock/unwind.c: stp_uw_find_vdso), at link-time addresses.  At module
 * start for the images kallsyms names (stp_uw_vdso_compile_named), so
 * that the tracker's memory after start does not grow with the first
 * process of another ABI; else when a rescan first finds a process that
 * maps one.  An image is published (img, release) after its table, and
 * both stay until module exit: a few KiB, charged to the budget. */
#define STP_UW_VDSO_IMAGES	3

struct stp_uw_vdso_table {
	const struct vdso_image *img;	/* NULL: a free slot */
	struct stp_uw_compiled *compiled;	/* NULL: the image has none */
};
static struct stp_uw_vdso_table stp_uw_vdso_tables[STP_UW_VDSO_IMAGES];

/* A read of the image ctx (a struct vdso_image) at file offset at. */
static int stp_uw_vdso_image_read(void *ctx, uint64_t at, void *buf,
				  uint32_t len)
{
	const struct vdso_image *img = ctx;

	if (at > img->size || len > img->size - at)
		return -1;
	memcpy(buf, (const char *)img->data + at, len);
	return 0;
}

/* s's bytes in the image img, whose program headers are p, or -1. */
static int stp_uw_vdso_section(const struct vdso_image *img,
			       const struct uw_elf_phdrs *p,
			       struct uw_section *s)
{
	uint64_t at;

	if (uw_elf_file_offset(p, s->addr, s->size, &at) || at > img->size
	    || s->size > img->size - at)
		return -1;
	s->data = (const uint8_t *)img->data + at;
	return 0;
}

/* Compile the vdso image img, if no slot has it yet.  Process context,
 * rescan mutex held.  An image whose tables do not compile takes its slot
 * with no table, so that it is tried once. */
static void stp_uw_vdso_compile(const struct vdso_image *img)
{
	struct uw_elfmem_info *info = &stp_uw_obj_elf_info;
	struct stp_uw_vdso_table *slot = NULL;
	struct uw_elf_src src;
	struct uw_tables t;
	uint64_t eh_at;
	unsigned i;

	if (!STP_UW_COMPILED || !img || !img->data)
		return;
	for (i = 0; i < STP_UW_VDSO_IMAGES; i++) {	/* bound: STP_UW_VDSO_IMAGES */
		if (stp_uw_vdso_tables[i].img == img)
			return;
		if (!slot && !stp_uw_vdso_tables[i].img)
			slot = &stp_uw_vdso_tables[i];
	}
	if (!slot)
		return;
	uw_elf_src_file(&src, stp_uw_vdso_image_read, (void *)img);
	if (uw_elfmem_scan_file(&src, info, &stp_uw_obj_elf_scratch) != UW_ELFMEM_OK)
		goto publish;
	t = info->tables;
	if (!t.eh_frame.size || !t.eh_frame_hdr.size
	    || stp_uw_vdso_section(img, &stp_uw_obj_elf_scratch.phdrs, &t.eh_frame_hdr)
	    || stp_uw_vdso_section(img, &stp_uw_obj_elf_scratch.phdrs, &t.eh_frame)
	    || !uw_hdr_searchable(&stp_uw_obj_scratch, info->arch,
				  &t.eh_frame_hdr, &eh_at))
		goto publish;
	slot->compiled = stp_uw_obj_compile_tables(info->arch, &t);
publish:
	smp_store_release(&slot->img, img);
}

/* The kernel's vdso images by their names, as arch/x86/include/asm/vdso.h
 * declares them: vdso64_image, vdsox32_image, vdso32_image in Linux 7.2;
 * vdso_image_64, vdso_image_x32, vdso_image_32 in 6.12 and 6.1 (data
 * symbols: kallsyms has them with CONFIG_KALLSYMS_ALL, as Debian's
 * kernels have).  Module start, rescan mutex held. */
static void stp_uw_vdso_compile_named(void)
{
	static const char *const names[] = {
		"vdso64_image", "vdsox32_image", "vdso32_image",
		"vdso_image_64", "vdso_image_x32", "vdso_image_32",
	};
	unsigned i;

	for (i = 0; i < ARRAY_SIZE(names); i++) {	/* bound: 6 names */
		unsigned long a = kallsyms_lookup_name(names[i]);

		if (a)
			stp_uw_vdso_compile((const struct vdso_image *)a);
	}
}

/* The compiled table of the vdso image img, or NULL.  Probe context. */
static const struct uw_compiled_table *stp_uw_vdso_compiled_of(const struct vdso_image *img)
{
	unsigned i;

	for (i = 0; i < STP_UW_VDSO_IMAGES; i++) {	/* bound: STP_UW_VDSO_IMAGES */
		if (smp_load_acquire(&stp_uw_vdso_tables[i].img) == img)
			return stp_uw_vdso_tables[i].compiled ?
				&stp_uw_vdso_tables[i].compiled->table : NULL;
	}
	return NULL;
}

/* Module exit: the vdso tables freed.  Rescan mutex held. */
static void stp_uw_vdso_free(void)
{
	unsigned i;

	for (i = 0; i < STP_UW_VDSO_IMAGES; i++) {	/* bound: STP_UW_VDSO_IMAGES */
		struct stp_uw_compiled *c = stp_uw_vdso_tables[i].compiled;

		if (c) {
			stp_uw_compiled_count(c, -1);
			stp_uw_vma_free(c, c->bytes);
		}
		stp_uw_vdso_tables[i] = (struct stp_uw_vdso_table){ NULL, NULL };
	}
}

#endif /* STP_UW_VMA_COMPILED_C */
