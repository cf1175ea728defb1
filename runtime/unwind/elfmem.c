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
#define UW_ELFMEM_DT_PLTGOT	3
#define UW_ELFMEM_NT_GNU_BUILD_ID 3

/* DW_EH_PE values used to decode eh_frame_ptr (uw_internal.h has them too,
 * but this file needs only the public header). */
#define UW_ELFMEM_PE_ABSPTR	0x00
#define UW_ELFMEM_PE_UDATA4	0x03
#define UW_ELFMEM_PE_UDATA8	0x04
#define UW_ELFMEM_PE_SDATA4	0x0b
#define UW_ELFMEM_PE_SDATA8	0x0c
#define UW_ELFMEM_PE_PCREL	0x10
#define UW_ELFMEM_PE_DATAREL	0x30

struct uw_elfmem_seg {
	uint64_t vaddr, memsz, offset, filesz, align;
	uint32_t flags;
};

struct uw_elfmem_ctx {
	const struct uw_host_ops *ops;
	void *host;
	struct uw_elfmem_info *info;
	uint64_t mask;			/* address width */
};

static uint64_t uw_elfmem_le(const uint8_t *b, uint32_t size)
{
	uint64_t v = 0;
	uint32_t i;

	for (i = size; i > 0; i--)	/* bound: size <= 8 */
		v = (v << 8) | b[i - 1];
	return v;
}

/* Read len (<= 64) bytes at runtime address addr. */
static int uw_elfmem_read(struct uw_elfmem_ctx *x, uint64_t addr, void *buf,
			  uint32_t len)
{
	addr &= x->mask;
	x->info->reads++;
	if (x->ops->read_mem(x->host, addr, buf, len) < 0) {
		x->info->fail_addr = addr;
		return UW_ELFMEM_UNREADABLE;
	}
	return UW_ELFMEM_OK;
}

/* Does link-time [addr, addr + len) lie in the file bytes of a PT_LOAD? */
static const struct uw_elfmem_seg *
uw_elfmem_load_of(const struct uw_elfmem_seg *loads, uint32_t nloads,
		  uint64_t addr, uint64_t len)
{
	uint32_t i;

	for (i = 0; i < nloads; i++) {		/* bound: UW_ELFMEM_MAX_LOADS */
		const struct uw_elfmem_seg *s = &loads[i];

		if (addr >= s->vaddr && addr - s->vaddr <= s->filesz &&
		    len <= s->filesz - (addr - s->vaddr))
			return s;
	}
	return NULL;
}

/* DT_PLTGOT from the dynamic section in memory, as a link-time address.
 * glibc's ld.so rewrites DT_PLTGOT (and other d_ptr entries) to runtime
 * addresses in place when the object's bias is not 0 (elf_get_dynamic_info,
 * unless .dynamic is read-only, as in the vdso); libgcc's unwinder relies
 * on that too.  So the value is taken as runtime if it falls in the
 * object's runtime extent, else as link-time if it falls in its link-time
 * extent, else ignored. */
static int uw_elfmem_pltgot(struct uw_elfmem_ctx *x,
			    const struct uw_elfmem_seg *dyn,
			    const struct uw_elfmem_seg *loads, uint32_t nloads,
			    uint64_t link_lo, uint64_t link_hi)
{
	struct uw_elfmem_info *info = x->info;
	uint32_t word = info->arch == UW_ARCH_X86_64 ? 8 : 4;
	uint64_t n = dyn->memsz / (2 * word), i, tag, val, bias = info->tables.bias;
	uint8_t buf[16];
	int rc;

	if (!uw_elfmem_load_of(loads, nloads, dyn->vaddr, dyn->filesz))
		return UW_ELFMEM_OK;		/* not mapped from the file: skip */
	if (n > UW_ELFMEM_MAX_DYN)
		n = UW_ELFMEM_MAX_DYN;
	for (i = 0; i < n; i++) {		/* bound: UW_ELFMEM_MAX_DYN */
		rc = uw_elfmem_read(x, dyn->vaddr + bias + i * 2 * word, buf,
				    2 * word);
		if (rc < 0)
			return rc;
		tag = uw_elfmem_le(buf, word);
		val = uw_elfmem_le(buf + word, word);
		if (tag == UW_ELFMEM_DT_NULL)
			break;
		if (tag != UW_ELFMEM_DT_PLTGOT)
			continue;
		if (bias != 0 && val >= ((link_lo + bias) & x->mask) &&
		    val < ((link_hi + bias) & x->mask))
			info->tables.data_base = (val - bias) & x->mask;
		else if (val >= link_lo && val < link_hi)
			info->tables.data_base = val;
		break;
	}
	return UW_ELFMEM_OK;
}

