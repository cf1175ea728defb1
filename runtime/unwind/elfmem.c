/* Unwind tables of an ELF object read from the process's own memory; see
 * elfmem.h.
 *
 * Layout facts relied on (System V gABI, "Program Loading"): the ELF
 * header is at file offset 0, which the lowest PT_LOAD maps (its p_offset
 * rounds down to 0), so the mapping that holds file offset 0 starts at
 * bias + (that segment's p_vaddr rounded down to a page); p_vaddr and
 * p_offset are congruent modulo the page size; the program header table
 * lies in that first segment's file bytes (ld puts it right after the ELF
 * header).  Everything else read is located through the program headers.
 */
#ifndef UW_ELFMEM_C
#define UW_ELFMEM_C

#include "uw_internal.h"
#include "elfmem.h"

#define UW_ELFMEM_EM_386	3
#define UW_ELFMEM_EM_X86_64	62
#define UW_ELFMEM_ET_EXEC	2
#define UW_ELFMEM_ET_DYN	3
#define UW_ELFMEM_PT_LOAD	1
#define UW_ELFMEM_PT_DYNAMIC	2
#define UW_ELFMEM_PT_NOTE	4
#define UW_ELFMEM_PT_GNU_EH_FRAME 0x6474e550u
#define UW_ELFMEM_PF_X		1
#define UW_ELFMEM_DT_NULL	0
#define UW_ELFMEM_NT_GNU_BUILD_ID 3

static uint64_t uw_elfmem_le(const uint8_t *b, uint32_t size)
{
	uint64_t v = 0;
	uint32_t i;

	for (i = size; i > 0; i--)	/* bound: size <= 8 */
		v = (v << 8) | b[i - 1];
	return v;
}

/* ------------------------------------------------------------------ */
/* The ELF reader                                                      */

UW_API void uw_elf_src_mem(struct uw_elf_src *src, uw_elf_read_fn read,
			   void *ctx, uint64_t base)
{
	*src = (struct uw_elf_src){ .read = read, .ctx = ctx, .base = base,
				    .mask = ~(uint64_t)0 };
}

UW_API void uw_elf_src_file(struct uw_elf_src *src, uw_elf_read_fn read,
			    void *ctx)
{
	*src = (struct uw_elf_src){ .read = read, .ctx = ctx, .in_file = 1,
				    .mask = ~(uint64_t)0 };
}

/* Read len bytes at at (wrapped to the address width). */
static int uw_elf_read(struct uw_elf_src *src, uint64_t at, void *buf,
		       uint32_t len)
{
	at &= src->mask;
	src->reads++;
	if (src->read(src->ctx, at, buf, len) < 0) {
		src->fail_at = at;
		return UW_ELFMEM_UNREADABLE;
	}
	return UW_ELFMEM_OK;
}

