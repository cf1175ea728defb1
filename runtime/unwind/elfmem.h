/* stap-unwind: unwind tables of an ELF object found in the process itself.
 *
 * Every ELF object a process maps carries its PT_GNU_EH_FRAME segment
 * (.eh_frame_hdr, and through it .eh_frame) in memory, and the vdso is just
 * another such object.  Given where the object's ELF header is mapped (the
 * start of its lowest mapping, file offset 0: from VMA tracking in the
 * kernel, from /proc/PID/maps in user space), uw_elfmem_scan() reads the ELF
 * header and program headers from target memory through the host's
 * read_mem and describes the object: load bias, unwind tables (with
 * data == NULL, so the core reads them from the process's own pages), the
 * executable extent, the GNU build-id and the DW_EH_PE_datarel base.
 * No file is needed.
 *
 * Same rules as the core: freestanding, no allocation, no recursion, every
 * loop bounded (constants below), every target read may fail.  A failed
 * read is reported with its address (UW_ELFMEM_UNREADABLE, fail_addr):
 * a host's find_tables passes it on in uw_tables.unreadable, and the stop
 * reason is then UW_STOP_MEMORY_UNREADABLE at that address ("page not
 * resident") rather than "no unwind data".
 *
 * Supported: little-endian ELFCLASS64 EM_X86_64 and ELFCLASS32 EM_386,
 * ET_EXEC and ET_DYN, 4 KiB pages.
 */
#ifndef UW_ELFMEM_H
#define UW_ELFMEM_H

#include "unwind_core.h"

/* Bounds.  Objects beyond them are UW_ELFMEM_UNSUPPORTED, not misread. */
#define UW_ELFMEM_PAGE_SIZE	4096u	/* x86 */
#define UW_ELFMEM_MAX_PHNUM	64	/* program headers (ld: ~13; PN_XNUM
					 * extended numbering is refused) */
#define UW_ELFMEM_MAX_PHDR_END	65536u	/* e_phoff + table size; the table must
					 * also lie in the first PT_LOAD's
					 * file range, i.e. be mapped at start */
#define UW_ELFMEM_MAX_LOADS	8	/* PT_LOAD entries (ld: 2..5) */
#define UW_ELFMEM_MAX_NOTE_SEGS	4	/* PT_NOTE segments examined */
#define UW_ELFMEM_MAX_NOTES	16	/* notes examined per PT_NOTE segment */
#define UW_ELFMEM_MAX_DYN	512	/* PT_DYNAMIC entries examined */
#define UW_ELFMEM_BUILD_ID_MAX	64	/* build-id bytes kept (GNU ld: 20) */

/* Status of uw_elfmem_scan(); each failure is distinct. */
enum uw_elfmem_status {
	UW_ELFMEM_OK = 0,
	UW_ELFMEM_UNREADABLE = -1,	/* a target read failed at fail_addr */
	UW_ELFMEM_NOT_ELF = -2,		/* no ELF magic at start */
	UW_ELFMEM_UNSUPPORTED = -3,	/* other class, byte order, machine,
					 * type, e_phentsize, or a bound above */
	UW_ELFMEM_BAD_HEADERS = -4,	/* inconsistent headers: phdrs not in
					 * the first segment, no PT_LOAD, ET_EXEC
					 * not at its link-time address, ... */
	UW_ELFMEM_NO_EH_FRAME = -5,	/* no PT_GNU_EH_FRAME */
	UW_ELFMEM_BAD_EH_FRAME_HDR = -6,/* PT_GNU_EH_FRAME outside every
					 * PT_LOAD, or not version 1 */
};

/* What uw_elfmem_scan() found.  Caller-owned; it is also the buffer the
 * build-id is copied into. */
struct uw_elfmem_info {
	/* Ready for find_tables: eh_frame_hdr = {NULL, p_vaddr, p_memsz};
	 * eh_frame = {NULL, address from the header's eh_frame_ptr, size up to
	 * the end of the PT_LOAD holding it} when the pointer's encoding is a
	 * plain one, else size 0 (the core then follows eh_frame_ptr itself);
	 * no debug_frame; bias; text_base 0 (no x86 compiler emits textrel);
	 * data_base = DT_PLTGOT (link-time) if PT_DYNAMIC has one, else 0;
	 * module NULL (the host names it). */
	struct uw_tables tables;
	enum uw_arch arch;		/* from the ELF class / machine */
	uint16_t e_type;		/* 2 ET_EXEC, 3 ET_DYN */
	uint64_t start;			/* the header's runtime address (input) */
	/* Runtime [start, end) of the PF_X PT_LOAD segments (their hull if
	 * there are several; ld makes one), p_memsz-sized; 0,0 if none. */
	uint64_t text_start, text_end;
	/* Runtime [start, end) of all PT_LOAD segments together. */
	uint64_t load_start, load_end;
	/* NT_GNU_BUILD_ID from a PT_NOTE segment; build_id_len = 0 if none.
	 * A longer id is truncated to UW_ELFMEM_BUILD_ID_MAX bytes (then
	 * build_id_len is the copied length). */
	uint32_t build_id_len;
	uint8_t build_id[UW_ELFMEM_BUILD_ID_MAX];
	/* UW_ELFMEM_UNREADABLE: runtime address of the read that failed. */
	uint64_t fail_addr;
	/* Target reads made (cost of this scan; tests and statistics). */
	uint32_t reads;
};