/* NT_GNU_BUILD_ID in one PT_NOTE segment.  Notes: u32 namesz, descsz,
 * type, then name and desc, each padded to the segment's alignment (4, or
 * 8 for .note.gnu.property-style segments).  1 = found. */
static int uw_elfmem_build_id(struct uw_elfmem_ctx *x,
			      const struct uw_elfmem_seg *note)
{
	struct uw_elfmem_info *info = x->info;
	uint64_t align = note->align == 8 ? 8 : 4;
	uint64_t pos = 0, base = note->vaddr + info->tables.bias;
	uint64_t namesz, descsz, type, name_pad, desc_pad;
	uint8_t hdr[12];
	uint32_t n, len;
	int rc;

	for (n = 0; n < UW_ELFMEM_MAX_NOTES; n++) {
		if (note->filesz - pos < 12)
			return 0;
		rc = uw_elfmem_read(x, base + pos, hdr, 12);
		if (rc < 0)
			return rc;
		namesz = uw_elfmem_le(hdr, 4);
		descsz = uw_elfmem_le(hdr + 4, 4);
		type = uw_elfmem_le(hdr + 8, 4);
		name_pad = (namesz + align - 1) & ~(align - 1);
		desc_pad = (descsz + align - 1) & ~(align - 1);
		pos += 12;
		if (name_pad > note->filesz - pos ||
		    desc_pad > note->filesz - pos - name_pad)
			return 0;		/* malformed: stop looking */
		if (type == UW_ELFMEM_NT_GNU_BUILD_ID && namesz == 4 &&
		    descsz > 0) {
			uint8_t name[4];

			rc = uw_elfmem_read(x, base + pos, name, 4);
			if (rc < 0)
				return rc;
			if (name[0] == 'G' && name[1] == 'N' && name[2] == 'U' &&
			    name[3] == 0) {
				len = descsz < UW_ELFMEM_BUILD_ID_MAX ?
				      (uint32_t)descsz : UW_ELFMEM_BUILD_ID_MAX;
				rc = uw_elfmem_read(x, base + pos + name_pad,
						    info->build_id, len);
				if (rc < 0)
					return rc;
				info->build_id_len = len;
				return 1;
			}
		}
		pos += name_pad + desc_pad;
	}
	return 0;
}

/* Decode eh_frame_ptr (at hdr + 4, encoding hdr[1]) for the common plain
 * encodings; 0 = not decoded (the core then decodes it itself). */
static int uw_elfmem_eh_frame_ptr(const uint8_t *hdr, uint64_t hdr_addr,
				  uint32_t addr_size, uint64_t mask,
				  uint64_t *out)
{
	uint8_t enc = hdr[1];
	uint64_t v, base;
	uint32_t size;

	switch (enc & 0x0f) {
	case UW_ELFMEM_PE_ABSPTR:
		size = addr_size;
		break;
	case UW_ELFMEM_PE_UDATA4:
	case UW_ELFMEM_PE_SDATA4:
		size = 4;
		break;
	case UW_ELFMEM_PE_UDATA8:
	case UW_ELFMEM_PE_SDATA8:
		size = 8;
		break;
	default:
		return 0;
	}
	switch (enc & 0xf0) {
	case 0:
		base = 0;
		break;
	case UW_ELFMEM_PE_PCREL:
		base = hdr_addr + 4;
		break;
	case UW_ELFMEM_PE_DATAREL:
		base = hdr_addr;
		break;
	default:
		return 0;		/* indirect, textrel, ...: leave to the core */
	}
	v = uw_elfmem_le(hdr + 4, size);
	if ((enc & 0x0f) == UW_ELFMEM_PE_SDATA4 && (v & 0x80000000u))
		v |= ~(uint64_t)0xffffffffu;
	*out = (base + v) & mask;
	return 1;
}

