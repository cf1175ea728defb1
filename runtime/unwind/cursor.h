/* The layout of the state the core keeps in caller-owned memory: the
 * cursor's (struct uw_cursor_state) and the row cache's (struct
 * uw_cache_state), with the rows, CIEs and FDEs they hold.  A caller
 * allocates a cursor or a row cache (unwind_core.h) and never reads
 * what is here; only the core's files do.  Included by unwind_core.h,
 * which a caller includes instead. */
#ifndef UW_CURSOR_H
#define UW_CURSOR_H

#ifndef UW_UNWIND_CORE_H
#error "include unwind_core.h, not cursor.h"
#endif

/* ------------------------------------------------------------------ */
/* Unwind rows (the result of parsing and executing CFI for one pc)    */

/* A register's rule.  Zero is "undefined", so a zeroed row loses every
 * register; the ABI's defaults (the caller's sp is the CFA, callee-saved
 * registers keep their value) are an initial row of their own
 * (uw_arch_desc.abi_row), which the CIE's instructions start from. */
enum uw_rule_kind {
	UW_RULE_UNDEFINED = 0,
	UW_RULE_SAME_VALUE,
	UW_RULE_OFFSET,			/* saved at cfa + offset */
	UW_RULE_VAL_OFFSET,		/* value is cfa + offset */
	UW_RULE_REGISTER,		/* saved in register reg */
	UW_RULE_EXPRESSION,		/* saved at address computed by expr */
	UW_RULE_VAL_EXPRESSION,		/* value computed by expr */
	UW_RULE_AT_REG_OFFSET,		/* saved at reg + offset: the expression
					 * "DW_OP_breg<reg> offset", compacted
					 * (struct uw_compact_row only) */
};

/* A DWARF expression block inside the CFI section of the row's FDE. */
struct uw_block {
	uint64_t pos;		/* offset in the section */
	uint64_t len;
};

struct uw_reg_rule {
	uint8_t kind;		/* enum uw_rule_kind */
	uint8_t reg;		/* UW_RULE_REGISTER */
	int64_t offset;		/* UW_RULE_OFFSET / VAL_OFFSET */
	struct uw_block expr;	/* UW_RULE_EXPRESSION / VAL_EXPRESSION */
};

enum uw_cfa_kind {
	UW_CFA_UNSET = 0,
	UW_CFA_REG_OFFSET,
	UW_CFA_EXPRESSION,
	UW_CFA_AT_REG_OFFSET,	/* [reg + offset]: the expression
				 * "DW_OP_breg<reg> offset; DW_OP_deref",
				 * compacted (struct uw_compact_row only) */
};

struct uw_row {
	uint8_t cfa_kind;	/* enum uw_cfa_kind */
	uint8_t cfa_reg;
	int64_t cfa_offset;
	struct uw_block cfa_expr;
	struct uw_reg_rule rule[UW_NREGS];
};

/* The row one step applies, in the form uw_step's one interpreter reads
 * (step.c): the rules that only keep or lose a register folded into two
 * masks, DW_OP_breg expressions decoded into AT_REG_OFFSET rules, and the
 * save slots' extent for one read.  Made from a parsed row (row.c:
 * uw_row_compact), from the ABI's frame-pointer row, or kept in the row
 * cache.  A row with an expression of any other shape keeps it in the
 * parsed row (cursor state.row), which is then evaluated in place: such a row
 * is never cached ("general"). */
#define UW_ROW_MAX_SPAN 256	/* bytes of save slots read at once (the
				 * x86_64 sigcontext: 17 slots, 136) */
#if UW_STACK_WINDOW < UW_ROW_MAX_SPAN
#error "UW_STACK_WINDOW must hold a row's span (UW_ROW_MAX_SPAN)"
#endif
#define UW_STACK_PAGE 4096	/* the smallest page: a window never
				 * crosses into a page its slots do not
				 * touch */