UW_API int uw_elf_read_header(struct uw_elf_src *src, struct uw_elf_hdr *h)
{
	uint8_t buf[64];
	int is64, rc;

	/* e_ident[16], then (ELF64 offsets / ELF32 offsets) e_type 16,
	 * e_machine 18, e_phoff 32/28, e_shoff 40/32, e_phentsize 54/42,
	 * e_phnum 56/44, e_shentsize 58/46, e_shnum 60/48.  64 bytes cover
	 * both (an ELF32 header is 52: a file is at least that long, and a
	 * mapped one is followed by its program headers). */
	rc = uw_elf_read(src, src->base, buf, 64);
	if (rc < 0)
		return rc;
	if (buf[0] != 0x7f || buf[1] != 'E' || buf[2] != 'L' || buf[3] != 'F')
		return UW_ELFMEM_NOT_ELF;
	if ((buf[4] != 1 && buf[4] != 2) || buf[5] != 1 /* LSB */ ||
	    buf[6] != 1 /* EV_CURRENT */)
		return UW_ELFMEM_UNSUPPORTED;
	is64 = buf[4] == 2;
	if (uw_elfmem_le(buf + 18, 2) !=
	    (is64 ? UW_ELFMEM_EM_X86_64 : UW_ELFMEM_EM_386))
		return UW_ELFMEM_UNSUPPORTED;	/* also refuses x32 */
	h->is64 = is64;
	h->arch = is64 ? UW_ARCH_X86_64 : UW_ARCH_I386;
	h->type = (uint16_t)uw_elfmem_le(buf + 16, 2);
	if (h->type != UW_ELFMEM_ET_EXEC && h->type != UW_ELFMEM_ET_DYN)
		return UW_ELFMEM_UNSUPPORTED;
	src->mask = is64 ? ~(uint64_t)0 : 0xffffffffu;
	h->phoff = is64 ? uw_elfmem_le(buf + 32, 8) : uw_elfmem_le(buf + 28, 4);
	h->shoff = is64 ? uw_elfmem_le(buf + 40, 8) : uw_elfmem_le(buf + 32, 4);
	h->phentsize = (uint32_t)uw_elfmem_le(buf + (is64 ? 54 : 42), 2);
	h->phnum = (uint32_t)uw_elfmem_le(buf + (is64 ? 56 : 44), 2);
	h->shentsize = (uint32_t)uw_elfmem_le(buf + (is64 ? 58 : 46), 2);
	h->shnum = (uint32_t)uw_elfmem_le(buf + (is64 ? 60 : 48), 2);
	if (h->phentsize != (is64 ? 56u : 32u))
		return UW_ELFMEM_UNSUPPORTED;
	if (h->phnum == 0 || h->phnum > UW_ELFMEM_MAX_PHNUM)
		return UW_ELFMEM_UNSUPPORTED;
	if (h->phoff < (is64 ? 64u : 52u) || h->phoff > UW_ELFMEM_MAX_PHDR_END ||
	    h->phnum * h->phentsize > UW_ELFMEM_MAX_PHDR_END - h->phoff)
		return UW_ELFMEM_UNSUPPORTED;
	return UW_ELFMEM_OK;
}

/* Program header i, one read (<= 56 bytes). */
static int uw_elf_read_phdr(struct uw_elf_src *src, const struct uw_elf_hdr *h,
			    uint32_t i, struct uw_elf_seg *ph)
{
	uint8_t buf[56];
	int rc;

	rc = uw_elf_read(src, src->base + h->phoff + i * h->phentsize, buf,
			 h->phentsize);
	if (rc < 0)
		return rc;
	ph->type = (uint32_t)uw_elfmem_le(buf, 4);
	if (h->is64) {
		ph->flags = (uint32_t)uw_elfmem_le(buf + 4, 4);
		ph->offset = uw_elfmem_le(buf + 8, 8);
		ph->vaddr = uw_elfmem_le(buf + 16, 8);
		ph->filesz = uw_elfmem_le(buf + 32, 8);
		ph->memsz = uw_elfmem_le(buf + 40, 8);
		ph->align = uw_elfmem_le(buf + 48, 8);
	} else {
		ph->offset = uw_elfmem_le(buf + 4, 4);
		ph->vaddr = uw_elfmem_le(buf + 8, 4);
		ph->filesz = uw_elfmem_le(buf + 16, 4);
		ph->memsz = uw_elfmem_le(buf + 20, 4);
		ph->flags = (uint32_t)uw_elfmem_le(buf + 24, 4);
		ph->align = uw_elfmem_le(buf + 28, 4);
	}
	return UW_ELFMEM_OK;
}

UW_API int uw_elf_read_phdrs(struct uw_elf_src *src, const struct uw_elf_hdr *h,
			     struct uw_elf_phdrs *p)
{
	const struct uw_elf_seg *first = NULL;
	struct uw_elf_seg ph;
	uint32_t i;
	int rc;

	p->nloads = p->nnotes = 0;
	p->dyn.type = p->eh_frame.type = 0;
	p->link_lo = p->text_lo = ~(uint64_t)0;
	p->link_hi = p->text_hi = 0;
	for (i = 0; i < h->phnum; i++) {	/* bound: UW_ELFMEM_MAX_PHNUM */
		rc = uw_elf_read_phdr(src, h, i, &ph);
		if (rc < 0)
			return rc;
		/* Every segment must fit in the address space: no wrapping. */
		if (ph.memsz > src->mask - ph.vaddr || ph.filesz > ph.memsz)
			return UW_ELFMEM_BAD_HEADERS;
		switch (ph.type) {
		case UW_ELFMEM_PT_LOAD:
			if (p->nloads == UW_ELFMEM_MAX_LOADS)
				return UW_ELFMEM_UNSUPPORTED;
			if ((ph.vaddr - ph.offset) & (UW_ELFMEM_PAGE_SIZE - 1))
				return UW_ELFMEM_BAD_HEADERS;
			p->load[p->nloads++] = ph;
			break;
		case UW_ELFMEM_PT_DYNAMIC:
			if (!p->dyn.type)
				p->dyn = ph;
			break;
		case UW_ELFMEM_PT_NOTE:
			if (p->nnotes < UW_ELFMEM_MAX_NOTE_SEGS)
				p->note[p->nnotes++] = ph;
			break;
		case UW_ELFMEM_PT_GNU_EH_FRAME:
			if (!p->eh_frame.type)
				p->eh_frame = ph;
			break;
		default:
			break;
		}
	}