UW_API int uw_elfmem_scan(const struct uw_host_ops *ops, void *host,
			  uint64_t start, struct uw_elfmem_info *info)
{
	struct uw_elfmem_ctx x = { ops, host, info, ~(uint64_t)0 };
	struct uw_elfmem_seg loads[UW_ELFMEM_MAX_LOADS];
	struct uw_elfmem_seg notes[UW_ELFMEM_MAX_NOTE_SEGS];
	struct uw_elfmem_seg eh = { 0 }, dyn = { 0 }, ph;
	const struct uw_elfmem_seg *first = NULL, *seg;
	uint32_t nloads = 0, nnotes = 0, i, addr_size, phentsize, phnum;
	uint64_t phoff, bias, link_lo = ~(uint64_t)0, link_hi = 0, page, ptr;
	uint64_t text_lo = ~(uint64_t)0, text_hi = 0;
	uint8_t buf[64];
	int have_eh = 0, have_dyn = 0, is64, rc;

	/* Start from a clean result: nothing stale can survive a failure. */
	info->tables = (struct uw_tables){ .module = NULL };
	info->arch = UW_ARCH_X86_64;
	info->e_type = 0;
	info->start = start;
	info->text_start = info->text_end = 0;
	info->load_start = info->load_end = 0;
	info->build_id_len = 0;
	info->fail_addr = 0;
	info->reads = 0;

	/* ELF header: e_ident[16], then (ELF64 offsets / ELF32 offsets)
	 * e_type 16, e_machine 18, e_version 20, e_phoff 32/28,
	 * e_phentsize 54/42, e_phnum 56/44.  64 bytes cover both. */
	rc = uw_elfmem_read(&x, start, buf, 64);
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
	info->e_type = (uint16_t)uw_elfmem_le(buf + 16, 2);
	if (info->e_type != UW_ELFMEM_ET_EXEC && info->e_type != UW_ELFMEM_ET_DYN)
		return UW_ELFMEM_UNSUPPORTED;
	info->arch = is64 ? UW_ARCH_X86_64 : UW_ARCH_I386;
	addr_size = is64 ? 8 : 4;
	x.mask = is64 ? ~(uint64_t)0 : 0xffffffffu;
	if (start & (UW_ELFMEM_PAGE_SIZE - 1) || (start & x.mask) != start)
		return UW_ELFMEM_BAD_HEADERS;
	phoff = is64 ? uw_elfmem_le(buf + 32, 8) : uw_elfmem_le(buf + 28, 4);
	phentsize = (uint32_t)uw_elfmem_le(buf + (is64 ? 54 : 42), 2);
	phnum = (uint32_t)uw_elfmem_le(buf + (is64 ? 56 : 44), 2);
	if (phentsize != (is64 ? 56u : 32u))
		return UW_ELFMEM_UNSUPPORTED;
	if (phnum == 0 || phnum > UW_ELFMEM_MAX_PHNUM)
		return UW_ELFMEM_UNSUPPORTED;
	if (phoff < (is64 ? 64u : 52u) || phoff > UW_ELFMEM_MAX_PHDR_END ||
	    phnum * phentsize > UW_ELFMEM_MAX_PHDR_END - phoff)
		return UW_ELFMEM_UNSUPPORTED;

	/* Program headers, one read each (<= 56 bytes). */
	for (i = 0; i < phnum; i++) {		/* bound: UW_ELFMEM_MAX_PHNUM */
		uint32_t type;

		rc = uw_elfmem_read(&x, start + phoff + i * phentsize, buf,
				    phentsize);
		if (rc < 0)
			return rc;
		type = (uint32_t)uw_elfmem_le(buf, 4);
		if (is64) {
			ph.flags = (uint32_t)uw_elfmem_le(buf + 4, 4);
			ph.offset = uw_elfmem_le(buf + 8, 8);
			ph.vaddr = uw_elfmem_le(buf + 16, 8);
			ph.filesz = uw_elfmem_le(buf + 32, 8);
			ph.memsz = uw_elfmem_le(buf + 40, 8);
			ph.align = uw_elfmem_le(buf + 48, 8);
		} else {
			ph.offset = uw_elfmem_le(buf + 4, 4);
			ph.vaddr = uw_elfmem_le(buf + 8, 4);
			ph.filesz = uw_elfmem_le(buf + 16, 4);
			ph.memsz = uw_elfmem_le(buf + 20, 4);
			ph.flags = (uint32_t)uw_elfmem_le(buf + 24, 4);
			ph.align = uw_elfmem_le(buf + 28, 4);
		}
		/* Every segment must fit in the address space: no wrapping. */
		if (ph.memsz > x.mask - ph.vaddr || ph.filesz > ph.memsz)
			return UW_ELFMEM_BAD_HEADERS;
		switch (type) {
		case UW_ELFMEM_PT_LOAD:
			if (nloads == UW_ELFMEM_MAX_LOADS)
				return UW_ELFMEM_UNSUPPORTED;
			if ((ph.vaddr - ph.offset) & (UW_ELFMEM_PAGE_SIZE - 1))
				return UW_ELFMEM_BAD_HEADERS;
			loads[nloads++] = ph;
			break;
		case UW_ELFMEM_PT_DYNAMIC:
			if (!have_dyn)
				dyn = ph;
			have_dyn = 1;
			break;
		case UW_ELFMEM_PT_NOTE:
			if (nnotes < UW_ELFMEM_MAX_NOTE_SEGS)
				notes[nnotes++] = ph;
			break;
		case UW_ELFMEM_PT_GNU_EH_FRAME:
			if (!have_eh)
				eh = ph;
			have_eh = 1;
			break;
		default:
			break;
		}
	}

	/* Load bias from the lowest PT_LOAD, which must map file offset 0. */
	for (i = 0; i < nloads; i++) {		/* bound: UW_ELFMEM_MAX_LOADS */
		if (!first || loads[i].vaddr < first->vaddr)
			first = &loads[i];
		if (loads[i].vaddr < link_lo)
			link_lo = loads[i].vaddr;
		if (loads[i].vaddr + loads[i].memsz > link_hi)
			link_hi = loads[i].vaddr + loads[i].memsz;
		if (loads[i].flags & UW_ELFMEM_PF_X) {
			if (loads[i].vaddr < text_lo)
				text_lo = loads[i].vaddr;
			if (loads[i].vaddr + loads[i].memsz > text_hi)
				text_hi = loads[i].vaddr + loads[i].memsz;
		}
	}
	if (!first)
		return UW_ELFMEM_BAD_HEADERS;
	if (first->offset >= UW_ELFMEM_PAGE_SIZE)
		return UW_ELFMEM_BAD_HEADERS;	/* does not map the ELF header */
	if (phoff + phnum * phentsize > first->filesz)
		return UW_ELFMEM_BAD_HEADERS;	/* phdrs not mapped at start */
	page = first->vaddr & ~(uint64_t)(UW_ELFMEM_PAGE_SIZE - 1);
	bias = (start - page) & x.mask;
	if (info->e_type == UW_ELFMEM_ET_EXEC && bias != 0)
		return UW_ELFMEM_BAD_HEADERS;	/* not where it was linked */
	info->tables.bias = bias;
	info->load_start = (link_lo + bias) & x.mask;
	info->load_end = (link_hi + bias) & x.mask;
	if (text_lo < text_hi) {
		info->text_start = (text_lo + bias) & x.mask;
		info->text_end = (text_hi + bias) & x.mask;
	}

	/* Build-id (optional: a failed read of a note is still a failure,
	 * since the host may rely on the id to match -d data). */
	for (i = 0; i < nnotes && !info->build_id_len; i++) {
		if (!uw_elfmem_load_of(loads, nloads, notes[i].vaddr,
				       notes[i].filesz))
			continue;
		rc = uw_elfmem_build_id(&x, &notes[i]);
		if (rc < 0)
			return rc;
	}

	/* DW_EH_PE_datarel base (i386 .eh_frame): the GOT. */
	if (have_dyn) {
		rc = uw_elfmem_pltgot(&x, &dyn, loads, nloads, link_lo, link_hi);
		if (rc < 0)
			return rc;
	}

	if (!have_eh)
		return UW_ELFMEM_NO_EH_FRAME;
	if (eh.memsz < 4 || !uw_elfmem_load_of(loads, nloads, eh.vaddr, eh.memsz))
		return UW_ELFMEM_BAD_EH_FRAME_HDR;
	info->tables.eh_frame_hdr =
		(struct uw_section){ NULL, eh.vaddr, eh.memsz };

	/* .eh_frame from the header's eh_frame_ptr, bounded by its segment.
	 * The header is read here once, so an unreadable header page is
	 * reported now, with the header's address. */
	i = eh.memsz < 4 + addr_size ? (uint32_t)eh.memsz : 4 + addr_size;
	rc = uw_elfmem_read(&x, eh.vaddr + bias, buf, i);
	if (rc < 0)
		return rc;
	if (buf[0] != 1)
		return UW_ELFMEM_BAD_EH_FRAME_HDR;
	if (i >= 4 + addr_size &&
	    uw_elfmem_eh_frame_ptr(buf, eh.vaddr, addr_size, x.mask, &ptr)) {
		seg = uw_elfmem_load_of(loads, nloads, ptr, 0);
		if (!seg)
			return UW_ELFMEM_BAD_EH_FRAME_HDR;
		info->tables.eh_frame = (struct uw_section){
			NULL, ptr, seg->vaddr + seg->filesz - ptr };
	}
	/* else: size 0, the core finds .eh_frame through the header. */
	return UW_ELFMEM_OK;
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
			    struct uw_elfmem_info *scratch,
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
	rc = uw_elfmem_scan(ops, host, start, scratch);
	*info = scratch;
	if (rc != UW_ELFMEM_OK)
		return rc;
	i = cache->next;
	cache->next = (i + 1) % UW_ELFMEM_CACHE_SLOTS;
	cache->slot[i].start = start;
	cache->slot[i].ident = ident;
	cache->slot[i].info = *scratch;
	cache->slot[i].valid = 1;
	*info = &cache->slot[i].info;
	return UW_ELFMEM_OK;
}