struct uw_elfmem_scratch;	/* below, with the ELF reader */

/* Describe the ELF object whose header is mapped at runtime address start.
 * ops->read_mem is the only callback used; scratch is the scan's working
 * memory (struct uw_elfmem_scratch).  Returns an enum uw_elfmem_status;
 * on UW_ELFMEM_OK *info is complete, otherwise only fail_addr
 * (UW_ELFMEM_UNREADABLE) and reads are meaningful.
 * Work: at most 1 + UW_ELFMEM_MAX_PHNUM + 1 + UW_ELFMEM_MAX_DYN / 8 +
 * UW_ELFMEM_MAX_NOTE_SEGS * UW_ELFMEM_MAX_NOTES * 3 target reads, each of
 * at most 128 bytes (a build-id: UW_ELFMEM_BUILD_ID_MAX). */
UW_API int uw_elfmem_scan(const struct uw_host_ops *ops, void *host,
			  uint64_t start, struct uw_elfmem_info *info,
			  struct uw_elfmem_scratch *scratch);

/* 1 if runtime pc lies in the object's executable segment(s). */
UW_API int uw_elfmem_covers(const struct uw_elfmem_info *info, uint64_t pc);

/* The stop reason a failed scan stands for: UW_STOP_MEMORY_UNREADABLE for
 * UW_ELFMEM_UNREADABLE, UW_STOP_NO_UNWIND_DATA for every other failure. */
UW_API enum uw_stop_reason uw_elfmem_stop_reason(int status);
UW_API const char *uw_elfmem_status_name(int status);

/* For find_tables after a failed scan: clears *out and, for
 * UW_ELFMEM_UNREADABLE, sets out->unreadable = info->fail_addr so that the
 * core reports UW_STOP_MEMORY_UNREADABLE there.  Returns -1 (find_tables'
 * failure value), so "return uw_elfmem_fail_tables(...)". */
UW_API int uw_elfmem_fail_tables(struct uw_tables *out, int status,
				 const struct uw_elfmem_info *info);

/* ------------------------------------------------------------------ */
/* The ELF reader, over a read callback                                */

/* Every reader of ELF headers in stap-unwind goes through these: this
 * file's uw_elfmem_scan (the unwinder, probe context, process memory), and
 * the runtime's VMA tracking, its symbol sizes (both process context, the
 * file) and its .dynsym names (probe context, process memory).  One header
 * validation, one program-header walk, one note walk, one PT_DYNAMIC walk;
 * what differs between a file and a mapped image is only where a
 * segment's bytes are (p_offset, or p_vaddr + bias), and the read itself,
 * which the caller supplies (LLVM libunwind's AddressSpace, in small).
 * Same rules as above: no allocation, every loop bounded, every read may
 * fail. */

/* Read len bytes at at (a runtime address or a file offset) into buf;
 * 0, or negative if not all of them could be read. */
typedef int (*uw_elf_read_fn)(void *ctx, uint64_t at, void *buf, uint32_t len);

struct uw_elf_src {
	uw_elf_read_fn read;
	void *ctx;
	/* Where file offset 0 is read: the runtime address of the mapped
	 * ELF header, or 0 for a file. */
	uint64_t base;
	/* 1: a file, a segment's bytes are at its p_offset; 0: a mapped
	 * image, they are at p_vaddr + bias. */
	int in_file;
	/* Set by the reader: runtime minus link-time address (mapped image;
	 * uw_elf_read_phdrs), the address width (uw_elf_read_header), the
	 * position of a read that failed, and the reads made. */
	uint64_t bias, mask, fail_at;
	uint32_t reads;
};

/* A mapped image at base, read through read(ctx, ...). */
UW_API void uw_elf_src_mem(struct uw_elf_src *src, uw_elf_read_fn read,
			   void *ctx, uint64_t base);
/* A file, read through read(ctx, ...). */
UW_API void uw_elf_src_file(struct uw_elf_src *src, uw_elf_read_fn read,
			    void *ctx);