	/* Extents; the lowest PT_LOAD must map file offset 0. */
	for (i = 0; i < p->nloads; i++) {	/* bound: UW_ELFMEM_MAX_LOADS */
		const struct uw_elf_seg *l = &p->load[i];

		if (!first || l->vaddr < first->vaddr)
			first = l;
		if (l->vaddr < p->link_lo)
			p->link_lo = l->vaddr;
		if (l->vaddr + l->memsz > p->link_hi)
			p->link_hi = l->vaddr + l->memsz;
		if (l->flags & UW_ELFMEM_PF_X) {
			if (l->vaddr < p->text_lo)
				p->text_lo = l->vaddr;
			if (l->vaddr + l->memsz > p->text_hi)
				p->text_hi = l->vaddr + l->memsz;
		}
	}
	if (!first)
		return UW_ELFMEM_BAD_HEADERS;
	if (first->offset >= UW_ELFMEM_PAGE_SIZE)
		return UW_ELFMEM_BAD_HEADERS;	/* does not map the ELF header */
	if (h->phoff + h->phnum * h->phentsize > first->filesz)
		return UW_ELFMEM_BAD_HEADERS;	/* phdrs not mapped at start */
	p->link0 = first->vaddr & ~(uint64_t)(UW_ELFMEM_PAGE_SIZE - 1);
	if (src->in_file)
		return UW_ELFMEM_OK;
	if (src->base & (UW_ELFMEM_PAGE_SIZE - 1) ||
	    (src->base & src->mask) != src->base)
		return UW_ELFMEM_BAD_HEADERS;
	src->bias = (src->base - p->link0) & src->mask;
	if (h->type == UW_ELFMEM_ET_EXEC && src->bias != 0)
		return UW_ELFMEM_BAD_HEADERS;	/* not where it was linked */
	return UW_ELFMEM_OK;
}

UW_API const struct uw_elf_seg *uw_elf_load_of(const struct uw_elf_phdrs *p,
					       uint64_t addr, uint64_t len)
{
	uint32_t i;

	for (i = 0; i < p->nloads; i++) {	/* bound: UW_ELFMEM_MAX_LOADS */
		const struct uw_elf_seg *s = &p->load[i];

		if (addr >= s->vaddr && addr - s->vaddr <= s->filesz &&
		    len <= s->filesz - (addr - s->vaddr))
			return s;
	}
	return NULL;
}

UW_API int uw_elf_file_offset(const struct uw_elf_phdrs *p, uint64_t addr,
			      uint64_t len, uint64_t *off)
{
	const struct uw_elf_seg *s = uw_elf_load_of(p, addr, len);

	if (!s)
		return -1;
	*off = s->offset + (addr - s->vaddr);
	return 0;
}

UW_API uint64_t uw_elf_seg_at(const struct uw_elf_src *src,
			      const struct uw_elf_seg *seg)
{
	return src->in_file ? seg->offset : (seg->vaddr + src->bias) & src->mask;
}

/* Notes: u32 namesz, descsz, type, then name and desc, each padded to the
 * alignment (4, or 8 for .note.gnu.property-style segments). */
