/* libFuzzer target for the ELF reader (runtime/unwind/elfmem.c): the
 * input is an object's image, as a process maps it (or as its file), and
 * every entry point of elfmem.h reads it through a callback that fails
 * outside the image (and, if asked, on one chosen byte of it: a page that
 * is not resident).  The tables uw_elfmem_scan finds are then handed to
 * the core, which walks a small fake stack with them.
 *
 * Input layout (little endian):
 *   [0]      flags: bit0 reads covering image byte [2..5] fail, bit1 the
 *            image sits at the top of the address space (base counted
 *            down from 2^64 / 2^32: wrapping), bit2 frame-pointer fallback
 *            policy, bit3 stack words raw (else image base + word), bit4
 *            the tables carry their pc range (reused across frames),
 *            bit5 the tables carry an ident and a row cache is used,
 *            bit6 only sp, bp and pc are defined, bit7 the base is
 *            [6..9] * 4099: rarely page-aligned, for i386 often beyond
 *            2^32 (an object no process can map there: refused)
 *   [1]      max depth (& 63)
 *   [2..5]   the failing image offset (bit0)
 *   [6..9]   base page: the image is mapped at page << 12 (masked to the
 *            class's address width, which the image's EI_CLASS byte gives)
 *   [10..13] pc: offset into the object's text (modulo its size)
 *   [14]     sp, [15] bp: byte offsets into the stack
 *   [16]     build-id buffer size asked of uw_elf_build_id (% 65)
 *   [17]     a section header index to read (besides the first two and
 *            the last)
 *   [18..21] [22..23] a link-time address and length for uw_elf_load_of
 *   [24..87] 16 stack words (u32 each; see bit3), at STACK
 *   [88..91] where the image's tail lies (image offset)
 *   [92..95] the length of the image's head
 *   [96..]   the image: its head (file offset 0 / the mapped ELF header
 *            onwards), then its tail; other bytes of it cannot be read.
 *            Two pieces keep inputs small (headers and notes in the head;
 *            .eh_frame_hdr, .eh_frame and .dynamic in the tail), so that
 *            most mutations land on bytes the reader looks at.
 *
 * Checked, for any input: no crash or UB (ASan, UBSan); each call's reads
 * within its documented bound (elfmem.h: uw_elfmem_scan's formula, one per
 * program header, UW_ELFMEM_MAX_NOTES notes, UW_ELFMEM_MAX_DYN / 8), each
 * read at most 256 bytes, the reader's own count and fail_at equal to what
 * the callback saw, no read after a failed one, a failure reported as
 * UW_ELFMEM_UNREADABLE and only then; what is returned lies within what
 * was read (each program header returned is one of the table's, decoded
 * here independently; the build-id is the bytes read last; sections and
 * extents within the PT_LOADs, no wrapping) and obeys the validations
 * elfmem.h promises; the memo returns what a scan returns; and the tables
 * found unwind the fake stack within the core's per-step bounds to a stop
 * that has a reason.
 */
#include "fuzz_common.h"
#include "../../runtime/unwind/elfmem.h"

#define STACK	0x7fff0000ull
#define PREFIX	96
#define NSLOTS	16
/* Reads logged per call: above every documented bound (scan: 322). */
#define MAX_LOG	512
/* The scan's documented read bound (elfmem.h, uw_elfmem_scan). */
#define SCAN_MAX_READS							\
	(1 + UW_ELFMEM_MAX_PHNUM + 1 + UW_ELFMEM_MAX_DYN / 8 +		\
	 UW_ELFMEM_MAX_NOTE_SEGS * UW_ELFMEM_MAX_NOTES * 3)
/* Reads of one note walk: a header per note, and for the one that may be
 * the build-id its name and its bytes. */
#define NOTE_MAX_READS	(UW_ELFMEM_MAX_NOTES * 3)

static struct uw_elfmem_scratch scan_scratch;	/* the scan's working memory */

struct read_rec {
	uint64_t at;
	uint32_t len;
	int ok;
};

/* A readable piece of the image: bytes [off, off + len) are at p. */
struct piece {
	const uint8_t *p;
	uint64_t off, len;
};