/* The ELF header, validated: ELF magic (else UW_ELFMEM_NOT_ELF),
 * little-endian, ELFCLASS64 EM_X86_64 or ELFCLASS32 EM_386, ET_EXEC or
 * ET_DYN, program headers of the class's size, 1..UW_ELFMEM_MAX_PHNUM of
 * them, ending within UW_ELFMEM_MAX_PHDR_END (else UW_ELFMEM_UNSUPPORTED).
 * Section headers are not checked here (uw_elf_read_shdr does). */
struct uw_elf_hdr {
	int is64;
	enum uw_arch arch;
	uint16_t type;			/* 2 ET_EXEC, 3 ET_DYN */
	uint64_t phoff, shoff;
	uint32_t phentsize, phnum, shentsize, shnum;
};
UW_API int uw_elf_read_header(struct uw_elf_src *src, struct uw_elf_hdr *h);

/* One program header. */
struct uw_elf_seg {
	uint32_t type, flags;
	uint64_t offset, vaddr, filesz, memsz, align;
};

/* What the program headers say, from one walk: the PT_LOADs (in table
 * order), the first UW_ELFMEM_MAX_NOTE_SEGS PT_NOTEs, the first
 * PT_DYNAMIC and PT_GNU_EH_FRAME, and the extents.  Validated: no segment
 * wraps or has filesz > memsz, PT_LOADs are page-congruent, at most
 * UW_ELFMEM_MAX_LOADS (else UW_ELFMEM_UNSUPPORTED), the lowest maps file
 * offset 0 and holds the program headers (else UW_ELFMEM_BAD_HEADERS). */
struct uw_elf_phdrs {
	uint32_t nloads, nnotes;
	struct uw_elf_seg load[UW_ELFMEM_MAX_LOADS];
	struct uw_elf_seg note[UW_ELFMEM_MAX_NOTE_SEGS];
	struct uw_elf_seg dyn, eh_frame;	/* type 0: none */
	uint64_t link0;			/* link-time address of file offset 0 */
	uint64_t link_lo, link_hi;	/* link-time extent of the PT_LOADs */
	uint64_t text_lo, text_hi;	/* ... of the PF_X ones; lo >= hi: none */
};
/* For a mapped image it also sets src->bias (base - link0), and refuses an
 * ET_EXEC not at its link-time address (UW_ELFMEM_BAD_HEADERS). */
UW_API int uw_elf_read_phdrs(struct uw_elf_src *src, const struct uw_elf_hdr *h,
			     struct uw_elf_phdrs *p);

/* The PT_LOAD whose file bytes hold link-time [addr, addr + len), or NULL. */
UW_API const struct uw_elf_seg *uw_elf_load_of(const struct uw_elf_phdrs *p,
					       uint64_t addr, uint64_t len);
/* The file offset of link-time [addr, addr + len) into *off: 0, or -1 where
 * no PT_LOAD's file bytes hold it. */
UW_API int uw_elf_file_offset(const struct uw_elf_phdrs *p, uint64_t addr,
			      uint64_t len, uint64_t *off);
/* Where a segment's bytes are read: its p_offset in a file, its runtime
 * address in a mapped image. */
UW_API uint64_t uw_elf_seg_at(const struct uw_elf_src *src,
			      const struct uw_elf_seg *seg);

/* NT_GNU_BUILD_ID among the notes of [at, at + size) (a PT_NOTE segment
 * or SHT_NOTE section; align 4 or 8): copies at most max bytes of it into
 * id and sets *len.  1 found, 0 not (or malformed), < 0 a read failed.
 * Bound: UW_ELFMEM_MAX_NOTES notes. */
UW_API int uw_elf_note_build_id(struct uw_elf_src *src, uint64_t at,
				uint64_t size, uint64_t align, uint8_t *id,
				uint32_t max, uint32_t *len);
/* The build-id from the object's PT_NOTE segments (those in a PT_LOAD's
 * file bytes), as uw_elf_note_build_id. */
UW_API int uw_elf_build_id(struct uw_elf_src *src, const struct uw_elf_phdrs *p,
			   uint8_t *id, uint32_t max, uint32_t *len);

/* The entries of PT_DYNAMIC the runtime uses, as found there (d_val /
 * d_ptr, raw: see uw_elf_dyn_addr); the first of each tag, up to DT_NULL
 * or UW_ELFMEM_MAX_DYN entries.  A PT_DYNAMIC not in a PT_LOAD's file
 * bytes is skipped (all absent). */
enum uw_elf_dyn_tag {
	UW_ELF_DYN_PLTGOT, UW_ELF_DYN_HASH, UW_ELF_DYN_STRTAB,
	UW_ELF_DYN_SYMTAB, UW_ELF_DYN_STRSZ, UW_ELF_DYN_SYMENT,
	UW_ELF_DYN_GNU_HASH, UW_ELF_DYN_N
};
struct uw_elf_dyn {
	uint32_t present;		/* bit 1 << enum uw_elf_dyn_tag */
	uint64_t val[UW_ELF_DYN_N];
};
UW_API int uw_elf_read_dynamic(struct uw_elf_src *src, const struct uw_elf_hdr *h,
			       const struct uw_elf_phdrs *p, struct uw_elf_dyn *d);