UW_API int uw_elf_note_build_id(struct uw_elf_src *src, uint64_t at,
				uint64_t size, uint64_t align, uint8_t *id,
				uint32_t max, uint32_t *len)
{
	uint64_t pos = 0, namesz, descsz, type, name_pad, desc_pad;
	uint8_t hdr[12], name[4];
	uint32_t n;
	int rc;

	align = align == 8 ? 8 : 4;
	for (n = 0; n < UW_ELFMEM_MAX_NOTES; n++) { /* bound: UW_ELFMEM_MAX_NOTES */
		if (size - pos < 12)
			return 0;
		rc = uw_elf_read(src, at + pos, hdr, 12);
		if (rc < 0)
			return rc;
		namesz = uw_elfmem_le(hdr, 4);
		descsz = uw_elfmem_le(hdr + 4, 4);
		type = uw_elfmem_le(hdr + 8, 4);
		name_pad = (namesz + align - 1) & ~(align - 1);
		desc_pad = (descsz + align - 1) & ~(align - 1);
		pos += 12;
		if (name_pad > size - pos || desc_pad > size - pos - name_pad)
			return 0;		/* malformed: stop looking */
		if (type == UW_ELFMEM_NT_GNU_BUILD_ID && namesz == 4 &&
		    descsz > 0) {
			rc = uw_elf_read(src, at + pos, name, 4);
			if (rc < 0)
				return rc;
			if (name[0] == 'G' && name[1] == 'N' && name[2] == 'U' &&
			    name[3] == 0) {
				*len = descsz < max ? (uint32_t)descsz : max;
				rc = uw_elf_read(src, at + pos + name_pad, id, *len);
				return rc < 0 ? rc : 1;
			}
		}
		pos += name_pad + desc_pad;
	}
	return 0;
}

UW_API int uw_elf_build_id(struct uw_elf_src *src, const struct uw_elf_phdrs *p,
			   uint8_t *id, uint32_t max, uint32_t *len)
{
	uint32_t i;
	int rc;

	*len = 0;
	for (i = 0; i < p->nnotes; i++) {	/* bound: UW_ELFMEM_MAX_NOTE_SEGS */
		const struct uw_elf_seg *note = &p->note[i];

		if (!uw_elf_load_of(p, note->vaddr, note->filesz))
			continue;
		rc = uw_elf_note_build_id(src, uw_elf_seg_at(src, note),
					  note->filesz, note->align, id, max, len);
		if (rc != 0)
			return rc;
	}
	return 0;
}

UW_API int uw_elf_read_dynamic(struct uw_elf_src *src, const struct uw_elf_hdr *h,
			       const struct uw_elf_phdrs *p, struct uw_elf_dyn *d)
{
	/* DT_ numbers of enum uw_elf_dyn_tag's entries. */
	static const uint32_t dt[UW_ELF_DYN_N] = {
		[UW_ELF_DYN_PLTGOT] = 3, [UW_ELF_DYN_HASH] = 4,
		[UW_ELF_DYN_STRTAB] = 5, [UW_ELF_DYN_SYMTAB] = 6,
		[UW_ELF_DYN_STRSZ] = 10, [UW_ELF_DYN_SYMENT] = 11,
		[UW_ELF_DYN_GNU_HASH] = 0x6ffffef5,
	};
	/* Read in batches of 128 bytes (8 entries of ELFCLASS64, 16 of
	 * ELFCLASS32): fewer reads than one an entry, and small enough for
	 * the kernel stack under uw_step (unwind_core.h). */
	uint8_t buf[128];
	uint32_t word = h->is64 ? 8 : 4, ent = 2 * word;
	uint32_t batch = (uint32_t)sizeof(buf) / ent;
	uint64_t n, i, at, tag;
	uint32_t j, k, cnt;
	int rc;

	d->present = 0;
	if (!p->dyn.type || !uw_elf_load_of(p, p->dyn.vaddr, p->dyn.filesz))
		return UW_ELFMEM_OK;		/* not mapped from the file: skip */
	n = p->dyn.filesz / ent;
	if (n > UW_ELFMEM_MAX_DYN)
		n = UW_ELFMEM_MAX_DYN;
	at = uw_elf_seg_at(src, &p->dyn);
	for (i = 0; i < n; i += batch) {	/* bound: UW_ELFMEM_MAX_DYN / 8 */
		cnt = n - i < batch ? (uint32_t)(n - i) : batch;
		rc = uw_elf_read(src, at + i * ent, buf, cnt * ent);
		if (rc < 0)
			return rc;
		for (j = 0; j < cnt; j++) {	/* bound: 16 */
			tag = uw_elfmem_le(buf + j * ent, word);
			if (tag == UW_ELFMEM_DT_NULL)
				return UW_ELFMEM_OK;
			for (k = 0; k < UW_ELF_DYN_N; k++) { /* bound: UW_ELF_DYN_N */
				if (tag != dt[k] || (d->present & (1u << k)))
					continue;
				d->present |= 1u << k;
				d->val[k] = uw_elfmem_le(buf + j * ent + word, word);
			}
		}
	}
	return UW_ELFMEM_OK;
}