struct elf_host {
	struct piece head, tail;	/* head.off = 0 */
	uint64_t base, mask;		/* where the image is mapped */
	int fail_on;
	uint64_t fail_off;		/* image byte that cannot be read */
	uint8_t stack[NSLOTS * 8];
	uint64_t stack_len;
	/* Reads since the last call_begin (or step), and their log. */
	unsigned reads, nlog;
	struct read_rec log[MAX_LOG];
	int elf_phase;			/* ELF reader calls: reads <= 256 bytes */
	/* For find_tables. */
	int scan_rc;
	struct uw_elfmem_info info;
	struct uw_tables tables;
};

static void call_begin(struct elf_host *h)
{
	h->reads = h->nlog = 0;
}

/* What target memory holds at addr (mapped image) or what the file holds
 * at offset at: 0 and the bytes, or -1.  The same model serves the read
 * callbacks and the checks below. */
static int image_bytes(const struct elf_host *h, uint64_t off, int mapped,
		       void *buf, uint32_t len)
{
	const struct piece *hd = &h->head, *tl = &h->tail;
	const struct piece *pc[2] = { tl, hd };	/* the head wins overlaps */
	uint64_t joined = tl->off + tl->len > hd->len ? tl->off + tl->len : hd->len;
	int i;

	if (!mapped || (h->fail_on && h->fail_off - off < len))
		return -1;
	/* In one piece, or in both where they touch or overlap. */
	if (!fuzz_in(off, len, 0, hd->len) && !fuzz_in(off, len, tl->off, tl->len) &&
	    !(tl->off <= hd->len && fuzz_in(off, len, 0, joined)))
		return -1;
	for (i = 0; i < 2; i++) {	/* bound: 2 pieces */
		uint64_t lo = off > pc[i]->off ? off : pc[i]->off;
		uint64_t hi = off + len < pc[i]->off + pc[i]->len ?
			      off + len : pc[i]->off + pc[i]->len;

		if (lo < hi)
			memcpy((uint8_t *)buf + (lo - off), pc[i]->p + (lo - pc[i]->off),
			       hi - lo);
	}
	return 0;
}

static int mem_bytes(const struct elf_host *h, uint64_t addr, void *buf,
		     uint32_t len)
{
	if (fuzz_in(addr, len, STACK, h->stack_len)) {
		memcpy(buf, h->stack + (addr - STACK), len);
		return 0;
	}
	return image_bytes(h, addr - h->base, addr >= h->base, buf, len);
}

static int file_bytes(const struct elf_host *h, uint64_t at, void *buf,
		      uint32_t len)
{
	return image_bytes(h, at, 1, buf, len);
}

/* Count, check and log one read; a failed read scribbles over buf (whose
 * contents are then undefined), which ASan checks against its size. */
static int note_read(struct elf_host *h, uint64_t at, void *buf, uint32_t len,
		     int rc)
{
	h->reads++;
	if (h->elf_phase && len > 256)
		abort();	/* elfmem.h: each read at most 256 bytes */
	if (h->elf_phase && h->nlog < MAX_LOG)
		h->log[h->nlog++] = (struct read_rec){ at, len, rc == 0 };
	if (rc < 0)
		memset(buf, 0xa5, len);
	return rc;
}

static int fz_mem_read(void *hp, uint64_t addr, void *buf, uint32_t len)
{
	struct elf_host *h = hp;

	return note_read(h, addr, buf, len, mem_bytes(h, addr, buf, len));
}

static int fz_file_read(void *hp, uint64_t at, void *buf, uint32_t len)
{
	struct elf_host *h = hp;

	return note_read(h, at, buf, len, file_bytes(h, at, buf, len));
}

static int fz_find(void *hp, uint64_t pc, struct uw_tables *out)
{
	struct elf_host *h = hp;

	if (h->scan_rc != UW_ELFMEM_OK)
		return uw_elfmem_fail_tables(out, h->scan_rc, &h->info);
	if (!uw_elfmem_covers(&h->info, pc))	/* no object there */
		return uw_elfmem_fail_tables(out, UW_ELFMEM_NO_EH_FRAME, NULL);
	*out = h->tables;
	return 0;
}

static const struct uw_host_ops fz_ops = { fz_mem_read, fz_find, NULL, NULL };

/* After one reader call: its reads within max_reads, counted by the
 * reader as the callback saw them, none after a failed one, and a failure
 * reported (UW_ELFMEM_UNREADABLE, fail_at = its position) if and only if
 * a read failed. */