struct uw_compact_row {
	uint64_t fde_begin, fde_end;	/* link-time, for UW_TR_FDE and stops */
	int64_t cfa_offset;
	int64_t offset[UW_NREGS];	/* OFFSET, VAL_OFFSET, AT_REG_OFFSET */
	uint32_t keep;			/* registers the caller keeps (same
					 * value), if defined here */
	uint32_t is_cfa;		/* registers whose value is the CFA
					 * (val_offset 0: the sp, by the ABI) */
	uint32_t compute;		/* registers with another rule, kind[] */
	uint32_t span_len;		/* the memory slots relative to
					 * span_base lie in [base + span_lo,
					 * base + span_lo + span_len): read at
					 * once; 0 = not so */
	uint32_t in_span;		/* the registers whose slots the span
					 * holds: all of them (most rows: every
					 * saved register), so need no check */
	int32_t span_lo;
	uint8_t span_base;		/* UW_NREGS = the CFA (OFFSET slots),
					 * else this register (AT_REG_OFFSET) */
	uint8_t kind[UW_NREGS];		/* enum uw_rule_kind of compute's */
	uint8_t reg[UW_NREGS];		/* REGISTER source, AT_REG_OFFSET base */
	uint8_t cfa_kind;		/* enum uw_cfa_kind */
	uint8_t cfa_reg;
	uint8_t ra_reg;			/* the return-address column */
	uint8_t signal;			/* the CIE says: a signal frame */
	uint8_t has_caller;		/* ra_reg is a register with a rule
					 * (else: the outermost frame) */
};

/* A parsed CIE (only what unwinding needs). */
struct uw_cie_info {
	uint64_t pos;		/* offset of the CIE in its section */
	uint64_t insn_pos, insn_end;	/* initial instructions */
	uint64_t code_align;
	int64_t data_align;
	uint32_t ra_reg;
	uint8_t version;
	uint8_t fde_enc;	/* DW_EH_PE_* of FDE addresses */
	uint8_t lsda_enc;
	uint8_t has_z;		/* augmentation data length present */
	uint8_t signal;		/* 'S': frames are signal trampolines */
	uint8_t addr_size;
	uint8_t seg_size;
	uint8_t is_debug_frame;
};

struct uw_fde_info {
	uint64_t pos;
	uint64_t pc_begin, pc_end;	/* link-time, [begin, end) */
	uint64_t insn_pos, insn_end;
};

/* What names a parsed CIE: its section, its place in it, and, in the row
 * cache, the tag of its tables (else 0). */
struct uw_cie_key {
	uint64_t tag;
	uint64_t sec_data, sec_addr, bias;
	uint64_t pos;			/* offset of the CIE in its section */
	uint8_t is_debug_frame;
	uint8_t valid;
};

/* A parsed CIE and the row its initial instructions make, kept by the
 * cursor for one unwind, or by the row cache across unwinds (row.c). */
struct uw_cie_entry {
	struct uw_cie_info cie;
	struct uw_row row;		/* after the initial insns */
	struct uw_compact_row compact_row;	/* row, compacted */
	uint32_t general;		/* registers of compact_row that are general
					 * (uw_row_compact) */
	uint32_t insns;			/* initial insns executed */
	uint8_t row_valid;		/* no advance in the CIE: row is
					 * the same for every FDE */
};

struct uw_arch_desc;		/* per-architecture facts, arch.c */

/* The pcs [lo, hi). */
struct uw_pc_range {
	uint64_t lo, hi;
};

/* ------------------------------------------------------------------ */
/* Row cache (optional, caller-owned, kept across unwinds)             */

/* A cache entry: the compact row of one lookup pc in one set of tables.
 * Only rows without general expressions are kept (of the DWARF
 * expressions, the shapes of signal-trampoline CFI, glibc's __restore_rt:
 * "DW_OP_breg<r> off" rules and a "DW_OP_breg<r> off; DW_OP_deref" CFA,
 * read from a local section); the others are recomputed every time.
 * The tables are named by their tag (struct uw_cache_tables), so that a
 * step compares two words, not the tables' identity. */
struct uw_cache_key {
	uint64_t pc;			/* runtime lookup pc */
	uint64_t tag;			/* the tables' tag; 0 = empty entry */
};

struct uw_cache_entry {
	struct uw_cache_key key;
	struct uw_compact_row row;
};

/* The identity of one set of tables, as find_tables returned them: what
 * names their CFI bytes (see Invalidation below), and the architecture
 * the rows were computed for. */
struct uw_cache_tables_key {
	uint64_t bias, text_base, data_base, ident;
	uint64_t sec[3][3];		/* eh_frame_hdr, eh_frame, debug_frame:
					 * (uintptr_t)data, addr, size */
	uint64_t arch;			/* enum uw_arch */
};