UW_API int uw_elf_dyn_addr(const struct uw_elf_src *src,
			   const struct uw_elf_phdrs *p, uint64_t val,
			   uint64_t *link)
{
	uint64_t bias = src->bias, mask = src->mask;

	if (bias != 0 && val >= ((p->link_lo + bias) & mask) &&
	    val < ((p->link_hi + bias) & mask)) {
		*link = (val - bias) & mask;
		return 1;
	}
	if (val >= p->link_lo && val < p->link_hi) {
		*link = val;
		return 1;
	}
	return 0;
}

UW_API int uw_elf_read_shdr(struct uw_elf_src *src, const struct uw_elf_hdr *h,
			    uint32_t i, struct uw_elf_sec *s)
{
	uint8_t buf[64];
	int rc;

	if (h->shentsize != (h->is64 ? 64u : 40u) || i >= h->shnum)
		return UW_ELFMEM_UNSUPPORTED;
	rc = uw_elf_read(src, src->base + h->shoff + (uint64_t)i * h->shentsize,
			 buf, h->shentsize);
	if (rc < 0)
		return rc;
	/* sh_type 4; sh_offset 24/16, sh_size 32/20, sh_link 40/24,
	 * sh_addralign 48/32. */
	s->type = (uint32_t)uw_elfmem_le(buf + 4, 4);
	s->offset = h->is64 ? uw_elfmem_le(buf + 24, 8) : uw_elfmem_le(buf + 16, 4);
	s->size = h->is64 ? uw_elfmem_le(buf + 32, 8) : uw_elfmem_le(buf + 20, 4);
	s->link = (uint32_t)uw_elfmem_le(buf + (h->is64 ? 40 : 24), 4);
	s->align = h->is64 ? uw_elfmem_le(buf + 48, 8) : uw_elfmem_le(buf + 32, 4);
	return UW_ELFMEM_OK;
}

/* ------------------------------------------------------------------ */
/* Unwind tables of a mapped image                                     */

/* Decode eh_frame_ptr (at hdr + 4, encoding hdr[1]) with the core's
 * reader, over the len header bytes in hand; datarel is relative to the
 * header (LSB).  0 = not decoded here (indirect, textrel: the core then
 * follows the header itself). */
static int uw_elfmem_eh_frame_ptr(const uint8_t *hdr, uint32_t len,
				  uint64_t hdr_addr, uint32_t addr_size,
				  uint64_t *out)
{
	struct uw_section bytes = { hdr, hdr_addr, len };
	struct uw_reader r;
	struct uw_stop stop;

	uw_reader_init_local(&r, &bytes, 4, len, (uint8_t)addr_size, &stop);
	r.datarel_base = hdr_addr;
	return uw_rd_encoded(&r, hdr[1], out) == 0;
}

/* The host's read_mem as the reader's callback; ctx is the scratch. */
static int uw_elfmem_read_host(void *ctx, uint64_t addr, void *buf,
			       uint32_t len)
{
	const struct uw_elfmem_scratch *w = ctx;

	return w->ops->read_mem(w->host, addr, buf, len);
}

/* The scan's first part: the object from its headers (type, extents,
 * build-id, GOT), their records in the caller's scratch (elfmem.h).  Out
 * of line, so that its readers' buffers are not on the kernel stack while
 * the second part decodes .eh_frame_hdr (the stack budget, unwind_core.h). */
static __attribute__((__noinline__)) int
uw_elfmem_scan_headers(struct uw_elf_src *src, struct uw_elfmem_info *info,
		       struct uw_elfmem_scratch *w)
{
	const struct uw_elf_hdr *const h = &w->hdr;
	const struct uw_elf_phdrs *const p = &w->phdrs;
	const struct uw_elf_dyn *const dyn = &w->dyn;
	uint64_t bias, mask, got;
	int rc;