static void check_call(const struct elf_host *h, uint32_t reads, uint64_t fail_at,
		       int rc, unsigned max_reads)
{
	unsigned i;

	if (h->reads > max_reads || h->nlog != h->reads || reads != h->reads)
		abort();
	if (rc < UW_ELFMEM_BAD_EH_FRAME_HDR || rc > 1)
		abort();
	for (i = 0; i + 1 < h->nlog; i++)	/* bound: max_reads < MAX_LOG */
		if (!h->log[i].ok)
			abort();
	if (rc == UW_ELFMEM_UNREADABLE) {
		if (!h->nlog || h->log[h->nlog - 1].ok ||
		    fail_at != h->log[h->nlog - 1].at)
			abort();
	} else if (h->nlog && !h->log[h->nlog - 1].ok) {
		abort();
	}
}

/* One reader call on src, checked with check_call. */
#define READER_CALL(h, src, max_reads, call)				\
	({								\
		uint32_t reads0_ = (src)->reads;			\
		int rc_;						\
		call_begin(h);						\
		rc_ = (call);						\
		check_call(h, (src)->reads - reads0_, (src)->fail_at,	\
			   rc_, max_reads);				\
		rc_;							\
	})

/* Program header bytes decoded here, apart from elfmem.c: p_type,
 * p_flags, p_offset, p_vaddr, p_filesz, p_memsz, p_align at their gABI
 * offsets for ELF64 / ELF32. */
static struct uw_elf_seg decode_phdr(const uint8_t *b, int is64)
{
	static const uint8_t off64[] = { 0, 4, 8, 16, 32, 40, 48 };
	static const uint8_t off32[] = { 0, 24, 4, 8, 16, 20, 28 };
	const uint8_t *off = is64 ? off64 : off32;
	uint64_t v[7];
	int i, k;

	for (i = 0; i < 7; i++) {	/* bound: 7 fields */
		int size = i < 2 || !is64 ? 4 : 8;

		v[i] = 0;
		for (k = size - 1; k >= 0; k--)	/* bound: 8 bytes */
			v[i] = v[i] << 8 | b[off[i] + k];
	}
	return (struct uw_elf_seg){ (uint32_t)v[0], (uint32_t)v[1], v[2],
				    v[3], v[4], v[5], v[6] };
}

static int same_seg(const struct uw_elf_seg *a, const struct uw_elf_seg *b)
{
	return a->type == b->type && a->flags == b->flags &&
	       a->offset == b->offset && a->vaddr == b->vaddr &&
	       a->filesz == b->filesz && a->memsz == b->memsz &&
	       a->align == b->align;
}

/* seg is one of the program headers, as the image holds them. */
static void check_is_phdr(const struct elf_host *h, const struct uw_elf_src *src,
			  const struct uw_elf_hdr *hd, const struct uw_elf_seg *seg)
{
	uint8_t b[56];
	uint32_t i;

	for (i = 0; i < hd->phnum; i++) {	/* bound: UW_ELFMEM_MAX_PHNUM */
		uint64_t at = (src->base + hd->phoff + i * hd->phentsize) & src->mask;
		int rc = src->in_file ? file_bytes(h, at, b, hd->phentsize)
				      : mem_bytes(h, at, b, hd->phentsize);
		struct uw_elf_seg raw;

		if (rc < 0)
			abort();	/* returned, so it was read */
		raw = decode_phdr(b, hd->is64);
		if (same_seg(&raw, seg))
			return;
	}
	abort();
}

/* [addr, addr + len) lies in some PT_LOAD's file bytes (link-time). */
static int in_some_load(const struct uw_elf_phdrs *p, uint64_t addr, uint64_t len)
{
	uint32_t i;

	for (i = 0; i < p->nloads; i++)	/* bound: UW_ELFMEM_MAX_LOADS */
		if (fuzz_in(addr, len, p->load[i].vaddr, p->load[i].filesz))
			return 1;
	return 0;
}

/* [a, a + len) lies in the runtime extent [lo, hi), modulo the address
 * width (an extent at the top of the space ends at 0). */
static int in_extent(uint64_t a, uint64_t len, uint64_t lo, uint64_t hi,
		     uint64_t mask)
{
	uint64_t off = (a - lo) & mask, ext = (hi - lo) & mask;

	return off <= ext && len <= ext - off;
}