/* The tables the cache holds rows of, each with its tag: the tag is
 * looked up once for each find_tables (uw_step keeps tables while its
 * frames stay in them), where the identity was once compared at every
 * cached step.  A set of tables that comes back after its slot was taken
 * gets a new tag, and the rows kept under the old one are never found
 * again: tags come from a 64-bit count that is never reset, so none is
 * given twice.  UW_CACHE_TABLES slots in sets of UW_CACHE_TABLES_WAYS by
 * a hash of the identity; the slot used least recently is taken. */
#ifndef UW_CACHE_TABLES
#define UW_CACHE_TABLES 64
#endif
#define UW_CACHE_TABLES_WAYS 4
#if UW_CACHE_TABLES < UW_CACHE_TABLES_WAYS || \
	(UW_CACHE_TABLES & (UW_CACHE_TABLES - 1))
#error "UW_CACHE_TABLES must be a power of two, at least UW_CACHE_TABLES_WAYS"
#endif
struct uw_cache_tables {
	uint64_t tag;			/* 0 = empty slot */
	uint64_t used;			/* uw_cache.clock at its last lookup */
};	/* its key: in uw_cache_state.tables_key, by the same index */

/* Rows kept by the pcs they hold for (uw_cache_state.ranges).  A sampled pc is
 * anywhere in a hot loop, and each new one would miss a cache keyed by
 * pc; one row usually holds for the whole loop.  Searched in full on a
 * miss of the pc-keyed entries, before a row is parsed, by their pcs
 * alone first (uw_cache.range_pcs, one small array); a return address
 * found there is given its pc-keyed entry too.
 * Size: a sampler over 5 processes (bench/profile-parts.stp, 2 runs of
 * each size in one boot) parsed 0.17-0.24 rows a sample of the mix
 * programs with 32, 0.10-0.13 with 128, 0.10-0.13 with 512; python3 1.3-1.7,
 * 1.1-1.2, 0.9-1.0.  An entry is 240 bytes. */
#ifndef UW_CACHE_RANGES
#define UW_CACHE_RANGES 128
#endif

/* Parsed CIEs and their rows, kept under their tables' tag (struct
 * uw_cie_key) for the parses of later unwinds: a sampler's parses are
 * mostly of pcs never seen before, in modules seen often, whose few CIEs
 * (2 or 3 in each of libc, ld.so, python3, sort, gzip) it would otherwise
 * parse, run and compact again in each unwind.  Replaced in turn.  An
 * entry is 872 bytes and its key 48.  16 are enough for a sampler over 5
 * processes and their libraries (bench/profile-parts.stp counts the CIEs
 * parsed; the figures are in bench/README.md). */
#ifndef UW_CACHE_CIES
#define UW_CACHE_CIES 16
#endif

/* Tables kept across unwinds (uw_cache.space; tables.c): those
 * find_tables gave with a pc range, each with the space it was found in
 * and its row cache tag.  A sampler walks a few processes in turn: 16
 * hold a program, libc and ld.so of each of 5 (bench/profile-parts.stp
 * counts the find_tables calls a walk makes).  The keys a lookup scans
 * are apart from the tables, in 8 cache lines. */
#ifndef UW_CACHE_KEPT_TABLES
#define UW_CACHE_KEPT_TABLES 16
#endif
struct uw_kept_tables_key {
	uint64_t space;			/* the space they were found in */
	uint64_t pc_lo, pc_hi;		/* their uw_tables.pc_lo, pc_hi */
	uint32_t arch;			/* enum uw_arch of the unwind */
};

struct uw_kept_tables_entry {
	struct uw_tables tables;
	uint64_t tag;			/* their uw_cache_tables tag, or 0 */
	uint32_t slot;			/* uw_cache_state.tables[slot] had the
					 * tag */
};

#if UW_CACHE_KEPT_TABLES > 32
#error "UW_CACHE_KEPT_TABLES must fit uw_kept_tables.mask"
#endif
struct uw_kept_tables {
	uint32_t count;			/* key[0, count) */
	uint32_t next;			/* the one replaced next */
	/* The keys of space mask_space, bit i for key[i]: a lookup tries
	 * only those, and an unwind of a space with none kept tries none. */
	uint64_t mask_space;
	uint32_t mask;
	struct uw_kept_tables_key key[UW_CACHE_KEPT_TABLES];
	struct uw_kept_tables_entry entry[UW_CACHE_KEPT_TABLES];
};