	rc = uw_elf_read_header(src, &w->hdr);
	if (rc < 0)
		return rc;
	info->e_type = h->type;
	info->arch = h->arch;
	rc = uw_elf_read_phdrs(src, h, &w->phdrs);
	if (rc < 0)
		return rc;
	bias = src->bias;
	mask = src->mask;
	info->tables.bias = bias;
	info->load_start = (p->link_lo + bias) & mask;
	info->load_end = (p->link_hi + bias) & mask;
	if (p->text_lo < p->text_hi) {
		info->text_start = (p->text_lo + bias) & mask;
		info->text_end = (p->text_hi + bias) & mask;
	}

	/* Build-id (optional: a failed read of a note is still a failure,
	 * since the host may rely on the id to match -d data). */
	rc = uw_elf_build_id(src, p, info->build_id, UW_ELFMEM_BUILD_ID_MAX,
			     &info->build_id_len);
	if (rc < 0)
		return rc;

	/* DW_EH_PE_datarel base (i386 .eh_frame): the GOT. */
	rc = uw_elf_read_dynamic(src, h, p, &w->dyn);
	if (rc < 0)
		return rc;
	if ((dyn->present & (1u << UW_ELF_DYN_PLTGOT)) &&
	    uw_elf_dyn_addr(src, p, dyn->val[UW_ELF_DYN_PLTGOT], &got))
		info->tables.data_base = got;
	return UW_ELFMEM_OK;
}

/* The scan proper; src->reads and src->fail_at are the caller's to copy. */
static int uw_elfmem_scan_src(struct uw_elf_src *src, struct uw_elfmem_info *info,
			      struct uw_elfmem_scratch *w)
{
	const struct uw_elf_phdrs *const p = &w->phdrs;
	const struct uw_elf_seg *eh = &p->eh_frame, *seg;
	uint64_t ptr;
	uint32_t len, addr_size;
	uint8_t buf[12];
	int rc;

	rc = uw_elfmem_scan_headers(src, info, w);
	if (rc < 0)
		return rc;

	if (!eh->type)
		return UW_ELFMEM_NO_EH_FRAME;
	if (eh->memsz < 4 || !uw_elf_load_of(p, eh->vaddr, eh->memsz))
		return UW_ELFMEM_BAD_EH_FRAME_HDR;
	info->tables.eh_frame_hdr =
		(struct uw_section){ NULL, eh->vaddr, eh->memsz };

	/* .eh_frame from the header's eh_frame_ptr, bounded by its segment.
	 * The header is read here once, so an unreadable header page is
	 * reported now, with the header's address. */
	addr_size = w->hdr.is64 ? 8 : 4;
	len = eh->memsz < 4 + addr_size ? (uint32_t)eh->memsz : 4 + addr_size;
	rc = uw_elf_read(src, uw_elf_seg_at(src, eh), buf, len);
	if (rc < 0)
		return rc;
	if (buf[0] != 1)
		return UW_ELFMEM_BAD_EH_FRAME_HDR;
	if (len >= 4 + addr_size &&
	    uw_elfmem_eh_frame_ptr(buf, len, eh->vaddr, addr_size, &ptr)) {
		seg = uw_elf_load_of(p, ptr, 0);
		if (!seg)
			return UW_ELFMEM_BAD_EH_FRAME_HDR;
		info->tables.eh_frame = (struct uw_section){
			NULL, ptr, seg->vaddr + seg->filesz - ptr };
	}
	/* else: size 0, the core finds .eh_frame through the header. */
	return UW_ELFMEM_OK;
}

/* A clean result for a scan of the image at start (0: a file): nothing
 * stale can survive a failure. */
static void uw_elfmem_info_clear(struct uw_elfmem_info *info, uint64_t start)
{
	info->tables = (struct uw_tables){ .module = NULL };
	info->arch = UW_ARCH_X86_64;
	info->e_type = 0;
	info->start = start;
	info->text_start = info->text_end = 0;
	info->load_start = info->load_end = 0;
	info->build_id_len = 0;
}

UW_API int uw_elfmem_scan(const struct uw_host_ops *ops, void *host,
			  uint64_t start, struct uw_elfmem_info *info,
			  struct uw_elfmem_scratch *scratch)
{
	struct uw_elf_src *src = &scratch->src;
	int rc;