/* The header and program headers; 0 if they are not valid (then nothing
 * more can be asked of this source). */
static int check_headers(struct elf_host *h, struct uw_elf_src *src,
			 struct uw_elf_hdr *hd, struct uw_elf_phdrs *p)
{
	uint64_t mask, end;
	uint32_t i, first = UW_ELFMEM_MAX_LOADS;
	int rc;

	if (src->reads != 0 || src->mask != ~(uint64_t)0)
		abort();
	rc = READER_CALL(h, src, 1, uw_elf_read_header(src, hd));
	if (rc < 0)
		return 0;
	mask = hd->is64 ? ~(uint64_t)0 : 0xffffffffu;
	if (rc != UW_ELFMEM_OK || src->mask != mask ||
	    hd->arch != (hd->is64 ? UW_ARCH_X86_64 : UW_ARCH_I386) ||
	    (hd->type != 2 && hd->type != 3) ||
	    hd->phentsize != (hd->is64 ? 56u : 32u) ||
	    hd->phnum < 1 || hd->phnum > UW_ELFMEM_MAX_PHNUM ||
	    hd->phoff < (hd->is64 ? 64u : 52u) ||
	    hd->phoff + hd->phnum * hd->phentsize > UW_ELFMEM_MAX_PHDR_END)
		abort();

	rc = READER_CALL(h, src, hd->phnum, uw_elf_read_phdrs(src, hd, p));
	if (rc < 0)
		return 0;
	if (rc != UW_ELFMEM_OK || p->nloads < 1 ||
	    p->nloads > UW_ELFMEM_MAX_LOADS ||
	    p->nnotes > UW_ELFMEM_MAX_NOTE_SEGS ||
	    p->link0 & (UW_ELFMEM_PAGE_SIZE - 1) || p->link0 > p->link_lo ||
	    p->link_lo - p->link0 >= UW_ELFMEM_PAGE_SIZE ||
	    p->link_lo > p->link_hi || p->link_hi > mask)
		abort();
	if (p->text_lo < p->text_hi &&
	    (p->text_lo < p->link_lo || p->text_hi > p->link_hi))
		abort();
	for (i = 0; i < p->nloads; i++) {	/* bound: UW_ELFMEM_MAX_LOADS */
		const struct uw_elf_seg *l = &p->load[i];

		check_is_phdr(h, src, hd, l);
		if (l->type != 1 || l->filesz > l->memsz ||
		    l->memsz > mask - l->vaddr ||
		    (l->vaddr - l->offset) & (UW_ELFMEM_PAGE_SIZE - 1) ||
		    l->vaddr < p->link_lo || l->vaddr + l->memsz > p->link_hi)
			abort();
		/* The lowest (the first of them, in table order) maps file
		 * offset 0 and holds the program headers. */
		if (l->vaddr == p->link_lo && first == UW_ELFMEM_MAX_LOADS) {
			first = i;
			end = hd->phoff + hd->phnum * hd->phentsize;
			if (l->offset >= UW_ELFMEM_PAGE_SIZE || end > l->filesz)
				abort();
		}
		if (uw_elf_load_of(p, l->vaddr, l->filesz) == NULL)
			abort();
	}
	for (i = 0; i < p->nnotes; i++) {	/* bound: UW_ELFMEM_MAX_NOTE_SEGS */
		check_is_phdr(h, src, hd, &p->note[i]);
		if (p->note[i].type != 4)
			abort();
	}
	if (p->dyn.type) {
		check_is_phdr(h, src, hd, &p->dyn);
		if (p->dyn.type != 2)
			abort();
	}
	if (p->eh_frame.type) {
		check_is_phdr(h, src, hd, &p->eh_frame);
		if (p->eh_frame.type != 0x6474e550u)
			abort();
	}
	if (!src->in_file &&
	    (src->base & (UW_ELFMEM_PAGE_SIZE - 1) ||
	     src->bias != ((src->base - p->link0) & mask) ||
	     (hd->type == 2 && src->bias != 0)))
		abort();
	return 1;
}

/* uw_elf_load_of finds a segment holding the range, or none holds it. */
static void check_load_of(const struct uw_elf_phdrs *p, uint64_t addr,
			  uint64_t len)
{
	const struct uw_elf_seg *s = uw_elf_load_of(p, addr, len);

	if (s == NULL) {
		if (in_some_load(p, addr, len))
			abort();
		return;
	}
	if (s < p->load || s >= p->load + p->nloads ||
	    !fuzz_in(addr, len, s->vaddr, s->filesz))
		abort();
}