/* A d_ptr value as a link-time address inside the object, in *link; 0 if
 * it is in neither extent.  glibc's ld.so rewrites d_ptr entries to
 * runtime addresses in place when the bias is not 0 (unless .dynamic is
 * read-only, as in the vdso; libgcc's unwinder relies on that too), an
 * image ld.so has not processed keeps link-time ones: so a value in the
 * runtime extent is runtime, else one in the link-time extent is
 * link-time. */
UW_API int uw_elf_dyn_addr(const struct uw_elf_src *src,
			   const struct uw_elf_phdrs *p, uint64_t val,
			   uint64_t *link);

/* Section header i (files): UW_ELFMEM_UNSUPPORTED if e_shentsize is not
 * the class's or i >= e_shnum. */
struct uw_elf_sec {
	uint32_t type, link;
	uint64_t offset, size, align;
};
UW_API int uw_elf_read_shdr(struct uw_elf_src *src, const struct uw_elf_hdr *h,
			    uint32_t i, struct uw_elf_sec *s);

/* The working memory of one uw_elfmem_scan, owned by the caller: the
 * reader's source and the headers' records, the program headers' alone
 * about 0.7 KiB.  The scan runs under uw_step in the kernel (find_tables,
 * probe context), where the whole chain has 1 KiB of stack
 * (unwind_core.h): the runtime keeps one in each unwind context, next to
 * the cursor.  Nothing in it outlives a scan. */
struct uw_elfmem_scratch {
	struct uw_elf_src src;		/* the target, through ops->read_mem */
	const struct uw_host_ops *ops;	/* (src's ctx is this scratch) */
	void *host;
	struct uw_elf_hdr hdr;
	struct uw_elf_phdrs phdrs;
	struct uw_elf_dyn dyn;
};

/* The same scan of the ELF file that file reads (uw_elf_src_file), where
 * there is time (process context, a tool): the tables it gives are those
 * the scan of any image of the file gives, at link-time addresses (bias
 * 0), so that a host can compile them once for every process that maps
 * the file (uw_compile_begin) and read their bytes at the file offsets of
 * *scratch's program headers (scratch->phdrs, uw_elf_load_of).  The same
 * statuses and work. */
UW_API int uw_elfmem_scan_file(const struct uw_elf_src *file,
			       struct uw_elfmem_info *info,
			       struct uw_elfmem_scratch *scratch);

/* ------------------------------------------------------------------ */
/* Per-object memo, owned by the caller (no allocation)                */

/* A few successful scans, keyed by (start, ident): start is the header's
 * runtime address, ident whatever the caller knows identifies the mapped
 * file (inode and device, a hash of the path, the vdso image pointer).
 * Only UW_ELFMEM_OK results are kept, so an object whose pages were not
 * resident is scanned again next time.  The caller must forget (or
 * re-init) entries when the mapping goes away (munmap, exec), and must
 * serialise access (e.g. one cache per CPU, or under a lock).  Replacement
 * is round-robin.  About UW_ELFMEM_CACHE_SLOTS * 300 bytes, plus a struct
 * uw_elfmem_scratch (912) for its scans: 3.3 KiB on x86_64. */
#ifndef UW_ELFMEM_CACHE_SLOTS
#define UW_ELFMEM_CACHE_SLOTS	8
#endif

struct uw_elfmem_cache {
	struct {
		uint64_t start, ident;
		int valid;
		struct uw_elfmem_info info;
	} slot[UW_ELFMEM_CACHE_SLOTS];
	uint32_t next;			/* slot replaced next */
	uint32_t hits, misses;		/* statistics */
	struct uw_elfmem_scratch scratch;	/* for a scan on a miss */
};

UW_API void uw_elfmem_cache_init(struct uw_elfmem_cache *cache);
/* Forget entries of the mapping at start (every entry if start == 0). */
UW_API void uw_elfmem_cache_forget(struct uw_elfmem_cache *cache,
				   uint64_t start);
/* The object at (start, ident): from the memo, or scanned into *result
 * (caller-provided) and memoized if the scan succeeds.  Returns the scan
 * status; *info points into the cache on UW_ELFMEM_OK and at result
 * otherwise (for the failed scan's fail_addr).  The pointer stays valid
 * until the next call on this cache. */
UW_API int uw_elfmem_lookup(struct uw_elfmem_cache *cache,
			    const struct uw_host_ops *ops, void *host,
			    uint64_t start, uint64_t ident,
			    struct uw_elfmem_info *result,
			    const struct uw_elfmem_info **info);

#endif /* UW_ELFMEM_H */