	uw_elfmem_info_clear(info, start);
	scratch->ops = ops;
	scratch->host = host;
	uw_elf_src_mem(src, uw_elfmem_read_host, scratch, start);
	rc = uw_elfmem_scan_src(src, info, scratch);
	info->fail_addr = rc == UW_ELFMEM_UNREADABLE ? src->fail_at : 0;
	info->reads = src->reads;
	return rc;
}

UW_API int uw_elfmem_scan_file(const struct uw_elf_src *file,
			       struct uw_elfmem_info *info,
			       struct uw_elfmem_scratch *scratch)
{
	int rc;

	uw_elfmem_info_clear(info, 0);
	scratch->ops = NULL;
	scratch->host = NULL;
	scratch->src = *file;
	rc = uw_elfmem_scan_src(&scratch->src, info, scratch);
	info->fail_addr = rc == UW_ELFMEM_UNREADABLE ? scratch->src.fail_at : 0;
	info->reads = scratch->src.reads;
	return rc;
}

UW_API int uw_elfmem_covers(const struct uw_elfmem_info *info, uint64_t pc)
{
	return pc >= info->text_start && pc < info->text_end;
}

UW_API enum uw_stop_reason uw_elfmem_stop_reason(int status)
{
	if (status == UW_ELFMEM_OK)
		return UW_STOP_NONE;
	if (status == UW_ELFMEM_UNREADABLE)
		return UW_STOP_MEMORY_UNREADABLE;
	return UW_STOP_NO_UNWIND_DATA;
}

UW_API const char *uw_elfmem_status_name(int status)
{
	switch (status) {
	case UW_ELFMEM_OK:		return "ok";
	case UW_ELFMEM_UNREADABLE:	return "memory unreadable";
	case UW_ELFMEM_NOT_ELF:		return "not ELF";
	case UW_ELFMEM_UNSUPPORTED:	return "unsupported ELF";
	case UW_ELFMEM_BAD_HEADERS:	return "inconsistent ELF headers";
	case UW_ELFMEM_NO_EH_FRAME:	return "no PT_GNU_EH_FRAME";
	case UW_ELFMEM_BAD_EH_FRAME_HDR: return "unusable .eh_frame_hdr";
	}
	return "unknown";
}

UW_API int uw_elfmem_fail_tables(struct uw_tables *out, int status,
				 const struct uw_elfmem_info *info)
{
	*out = (struct uw_tables){ .module = NULL };
	if (status == UW_ELFMEM_UNREADABLE && info)
		out->unreadable = info->fail_addr;
	return -1;
}

UW_API void uw_elfmem_cache_init(struct uw_elfmem_cache *cache)
{
	uint32_t i;

	for (i = 0; i < UW_ELFMEM_CACHE_SLOTS; i++)
		cache->slot[i].valid = 0;
	cache->next = 0;
	cache->hits = cache->misses = 0;
}

UW_API void uw_elfmem_cache_forget(struct uw_elfmem_cache *cache,
				   uint64_t start)
{
	uint32_t i;

	for (i = 0; i < UW_ELFMEM_CACHE_SLOTS; i++)
		if (start == 0 || cache->slot[i].start == start)
			cache->slot[i].valid = 0;
}

UW_API int uw_elfmem_lookup(struct uw_elfmem_cache *cache,
			    const struct uw_host_ops *ops, void *host,
			    uint64_t start, uint64_t ident,
			    struct uw_elfmem_info *result,
			    const struct uw_elfmem_info **info)
{
	uint32_t i;
	int rc;

	for (i = 0; i < UW_ELFMEM_CACHE_SLOTS; i++) {
		if (cache->slot[i].valid && cache->slot[i].start == start &&
		    cache->slot[i].ident == ident) {
			cache->hits++;
			*info = &cache->slot[i].info;
			return UW_ELFMEM_OK;
		}
	}
	cache->misses++;
	rc = uw_elfmem_scan(ops, host, start, result, &cache->scratch);
	*info = result;
	if (rc != UW_ELFMEM_OK)
		return rc;
	i = cache->next;
	cache->next = (i + 1) % UW_ELFMEM_CACHE_SLOTS;
	cache->slot[i].start = start;
	cache->slot[i].ident = ident;
	cache->slot[i].info = *result;
	cache->slot[i].valid = 1;
	*info = &cache->slot[i].info;
	return UW_ELFMEM_OK;
}

#endif /* UW_ELFMEM_C */