/* A build-id found: at most max bytes, the bytes of the last read; the
 * buffer beyond them untouched (it was filled with 0xcc). */
static void check_build_id(const struct elf_host *h, const struct uw_elf_src *src,
			   int rc, const uint8_t *id, uint32_t max, uint32_t len)
{
	uint8_t b[UW_ELFMEM_BUILD_ID_MAX];
	uint32_t i;

	if (len > max)
		abort();
	for (i = len; i < UW_ELFMEM_BUILD_ID_MAX; i++)	/* bound: 64 */
		if (id[i] != 0xcc)
			abort();
	if (rc != 1)
		return;
	if (!h->nlog || h->log[h->nlog - 1].len != len)
		abort();
	if ((src->in_file ? file_bytes(h, h->log[h->nlog - 1].at, b, len)
			  : mem_bytes(h, h->log[h->nlog - 1].at, b, len)) < 0 ||
	    memcmp(b, id, len) != 0)
		abort();
}

/* Every reader entry point on one source (a file, or the mapped image). */
static void check_reader(struct elf_host *h, struct uw_elf_src *src,
			 const uint8_t *data, struct uw_elf_hdr *hd,
			 struct uw_elf_phdrs *p, int *headers_ok)
{
	uint8_t id[UW_ELFMEM_BUILD_ID_MAX];
	uint32_t len, max = data[16] % (UW_ELFMEM_BUILD_ID_MAX + 1), i;
	struct uw_elf_dyn dyn;
	struct uw_elf_sec sec;
	uint64_t link;
	int rc;

	*headers_ok = check_headers(h, src, hd, p);
	if (!*headers_ok)
		return;

	check_load_of(p, fuzz_le32(data + 18), data[22] | data[23] << 8);
	check_load_of(p, p->eh_frame.vaddr, p->eh_frame.memsz);
	check_load_of(p, p->dyn.vaddr, p->dyn.filesz);
	/* Off-by-ones live at the edges: each PT_LOAD's file bytes exactly,
	 * one byte more, and the bytes just outside them. */
	for (i = 0; i < p->nloads; i++) {	/* bound: UW_ELFMEM_MAX_LOADS */
		const struct uw_elf_seg *l = &p->load[i];

		check_load_of(p, l->vaddr, l->filesz);
		check_load_of(p, l->vaddr, l->filesz + 1);
		check_load_of(p, l->vaddr + l->filesz, 0);
		check_load_of(p, l->vaddr + l->filesz, 1);
		check_load_of(p, l->vaddr - 1, 1);
	}
	if (uw_elf_seg_at(src, &p->load[0]) !=
	    (src->in_file ? p->load[0].offset
			  : (p->load[0].vaddr + src->bias) & src->mask))
		abort();

	memset(id, 0xcc, sizeof(id));
	len = 0xdead;
	rc = READER_CALL(h, src, UW_ELFMEM_MAX_NOTE_SEGS * NOTE_MAX_READS,
			 uw_elf_build_id(src, p, id, max, &len));
	if (rc == 0 && len != 0)
		abort();
	check_build_id(h, src, rc, id, max, len);

	rc = READER_CALL(h, src, UW_ELFMEM_MAX_DYN / 8,
			 uw_elf_read_dynamic(src, hd, p, &dyn));
	if (rc == UW_ELFMEM_OK) {
		if (dyn.present >> UW_ELF_DYN_N)
			abort();
		for (i = 0; i < UW_ELF_DYN_N; i++) {	/* bound: UW_ELF_DYN_N */
			if (!(dyn.present & (1u << i)) ||
			    !uw_elf_dyn_addr(src, p, dyn.val[i], &link))
				continue;
			if (link < p->link_lo || link >= p->link_hi)
				abort();
		}
	} else if (rc != UW_ELFMEM_UNREADABLE) {
		abort();
	}