/* The callee-saved registers a compiled row's slots name, at most
 * (uw_internal.h, "Compiled rows"). */
#define UW_COMPILED_SLOTS 6

/* A compiled row unpacked for its apply (step.c; compile.c:
 * uw_compiled_unpack): what the step needs of it, as masks and offsets. */
struct uw_compiled_unpacked {
	uint32_t rule;			/* the compiled row; 0 = none here */
	uint8_t arch;			/* enum uw_arch it is unpacked for */
	uint8_t base;			/* the CFA's register */
	uint8_t words;			/* words below the CFA its slots span */
	uint8_t nsaved;			/* reg[] and at[] entries */
	uint32_t cfa_offset;		/* bytes from base to the CFA */
	uint32_t keep;			/* registers kept, if defined */
	uint32_t defined;		/* registers given a value: the sp,
					 * the return address and reg[] */
	uint8_t reg[UW_COMPILED_SLOTS];	/* reg[i] is the word at[i] bytes */
	uint8_t at[UW_COMPILED_SLOTS];	/* into the span */
};

/* Compiled rows unpacked, by their rule (uw_cache_state.unpacked): a
 * rule means the same in every table of an architecture, so what is
 * kept never goes stale. */
#ifndef UW_CACHE_UNPACKED
#define UW_CACHE_UNPACKED 128
#endif

/* Compiled rows by the lookup pc a step found them for, unpacked
 * (uw_cache_state.compiled_pcs): a warm step's row with neither the
 * compiled table's binary search nor the unpacking.  Keyed as the row
 * cache's entries are, by the pc and the tables' tag (so new tags lose
 * them all at once); one entry per slot, by a hash of the pc.  An entry
 * is 48 bytes.  A pc whose table word is not a compact row (a full row's
 * index, the mark for the parse) keeps that word alone (row.rule). */
#ifndef UW_CACHE_COMPILED_PCS_BITS
#define UW_CACHE_COMPILED_PCS_BITS 7
#endif
#define UW_CACHE_COMPILED_PCS (1u << UW_CACHE_COMPILED_PCS_BITS)
struct uw_compiled_pc_entry {
	struct uw_cache_key key;
	struct uw_compiled_unpacked row;
};

/* The row cache's state (struct uw_cache, unwind_core.h; rowcache.c). */
struct uw_cache_state {
	struct uw_cache_entry *entries;
	uint32_t mask;			/* number of entries - 1 */
	/* Here, first, what every unwind reads or writes (the clock, at
	 * each use of a tag): under TCG each other page costs a TLB refill
	 * after a context switch. */
	uint64_t tag_next;		/* the last tag given */
	uint64_t clock;			/* counts tag lookups */
	struct uw_kept_tables kept;
	/* The slots of the tags, apart from their keys (below), which
	 * only find_tables' answers compare: the kept tables' use of a
	 * tag reads and writes its slot alone. */
	struct uw_cache_tables tables[UW_CACHE_TABLES];
	struct uw_compiled_unpacked unpacked[UW_CACHE_UNPACKED];
	struct uw_compiled_pc_entry compiled_pcs[UW_CACHE_COMPILED_PCS];
	struct uw_cache_tables_key tables_key[UW_CACHE_TABLES];
	struct uw_cache_entry ranges[UW_CACHE_RANGES];
	/* The lookup pcs ranges[i]'s row holds for, [lo, hi): empty when
	 * lo == hi. */
	struct uw_pc_range range_pcs[UW_CACHE_RANGES];
	uint32_t range_count;		/* ranges[0, range_count) kept since
					 * the last clear: what a search reads */
	uint32_t range_next;		/* round-robin victim */
	uint32_t range_last;		/* the last one kept or hit */
	struct uw_cie_key cie_keys[UW_CACHE_CIES];	/* keys first: a
							 * search reads them
							 * alone */
	struct uw_cie_entry cies[UW_CACHE_CIES];
	uint32_t cie_next;		/* round-robin victim */
};

/* Parsed CIEs the cursor keeps for one unwind, of tables whose rows the
 * row cache does not keep (else it keeps them: UW_CACHE_CIES). */