	/* Section headers: the first two, the last, one past it (refused
	 * without a read) and one the input picks; SHT_NOTE ones are walked
	 * as notes. */
	uint32_t idx[5] = { 0, 1, hd->shnum - 1, hd->shnum, data[17] };
	for (i = 0; i < 5; i++) {	/* bound: 5 indices */
		int bad = hd->shentsize != (hd->is64 ? 64u : 40u) ||
			  idx[i] >= hd->shnum;

		rc = READER_CALL(h, src, bad ? 0 : 1,
				 uw_elf_read_shdr(src, hd, idx[i], &sec));
		if (bad && rc != UW_ELFMEM_UNSUPPORTED)
			abort();
		if (rc != UW_ELFMEM_OK || sec.type != 7 /* SHT_NOTE */)
			continue;
		memset(id, 0xcc, sizeof(id));
		len = 0;
		rc = READER_CALL(h, src, NOTE_MAX_READS,
				 uw_elf_note_build_id(src, sec.offset, sec.size,
						      sec.align, id, max, &len));
		check_build_id(h, src, rc, id, max, len);
	}
}

/* uw_elfmem_scan's result against the documented promises and against
 * the reader's answers on the same image (hd, p: from check_reader). */
static void check_scan(struct elf_host *h, const struct uw_elfmem_info *info,
		       int rc, int headers_ok, const struct uw_elf_src *src,
		       const struct uw_elf_hdr *hd, const struct uw_elf_phdrs *p)
{
	const struct uw_tables *t = &info->tables;
	struct uw_tables failed;
	uint8_t b[12], id[UW_ELFMEM_BUILD_ID_MAX];
	uint64_t mask = src->mask, hdr_rt;
	uint32_t len, n;
	struct uw_elf_src again;

	if (info->reads != h->reads || info->start != h->base)
		abort();
	check_call(h, info->reads, info->fail_addr, rc, SCAN_MAX_READS);
	if (rc == 1 || strcmp(uw_elfmem_status_name(rc), "unknown") == 0)
		abort();
	if (uw_elfmem_stop_reason(rc) !=
	    (rc == UW_ELFMEM_OK ? UW_STOP_NONE :
	     rc == UW_ELFMEM_UNREADABLE ? UW_STOP_MEMORY_UNREADABLE :
	     UW_STOP_NO_UNWIND_DATA))
		abort();
	memset(&failed, 0x5a, sizeof(failed));
	if (uw_elfmem_fail_tables(&failed, rc, info) != -1 ||
	    failed.unreadable != (rc == UW_ELFMEM_UNREADABLE ? info->fail_addr : 0) ||
	    failed.eh_frame_hdr.size || failed.eh_frame.size || failed.module)
		abort();
	if (rc != UW_ELFMEM_OK)
		return;

	/* A scan that succeeds read valid headers, as the reader says. */
	if (!headers_ok || info->arch != hd->arch || info->e_type != hd->type ||
	    t->bias != src->bias ||
	    info->load_start != ((p->link_lo + t->bias) & mask) ||
	    info->load_end != ((p->link_hi + t->bias) & mask))
		abort();
	if (p->text_lo < p->text_hi) {
		if (info->text_start != ((p->text_lo + t->bias) & mask) ||
		    info->text_end != ((p->text_hi + t->bias) & mask) ||
		    !in_extent(info->text_start, (info->text_end - info->text_start) & mask,
			       info->load_start, info->load_end, mask))
			abort();
	} else if (info->text_start || info->text_end) {
		abort();
	}

	/* The tables: read from the target, within the PT_LOADs' file
	 * bytes, the header's first bytes readable and version 1. */
	if (t->eh_frame_hdr.data || t->eh_frame.data || t->debug_frame.size ||
	    t->module || t->text_base || t->unreadable ||
	    t->eh_frame_hdr.size < 4 ||
	    t->eh_frame_hdr.addr != p->eh_frame.vaddr ||
	    t->eh_frame_hdr.size != p->eh_frame.memsz ||
	    !in_some_load(p, t->eh_frame_hdr.addr, t->eh_frame_hdr.size))
		abort();
	hdr_rt = (t->eh_frame_hdr.addr + t->bias) & mask;
	n = hd->is64 ? 12 : 8;
	if (n > t->eh_frame_hdr.size)
		n = (uint32_t)t->eh_frame_hdr.size;
	if (mem_bytes(h, hdr_rt, b, n) < 0 || b[0] != 1)
		abort();
	if (t->eh_frame.size &&
	    !in_some_load(p, t->eh_frame.addr, t->eh_frame.size))
		abort();
	if (t->data_base &&
	    (t->data_base < p->link_lo || t->data_base >= p->link_hi))
		abort();

	/* The build-id is the reader's. */
	memset(id, 0xcc, sizeof(id));
	len = 0;
	again = *src;
	if (uw_elf_build_id(&again, p, id, UW_ELFMEM_BUILD_ID_MAX, &len) < 0 ||
	    len != info->build_id_len || memcmp(id, info->build_id, len) != 0)
		abort();

	if (info->text_start < info->text_end &&
	    (!uw_elfmem_covers(info, info->text_start) ||
	     uw_elfmem_covers(info, info->text_end)))
		abort();
}

/* The memo gives what the scan gave: scanned on a miss, without a read on
 * a hit; failures are not kept; forget drops the entry. */
static void check_memo(struct elf_host *h, int scan_rc,
		       const struct uw_elfmem_info *scanned)
{
	static struct uw_elfmem_cache cache;
	static struct uw_elfmem_info scratch;
	const struct uw_elfmem_info *got;
	int rc, pass;

	uw_elfmem_cache_init(&cache);
	for (pass = 0; pass < 3; pass++) {	/* bound: 3 passes */
		if (pass == 2)
			uw_elfmem_cache_forget(&cache, h->base);
		call_begin(h);
		rc = uw_elfmem_lookup(&cache, &fz_ops, h, h->base, 42, &scratch,
				      &got);
		if (rc != scan_rc)
			abort();
		/* pass 1 hits if the scan succeeded */
		if ((pass == 1 && rc == UW_ELFMEM_OK) != (h->reads == 0))
			abort();
		if (got->reads != scanned->reads ||
		    got->fail_addr != scanned->fail_addr)
			abort();
		if (rc != UW_ELFMEM_OK)
			continue;
		if (got->tables.bias != scanned->tables.bias ||
		    got->tables.eh_frame_hdr.addr != scanned->tables.eh_frame_hdr.addr ||
		    got->tables.eh_frame.size != scanned->tables.eh_frame.size ||
		    got->text_start != scanned->text_start ||
		    got->text_end != scanned->text_end ||
		    got->build_id_len != scanned->build_id_len ||
		    memcmp(got->build_id, scanned->build_id, got->build_id_len))
			abort();
	}
	if (cache.hits != (scan_rc == UW_ELFMEM_OK) ||
	    cache.misses != 3u - (scan_rc == UW_ELFMEM_OK))
		abort();
}