#define UW_CURSOR_CIES 4

/* A caller frame, as a step's method finds it (private to step.c; in the
 * cursor so that its registers are not on the kernel stack). */
struct uw_step_frame {
	struct uw_regs *regs;	/* the caller's registers (pc in ra_reg):
				 * the one of state.regs that is not this
				 * frame's, so a step's success costs no
				 * copy */
	uint64_t cfa;		/* this frame's CFA */
	enum uw_how how;
	int signal;		/* this frame is a signal frame: the caller's
				 * pc is exact, and its stack may differ */
};

/* The sorted table of an .eh_frame_hdr, as the search reads it (cfi.c). */
struct uw_cfi_hdr_table {
	uint64_t table_pos;	/* offset of the table in the header */
	uint64_t count;		/* its entries */
	uint32_t esize;		/* bytes of each of an entry's two fields */
	uint8_t table_enc;	/* DW_EH_PE_* of the fields */
};

/* The most compact rules one table unpacks (uw_compiled_table.unpacked);
 * rows of rules past them keep the rule itself (uw_internal.h, "Compiled
 * rows").  Real objects have a few hundred: libLLVM's 860,015 compact
 * rows say 974. */
#ifndef UW_COMPILE_UNPACKED_MAX
#define UW_COMPILE_UNPACKED_MAX 2048
#endif
#if UW_COMPILE_UNPACKED_MAX > 65536
#error "UW_COMPILE_UNPACKED_MAX: an index is 16 bits in the compiler's hash"
#endif
#define UW_COMPILE_UNPACKED_SLOTS (2 * UW_COMPILE_UNPACKED_MAX)

/* A compile's state (struct uw_compiler, unwind_core.h; compile.c). */
struct uw_compiler_state {
	const struct uw_arch_desc *arch_desc;
	struct uw_tables tables;	/* the tables compiled */
	struct uw_compiled_row *out;	/* NULL: rows counted only */
	uint32_t max;
	struct uw_compact_row *full;	/* the full rows, with out */
	uint32_t max_full;
	struct uw_compiled_unpacked *unpacked;	/* the rules unpacked, with
						 * out */
	uint32_t max_unpacked;
	uint8_t by_index;		/* searched by tables.index, else by
					 * the header's table, hdr */
	uint8_t opened;			/* hdr read (the first run) */
	uint8_t done;			/* every FDE compiled */
	uint8_t any;			/* a row made: base is set */
	struct uw_cfi_hdr_table hdr;
	uint64_t next;			/* the search's entry compiled next */
	uint64_t total;			/* the search's entries */
	uint64_t base;			/* link-time pc of the first row */
	uint64_t at;			/* link-time pc the rows reach */
	uint32_t gap;			/* the rule of pcs no FDE serves */
	uint32_t last_rule;		/* the last row's */
	uint32_t last_start;		/* ... and its start - base */
	/* The compact rules met so far, by a hash of the rule and its base
	 * (open addressing; 0: a free slot, as no compact rule is 0), with
	 * their index among the unpacked ones.  A base is 0 for the
	 * rule's own register, else the register's number + 1
	 * (uw_compile_unpacked). */
	uint32_t unpacked_rule[UW_COMPILE_UNPACKED_SLOTS];
	uint16_t unpacked_index[UW_COMPILE_UNPACKED_SLOTS];
	uint8_t unpacked_base[UW_COMPILE_UNPACKED_SLOTS];
};

/* The cursor's state (struct uw_cursor, unwind_core.h).  The cursor is
 * over 12 KiB on x86_64 (UW_CURSOR_CIES CIEs with their rows, parsed and
 * compacted): never on a kernel stack. */
struct uw_cursor_state {
	const struct uw_arch_desc *arch_desc;	/* per-arch facts (arch.c) */
	const struct uw_host_ops *ops;
	void *host;
	/* ops->trace, or NULL: tested at every traced event, so one load */
	void (*trace)(void *host, enum uw_trace_event ev, uint64_t a, uint64_t b);
	/* What uw_init resets and what a step that finds its row in a
	 * compiled table or the row cache uses come first, in about 2 KiB:
	 * under TCG each page a probe touches after a context switch costs
	 * a TLB refill.  The parse's state follows. */
	struct uw_regs regs[2];		/* this frame's and its caller's, as
					 * a step builds them */
	struct uw_step_frame frame;	/* the caller frame uw_step builds */
	struct uw_compiled_unpacked unpacked;	/* a compiled row unpacked,
						 * without a row cache */
	/* This step's tables, and the reusable ones before them
	 * (prev_reusable and prev_tag as they were): looked at before
	 * find_tables (tables.c).  Each is one of tables_storage, so
	 * trading them costs no copy. */
	struct uw_tables *tables, *prev;
	struct uw_tables tables_storage[2];
	uint8_t tables_for_pc;		/* tables (or module and unreadable of
					 * a failed lookup) describe this
					 * step's pc */
	uint8_t tables_reusable;	/* a successful lookup with a pc
					 * range: see uw_tables.pc_lo */
	uint8_t prev_reusable;
	int8_t fast_end;		/* why uw_step_fast_many's frames
					 * ended (step.c): kept here, not in
					 * uw_step_many's frame, which the
					 * kernel stack budget counts */
	uint32_t fast_rule;		/* ... and the compiled table's word
					 * of the frame they ended at */
	uint64_t tables_tag;		/* their tag in the row cache
					 * (uw_cache_tables), 0 if their rows
					 * are not cached: no cache, or tables
					 * that do not name their CFI
					 * (uw_rowcache_names_cfi) */
	uint64_t prev_tag;
	/* The keys of the parsed CIEs below (cies), with the rest of what
	 * uw_init resets: here, in the part every walk touches, not beside
	 * the entries 8 KiB on, which only a parse reads. */
	struct uw_cie_key cie_keys[UW_CURSOR_CIES];
	uint32_t cie_next;		/* round-robin victim */
	struct uw_cie_entry *cie_entry;	/* the entry of cie, in cies[] or
					 * the row cache's */
	const struct uw_row *row_base;	/* the parsed row's base: see row */
	uint32_t row_changed;		/* ... and the rules its FDE changed */
	const struct uw_section *section;	/* the section of cie and fde */
	/* A window on a target-resident CFI section (mem.c):
	 * [section_window_addr, + section_window_len). */
	uint8_t section_window[64];
	uint64_t section_window_addr;
	uint32_t section_window_len;
	/* A window on the stack: [window_addr, window_addr + window_len),
	 * read at once for one frame's save slots, and serving those of the
	 * frames above it (mem.c: uw_stack_slots; at most stack_window
	 * bytes).  Valid for the whole unwind. */
	uint8_t window[UW_STACK_WINDOW + 8];	/* 8 past the end: step.c
						 * loads every slot as 8
						 * bytes, a 4-byte one at
						 * the end too */
	uint64_t window_addr;
	uint32_t window_len;
	struct uw_compact_row compact_row;	/* the row parsed, compacted:
						 * what the step applies */
	/* The link-time pcs for which the FDE search finds the FDE it found
	 * (cfi.c), and of those, the ones row holds for (row.c): what the
	 * row cache's ranges keep. */
	struct uw_pc_range fde_pcs;
	struct uw_pc_range row_pcs;
	/* The parse's state (cfi.c, row.c, expr.c). */
	struct uw_cie_info cie;
	struct uw_fde_info fde;
	/* The row parsed for this step's pc, as its CIE's row (row_base,
	 * above) and the rules its FDE changed: the CFA's rule, and the
	 * registers in row_changed (uw_row_rule).  So a parse copies no whole row, and
	 * compacts only those registers (row.c). */
	struct uw_row row;
	struct uw_row cie_row;		/* what the FDE's DW_CFA_restore
					 * restores to, when the CIE's row
					 * cannot be kept with it (row_base is
					 * then the ABI's) */
	/* DW_CFA_remember_state's stack: the CFA's rule and those of the
	 * changed registers. */
	struct uw_row remembered[UW_MAX_REMEMBER];
	uint32_t remembered_changed[UW_MAX_REMEMBER];
	uint64_t stack[UW_MAX_EXPR_STACK];	/* the expression stack */
	/* Parsed CIEs and their initial rows (keys: above), for the whole
	 * unwind, of tables whose rows the row cache does not keep (else the
	 * cache keeps them, uw_cache_state.cies). */
	struct uw_cie_entry cies[UW_CURSOR_CIES];
};

#endif /* UW_CURSOR_H */