/* Walk the fake stack with what the scan found (or with its failure). */
static void walk(struct elf_host *h, const uint8_t *data, int is64)
{
	static struct uw_cursor cur;
	static struct uw_cache_entry entries[16];
	static struct uw_cache cache;
	const struct uw_elfmem_info *info = &h->info;
	uint8_t flags = data[0];
	struct fuzz_frame_log log;
	struct uw_regs regs;
	enum uw_arch arch = is64 ? UW_ARCH_X86_64 : UW_ARCH_I386;
	unsigned pcr = is64 ? 16 : 8, spr = is64 ? 7 : 4, bpr = is64 ? 6 : 5;
	uint64_t pc, size;
	uint32_t policy = (flags & 4) ? UW_POLICY_ALL : 0;
	int i;

	h->tables = info->tables;
	h->tables.module = "fuzz";
	if (flags & 0x10) {
		h->tables.pc_lo = info->text_start;
		h->tables.pc_hi = info->text_end;
	}
	if (flags & 0x20)
		h->tables.ident = 1;
	size = (info->text_end - info->text_start) & h->mask;
	if (h->scan_rc == UW_ELFMEM_OK) {
		arch = info->arch;
		pc = size ? info->text_start + fuzz_le32(data + 10) % size
			  : info->text_start;
	} else {
		pc = h->base + fuzz_le32(data + 10);
	}

	memset(&regs, 0, sizeof(regs));
	/* arbitrary but recognisable; bound: UW_NREGS */
	for (i = 0; i < UW_NREGS; i++)
		regs.val[i] = (0x1111111111111111ull * (uint64_t)(i + 1)) & h->mask;
	regs.val[pcr] = pc & h->mask;
	regs.val[spr] = STACK + data[14] % h->stack_len;
	regs.val[bpr] = STACK + data[15] % h->stack_len;
	regs.defined = (flags & 0x40) ? UW_REG_BIT(pcr) | UW_REG_BIT(spr) |
					UW_REG_BIT(bpr)
				      : (is64 ? 0x1ffffu : 0x1ffu);
	uw_cache_init(&cache, entries, 16);
	/* The tables hold for the whole input: the host vouches for them
	 * across unwinds (uw_cache.space). */
	cache.space = 1;
	h->elf_phase = 0;
	if (!fuzz_unwind(&cur, arch, &fz_ops, h, &h->reads, &regs, data[1] & 0x3f,
			 policy, (flags & 0x20) ? &cache : NULL, &log))
		return;
	/* A scan that failed on a read makes the first step stop there, when
	 * nothing else could unwind the frame (a read at address 0 cannot be
	 * reported: uw_tables.unreadable 0 means none, and page 0 is never
	 * mapped, vm.mmap_min_addr). */
	if (h->scan_rc == UW_ELFMEM_UNREADABLE && info->fail_addr && !policy &&
	    log.n == 0 && log.reason == UW_STOP_NO_UNWIND_DATA)
		abort();
	/* With the cache: the same walk again, its tables now from the
	 * cache's space (and its rows from the cache), and once without the
	 * cache: the same frames and stop all three times. */
	if (flags & 0x20) {
		struct fuzz_frame_log again, plain;

		if (!fuzz_unwind(&cur, arch, &fz_ops, h, &h->reads, &regs,
				 data[1] & 0x3f, policy, &cache, &again) ||
		    !fuzz_unwind(&cur, arch, &fz_ops, h, &h->reads, &regs,
				 data[1] & 0x3f, policy, NULL, &plain))
			abort();	/* uw_init took the same input before */
		if (!fuzz_logs_agree(&log, &plain) ||
		    !fuzz_logs_agree(&again, &plain)) {
			fuzz_log_print("without the cache", &plain);
			fuzz_log_print("cache, first walk", &log);
			fuzz_log_print("cache, again: tables kept", &again);
			abort();
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct elf_host h;
	struct uw_elf_src src;
	struct uw_elf_hdr hd, mhd;
	struct uw_elf_phdrs p, mp;
	uint64_t page, word, head_len;
	int is64, headers_ok, mheaders_ok, i;

	if (size < PREFIX)
		return 0;
	memset(&h, 0, sizeof(h));
	head_len = fuzz_le32(data + 92);
	if (head_len > size - PREFIX)
		head_len = size - PREFIX;
	h.head = (struct piece){ data + PREFIX, 0, head_len };
	h.tail = (struct piece){ data + PREFIX + head_len, fuzz_le32(data + 88),
				 size - PREFIX - head_len };
	/* The class decides the address width, hence where it can be. */
	is64 = !(head_len > 4 && h.head.p[4] == 1);
	h.mask = is64 ? ~(uint64_t)0 : 0xffffffffu;
	page = (uint64_t)fuzz_le32(data + 6) << 12;
	h.base = ((data[0] & 2) ? 0 - page : page) & h.mask;
	if (data[0] & 0x80)
		h.base = fuzz_le32(data + 6) * 4099ull;
	h.fail_on = data[0] & 1;
	h.fail_off = fuzz_le32(data + 2);
	word = is64 ? 8 : 4;
	h.stack_len = NSLOTS * word;
	for (i = 0; i < NSLOTS; i++) {	/* bound: NSLOTS */
		uint64_t v = fuzz_le32(data + 24 + 4 * i);

		if (!(data[0] & 8))
			v = (h.base + v) & h.mask;
		memcpy(h.stack + i * word, &v, word);	/* little endian */
	}
	h.elf_phase = 1;

	/* The reader, on the image as a file and as mapped. */
	uw_elf_src_file(&src, fz_file_read, &h);
	check_reader(&h, &src, data, &hd, &p, &headers_ok);
	uw_elf_src_mem(&src, fz_mem_read, &h, h.base);
	check_reader(&h, &src, data, &mhd, &mp, &mheaders_ok);

	/* The scan, and the memo over it. */
	call_begin(&h);
	h.scan_rc = uw_elfmem_scan(&fz_ops, &h, h.base, &h.info, &scan_scratch);
	check_scan(&h, &h.info, h.scan_rc, mheaders_ok, &src, &mhd, &mp);
	check_memo(&h, h.scan_rc, &h.info);

	walk(&h, data, is64);
	return 0;
}
