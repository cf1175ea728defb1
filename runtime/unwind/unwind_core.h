/* stap-unwind: freestanding DWARF CFI unwinder core, public interface.
 *
 * The core walks a user-space stack of an x86_64 or i386 process, one frame
 * per uw_step().  It never allocates, never recurses, and every loop has a
 * fixed bound (see "Work bounds" below), because it runs in probe context
 * inside a kernel module.  It knows nothing about where the memory it reads
 * comes from: every target read and every "which module covers this pc"
 * question goes through the host callback table (struct uw_host_ops), the
 * way elfutils' libdwfl separates the unwinder from live processes, cores
 * and snapshots.
 *
 * Addresses: a module's CFI describes its *link-time* address space.  The
 * host says where the module is loaded with a bias:
 *     runtime address = link-time address + bias.
 * Register values, the pc, the CFA and target memory addresses are runtime
 * addresses.
 *
 * Inclusion into one translation unit (the SystemTap runtime, the kernel
 * module): define UW_SINGLE_TU and #include "unwind_all.c"; then every
 * function of the core is static.  Built as separate objects (user-space
 * libraries libuwcore64.a / libuwcore32.a), the API functions below are
 * ordinary external functions.
 */
/* Layers.  A file of the core calls only functions of lower layers (or
 * its own), so it can be read knowing only what lies below it.  The unit
 * suite checks this list against the calls the objects really make
 * (testsuite/unit.core/structure.exp, with nm):
 *
 *   0  stop.c      the failure record (uw_fail) and the stop reasons' names
 *   1  mem.c       every read: CFI sections, LEB128, DW_EH_PE, target words
 *   1  rowcache.c  compact rows kept across unwinds
 *   2  cfi.c       finding and parsing a CIE and FDE for a pc
 *   2  row.c       executing call frame instructions into a row; compacting
 *   2  expr.c      the DWARF expression stack machine
 *   2  arch.c      per-arch facts: ABI rows, pt_regs, signal trampolines
 *   2  nocfi.c     code without CFI: the caller from its instructions
 *   2  elfmem.c    the one ELF reader; an object's tables from its headers
 *   3  step.c      uw_init/uw_step: the methods in order, the one row
 *                  interpreter
 *
 * Headers: types.h, dwarf.h (DWARF numbers), unwind_core.h (this, the
 * public interface), x86_64.h and i386.h (per-arch numbers, with their
 * sources), uw_internal.h (declarations shared inside the core).
 */
#ifndef UW_UNWIND_CORE_H
#define UW_UNWIND_CORE_H

#include "types.h"

/* UW_SINGLE_TU (unwind_all.c): one translation unit, every function
 * internal; with UW_SINGLE_TU_API as well, the API keeps external linkage
 * (a user-space program built the way the runtime builds the core: the
 * benchmark). */
#if defined(UW_SINGLE_TU) && !defined(UW_SINGLE_TU_API)
#define UW_API static __attribute__((unused))
#else
#define UW_API
#endif

/* ------------------------------------------------------------------ */
/* Architectures and registers                                         */

enum uw_arch {
	UW_ARCH_X86_64 = 0,	/* 64-bit process, 8-byte addresses */
	UW_ARCH_I386 = 1,	/* 32-bit process, 4-byte addresses, wraps at 2^32 */
};

/* Registers are indexed by DWARF register number (x86_64.h, i386.h).
 * 17 covers x86_64 rax..r15 plus the return-address column 16; i386 uses
 * 0..8 (eip = 8).  CFI rules for higher numbers (SSE, x87) are ignored. */
#define UW_NREGS 17

struct uw_regs {
	uint64_t val[UW_NREGS];
	uint32_t defined;	/* bit n set: val[n] is known.  An undefined
				 * register is unknown, never zero. */
};

#define UW_REG_BIT(n) ((uint32_t)1 << (n))

/* ------------------------------------------------------------------ */
/* Unwind tables of one module                                         */

/* One CFI section.  If data != NULL the bytes are in local memory (e.g. read
 * from the ELF file); if data == NULL they are read from the target through
 * host->read_mem at (addr + bias + offset).  addr is the link-time address
 * of the section's first byte; pc-relative encodings are relative to it. */
struct uw_section {
	const uint8_t *data;
	uint64_t addr;
	uint64_t size;		/* 0 = section absent.  See uw_tables.eh_frame. */
};

/* One FDE of a sorted index (uw_index_build). */
struct uw_index_entry {
	uint64_t pc_begin;	/* link-time, the FDE's first pc */
	uint32_t pos;		/* offset of the FDE in its section */
	uint8_t in_debug_frame;	/* its section: 1 .debug_frame, 0 .eh_frame */
};

struct uw_tables {
	/* Optional: every FDE of eh_frame and debug_frame, sorted by
	 * pc_begin (uw_index_build).  When present it is the only lookup:
	 * eh_frame_hdr is not read and nothing is scanned.  For tables
	 * without a usable search table (no .eh_frame_hdr, .debug_frame),
	 * whose linear scan costs more than a probe's work budget allows. */
	const struct uw_index_entry *index;
	uint32_t index_count;
	struct uw_section eh_frame_hdr;	/* optional: binary search table */
	/* .eh_frame: if size == 0 but eh_frame_hdr is present, the section
	 * start is taken from the header's eh_frame_ptr and its end is
	 * unknown: entries are then bounded only by their own lengths and by
	 * what the host can read (useful when only PT_GNU_EH_FRAME is known). */
	struct uw_section eh_frame;
	struct uw_section debug_frame;	/* optional, searched linearly */
	uint64_t bias;			/* runtime = link-time + bias */
	uint64_t text_base;		/* link-time, for DW_EH_PE_textrel; 0 = unknown */
	uint64_t data_base;		/* link-time, for DW_EH_PE_datarel in .eh_frame
					 * (i386: the GOT); 0 = unknown */
	const char *module;		/* name for stop reports; may be NULL */
	/* Set by a find_tables that fails (returns < 0) only because target
	 * memory could not be read (e.g. the module's ELF headers are in a
	 * page that is not resident, see elfmem.h): the runtime address of
	 * the failed read.  The step then stops with
	 * UW_STOP_MEMORY_UNREADABLE at that address (and module) instead of
	 * UW_STOP_NO_UNWIND_DATA, unless a fallback unwinds the frame.
	 * 0 = not that kind of failure.  Ignored when find_tables succeeds. */
	uint64_t unreadable;
	/* Optional: the runtime pcs [pc_lo, pc_hi) that these same tables
	 * cover (e.g. the module's mapped text).  While the next frames' pcs
	 * lie there, uw_step reuses the tables without calling find_tables
	 * again, for the rest of the unwind; it keeps the last two such
	 * tables (a program's frames and libc's alternate).  pc_lo = pc_hi
	 * = 0: ask for every frame. */
	uint64_t pc_lo, pc_hi;
	/* Optional, for the row cache: nonzero names the CFI bytes these
	 * sections hold, where their data pointers, addresses and sizes do
	 * not (tables read from target memory: another object mapped later
	 * at the same addresses has the same key otherwise).  E.g. a hash of
	 * the object's build-id, where it is mapped and the address space.
	 * 0: the sections alone identify the tables (local buffers). */
	uint64_t ident;
};

/* ------------------------------------------------------------------ */
/* Host interface                                                      */

enum uw_trace_event {
	UW_TR_STEP,		/* a = pc, b = depth */
	UW_TR_TABLES,		/* a = bias, b = lookup pc */
	UW_TR_FDE,		/* a = link-time pc_begin, b = link-time pc_end */
	UW_TR_CFA,		/* a = cfa, b = 0 reg+offset / 1 expression */
	UW_TR_REG_LOST,		/* a = regno, b = address that could not be read */
	UW_TR_SIGFRAME,		/* a = pc of trampoline, b = sigcontext address */
	UW_TR_FP_FALLBACK,	/* a = pc, b = frame pointer value */
	UW_TR_NOCFI,		/* a = pc, b = enum uw_how (NOCFI_*): the
				 * caller found from the instructions at pc */
	UW_TR_STOP,		/* a = reason, b = pc */
};

struct uw_host_ops {
	/* Copy len bytes of target memory at runtime address addr into buf.
	 * 0 = ok, < 0 = unreadable (buf contents then undefined).  Must not
	 * fault; may sleep if the caller's context allows it. */
	int (*read_mem)(void *host, uint64_t addr, void *buf, uint32_t len);
	/* Describe the module covering runtime address pc.  0 = ok, and
	 * every field of *out is set (zero what is not known);
	 * < 0 = no module / no tables.  Sections with data == NULL must stay
	 * readable through read_mem for the duration of uw_step. */
	int (*find_tables)(void *host, uint64_t pc, struct uw_tables *out);
	/* Optional (may be NULL): observation hook for debugging and tests. */
	void (*trace)(void *host, enum uw_trace_event ev, uint64_t a, uint64_t b);
};

/* ------------------------------------------------------------------ */
/* Stop reasons                                                        */

/* The one table of stop reasons: it generates the enum (the numbers are
 * pinned: scripts see them through ubacktrace_stop_code()), the names
 * (uw_stop_reason_name), the script ids (uw_stop_reason_id: no spaces) and
 * what stop.addr means for each (uw_stop_reason_detail: the key printed
 * before it, and whether it is an address or a count).  The tapset's
 * documentation table (tapset/ubacktrace_stop.stp) is checked against it
 * by the unit suite.
 *
 *  X(NAME, code, name, script id, detail key, detail form) */
#define UW_STOP_REASONS(X)						\
	X(NONE,            0, "none",              "none",               NULL,     NONE) \
	/* RA column undefined: the outermost frame (or a caller pc of 0) */ \
	X(END_OF_STACK,    1, "end of stack",      "end_of_stack",       NULL,     NONE) \
	/* no module or no FDE covers pc; addr = the pc looked up */	\
	X(NO_UNWIND_DATA,  2, "no unwind data",    "no_unwind_data",     "addr",   HEX) \
	/* a target read failed at addr */				\
	X(MEMORY_UNREADABLE, 3, "memory unreadable", "memory_unreadable", "addr",  HEX) \
	/* a needed register is undefined; addr = its DWARF number */	\
	X(REG_UNDEFINED,   4, "register undefined", "reg_undefined",     "reg",    DEC) \
	/* malformed CFI or DWARF expression; addr = link-time address */ \
	X(BAD_CFI,         5, "bad CFI",           "bad_cfi",            "cfi",    HEX) \
	/* cursor->max_depth frames reached; addr = the depth */	\
	X(DEPTH_LIMIT,     6, "depth limit",       "depth_limit",        "frames", DEC) \
	/* the CFA did not grow; addr = the new CFA */			\
	X(NO_PROGRESS,     7, "no progress",       "no_progress",        "cfa",    HEX) \
	/* uw_init: bad arch, no host, no pc */				\
	X(BAD_ARGUMENT,    8, "bad argument",      "bad_argument",       NULL,     NONE) \
	/* the caller's pc lies below cursor->min_code, or in no module \
	 * and no call precedes it: the frame's CFI (or fallback) is	\
	 * wrong; addr = that pc, which is not reported as a frame */	\
	X(BAD_RETURN_ADDRESS, 9, "bad return address", "bad_return_address", "ra", HEX) \
	/* the unwind's work budget (cursor->max_work) is spent; addr = \
	 * the units spent */						\
	X(WORK_LIMIT,     10, "work limit",        "work_limit",         "units",  DEC)

enum uw_stop_reason {
#define UW_STOP_ENUM(name, code, text, id, key, form) UW_STOP_##name = code,
	UW_STOP_REASONS(UW_STOP_ENUM)
#undef UW_STOP_ENUM
};

/* How stop.addr is shown (uw_stop_reason_detail). */
enum uw_stop_detail {
	UW_STOP_DETAIL_NONE = 0,	/* not meaningful */
	UW_STOP_DETAIL_HEX,		/* an address */
	UW_STOP_DETAIL_DEC,		/* a number (register, frame count) */
};

struct uw_stop {
	enum uw_stop_reason reason;
	uint64_t pc;		/* pc of the frame that could not be unwound */
	uint64_t addr;		/* reason-specific, see UW_STOP_REASONS */
	const char *module;	/* module of pc if known, else NULL */
};

/* "end of stack"; "unknown" for a number not in the table. */
UW_API const char *uw_stop_reason_name(enum uw_stop_reason reason);
/* "end_of_stack"; "unknown" for a number not in the table. */
UW_API const char *uw_stop_reason_id(enum uw_stop_reason reason);
/* The key naming stop.addr ("addr", "reg", ...) and its form; NULL and
 * UW_STOP_DETAIL_NONE where stop.addr means nothing. */
UW_API const char *uw_stop_reason_detail(enum uw_stop_reason reason,
					 enum uw_stop_detail *form);

/* ------------------------------------------------------------------ */
/* Work bounds.  Hostile CFI costs at most these.                      */

/* Per uw_step: */
#define UW_MAX_CFA_INSNS	4096	/* CIE initial + FDE instructions executed */
#define UW_MAX_REMEMBER		8	/* DW_CFA_remember_state nesting depth */
#define UW_MAX_EXPR_OPS		256	/* operations per DWARF expression */
#define UW_MAX_EXPR_STACK	64	/* DWARF expression stack entries */
#define UW_MAX_HDR_PROBES	64	/* eh_frame_hdr binary search probes */
#define UW_MAX_SCAN_ENTRIES	65536	/* CIE/FDE entries per linear scan */
#define UW_MAX_AUG_CHARS	8	/* CIE augmentation string length */
/* Expressions evaluated per step: the CFA rule plus one per register. */
#define UW_MAX_EXPRS_PER_STEP	(1 + UW_NREGS)

/* Work units.  Every loop of the core spends units (uw_spend): one per
 * CFA instruction and expression operation, one per method tried and
 * per other fixed-cost phase of a step, and more for the dearer
 * iterations, so that a unit costs about the same whatever spends it: at
 * most about 10 ns natively on tables read through read_mem (measured by
 * testsuite/core/uw_hostile --time; an expression operation 7 ns, a CFA
 * instruction 10 ns, a scanned entry 58 ns, a search probe 35 ns).  Each
 * unit is itself O(1): at most one CIE parse (augmentation string <=
 * UW_MAX_AUG_CHARS), a few LEB128 numbers of <= 10 bytes, and at most
 * UW_NREGS target reads. */
#define UW_WORK_SCAN_ENTRY	8	/* a CIE/FDE entry of a linear scan */
#define UW_WORK_HDR_PROBE	4	/* an eh_frame_hdr binary search probe */
/* What one step can cost: two linear scans (.eh_frame without a usable
 * header, then .debug_frame), the row, the expressions. */
#define UW_MAX_WORK_PER_STEP						\
	(UW_MAX_HDR_PROBES * UW_WORK_HDR_PROBE +			\
	 2 * UW_MAX_SCAN_ENTRIES * UW_WORK_SCAN_ENTRY + UW_MAX_CFA_INSNS + \
	 UW_MAX_EXPRS_PER_STEP * UW_MAX_EXPR_OPS + 16)
/* Per unwind (uw_init to the stop): the budget every step spends from,
 * cursor->max_work.  The default is about 50 us of the dearest work
 * natively, whatever the tables hold (uw_hostile --time), and several
 * times what 20 ordinary frames (SystemTap's MAXBACKTRACE) cost with
 * nothing cached: a frame of a 65,000-FDE object, about 80 units. */
#define UW_DEFAULT_MAX_WORK	4096

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
 * parsed row (cursor ws.row), which is then evaluated in place: such a row
 * is never cached ("general"). */
#define UW_ROW_MAX_SPAN 256	/* bytes of save slots read at once (the
				 * x86_64 sigcontext: 17 slots, 136) */
#ifndef UW_STACK_WINDOW
#define UW_STACK_WINDOW 1024	/* the most bytes of stack read at once
				 * (>= UW_ROW_MAX_SPAN): the cursor's
				 * buffer */
#endif
/* cursor.stack_window's default: callers' slots lie above their callee's,
 * within a few hundred bytes in most code.  Measured in the TCG guest
 * (bench/ubacktrace-parts.stp, a 9-frame warm walk, median cycles): no
 * window 44,980, 256 bytes 38,792, 512 bytes 36,920, 1,024 bytes 41,028
 * (there every byte copied costs about 7 cycles, a read's fixed part
 * about 1,300). */
#define UW_DEFAULT_STACK_WINDOW 512
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
	uint32_t in_span;		/* the OFFSET registers of a span
					 * based on the CFA: all their slots
					 * lie in it (most rows: every saved
					 * register), so need no check */
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
struct uw_cie {
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

struct uw_fde {
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
	struct uw_cie cie;
	struct uw_row row;		/* after the initial insns */
	struct uw_compact_row crow;	/* row, compacted */
	uint32_t general;		/* registers of crow that are general
					 * (uw_row_compact) */
	uint32_t insns;			/* initial insns executed */
	uint8_t row_valid;		/* no advance in the CIE: row is
					 * the same for every FDE */
};

/* ------------------------------------------------------------------ */
/* Cursor                                                              */

/* How the last successful step was made. */
enum uw_how {
	UW_HOW_NONE = 0,	/* initial frame */
	UW_HOW_CFI,		/* .eh_frame / .debug_frame */
	UW_HOW_SIGFRAME,	/* signal trampoline recognised by its bytes,
				 * registers restored from the sigcontext */
	UW_HOW_FRAME_POINTER,	/* frame-pointer fallback
				 * (UW_POLICY_FP_FALLBACK) */
	/* Code without CFI, from its instructions (nocfi.c; policy
	 * UW_POLICY_NOCFI, tried before the frame-pointer chain): */
	UW_HOW_NOCFI_RET,	/* straight-line code to a ret at pc: the
				 * return address at [sp] after the simulated
				 * pops / leave / add to sp (epilogues,
				 * get_pc_thunk) */
	UW_HOW_NOCFI_ENTRY,	/* at or just after push %bp, before
				 * mov %sp,%bp: return address above the
				 * (to be) saved %bp */
};

/* Policy flags (cursor->policy): what to try where no CFI covers pc.
 * Reading the code answers only from instructions that fix the caller
 * (straight-line code to a ret, a frame being set up) and otherwise says
 * nothing; the bp chain is a guess, wrong in code that uses bp freely. */
#define UW_POLICY_FP_FALLBACK	0x1	/* follow the bp chain (UW_HOW_FRAME_POINTER) */
#define UW_POLICY_NOCFI		0x2	/* read the code at pc (UW_HOW_NOCFI_*) */
#define UW_POLICY_ALL		(UW_POLICY_NOCFI | UW_POLICY_FP_FALLBACK)

#define UW_DEFAULT_MAX_DEPTH	256
/* The first page: no process maps code there (mmap_min_addr >= 4096 on
 * every Linux that does not lower it to 0 by hand). */
#define UW_DEFAULT_MIN_CODE	4096

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
	struct uw_cache_tables_key key;
	uint64_t tag;			/* 0 = empty slot */
	uint64_t used;			/* uw_cache.clock at its last lookup */
};

/* Rows kept by the pcs they hold for (uw_cache.ranges).  A sampled pc is
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

/* A direct-mapped cache of rows, hashed by lookup pc.  The host owns the
 * storage (no allocation in the core) and keeps it across unwinds, e.g.
 * one per CPU (used with preemption disabled) or one per thread: it is not
 * safe for concurrent use.  Attach it to a cursor after uw_init:
 *     cursor->cache = &cache;
 *
 * Invalidation: an entry is keyed by the lookup pc and by the identity of
 * the uw_tables find_tables returned (bias, text/data base, ident, and
 * each section's data pointer, address and size; by the tag that stands
 * for it, uw_cache_tables), not by the CFI bytes.  The
 * host must call uw_cache_clear when that identity could come to name
 * different CFI: when a module it reported is unloaded or a mapping
 * changes (munmap/mmap/exec of the process whose tables are read through
 * read_mem, a local buffer freed and reused).  A cache is used by one
 * address space at a time, or cleared when switching, unless the tables
 * are local buffers that stay valid.  Tables read from target memory
 * (a section with data == NULL) name their CFI only with a nonzero
 * uw_tables.ident: without one their rows are neither looked up nor
 * kept.
 *
 * Tables across unwinds (uw_cache.space): within an unwind, uw_step asks
 * find_tables once per object (uw_tables.pc_lo), but a sampler or a probe
 * on a system call walks the same process again and again, and each
 * unwind asked again.  The host may vouch that the tables it returned
 * still hold: before an unwind it sets space to a nonzero number naming
 * the state they come from (one address space, no mapping changed, the
 * tables' local data still in place), the same number for as long as
 * that state lasts and never again after it.  uw_step then looks among
 * the last UW_CACHE_SPACE_TABLES tables found (with pc ranges) in
 * unwinds of that space before it calls find_tables.  Another space
 * forgets them; 0, the default, vouches for nothing. */
#ifndef UW_CACHE_SPACE_TABLES
#define UW_CACHE_SPACE_TABLES 4
#endif
struct uw_cache_space_entry {
	struct uw_tables tables;
	uint64_t tag;			/* their uw_cache_tables tag, or 0 */
	uint32_t slot;			/* uw_cache.tables[slot] had the tag */
	uint32_t arch;			/* enum uw_arch of the unwind */
};

struct uw_cache {
	uint64_t space;			/* set by the host before an unwind:
					 * see Tables across unwinds */
	struct uw_cache_entry *entries;
	uint32_t mask;			/* number of entries - 1 */
	uint64_t hits, misses;		/* statistics, for the host: misses
					 * are rows parsed */
	uint64_t range_hits;		/* of the hits, those of ranges[] */
	/* Tables found in unwinds of space space_kept: [0, space_count),
	 * the next replaced space_next.  Here, in the page every unwind
	 * touches: under TCG each other page costs a TLB refill after a
	 * context switch. */
	uint64_t space_kept;
	uint32_t space_count, space_next;
	struct uw_cache_space_entry space_entries[UW_CACHE_SPACE_TABLES];
	struct uw_cache_tables tables[UW_CACHE_TABLES];
	uint64_t tag_next;		/* the last tag given */
	uint64_t clock;			/* counts tag lookups */
	struct uw_cache_entry ranges[UW_CACHE_RANGES];
	/* The lookup pcs ranges[i]'s row holds for, [lo, hi): empty when
	 * lo == hi. */
	struct uw_pc_range range_pcs[UW_CACHE_RANGES];
	uint32_t range_count;		/* ranges[0, range_count) kept since
					 * the last clear: what a search reads */
	uint32_t range_next;		/* round-robin victim */
	uint32_t range_last;		/* the last one kept or hit */
	uint64_t cie_misses;		/* statistics: CIEs parsed for tables
					 * whose rows are cached */
	struct uw_cie_key cie_keys[UW_CACHE_CIES];	/* keys first: a
							 * search reads them
							 * alone */
	struct uw_cie_entry cies[UW_CACHE_CIES];
	uint32_t cie_next;		/* round-robin victim */
};

/* Use n entries of storage (n is rounded down to a power of two; n = 0
 * disables the cache of rows; the tables across unwinds still work) and
 * clear them; space = 0. */
UW_API void uw_cache_init(struct uw_cache *cache,
			  struct uw_cache_entry *entries, uint32_t n);
/* Forget every entry, and the tables kept across unwinds (see
 * Invalidation above). */
UW_API void uw_cache_clear(struct uw_cache *cache);
/* Forget the rows only, keeping the tables (under new tags) and their
 * parsed CIEs: every step then parses its row, as a sampler's step at a
 * pc never seen in tables seen before (bench/uw-bench --new-rows).  Not
 * for invalidation.  The tables kept across unwinds are forgotten (their
 * tags are the old ones). */
UW_API void uw_cache_forget_rows(struct uw_cache *cache);

/* Parsed CIEs remembered within one unwind (cursor-private). */
#define UW_CIE_CACHE 4

/* A caller frame, as a step's method finds it (private to step.c; in the
 * cursor so that its registers are not on the kernel stack). */
struct uw_step_frame {
	struct uw_regs *regs;	/* the caller's registers (pc in ra_reg):
				 * the one of ws.regs that is not this
				 * frame's, so a step's success costs no
				 * copy */
	uint64_t cfa;		/* this frame's CFA */
	enum uw_how how;
	int signal;		/* this frame is a signal frame: the caller's
				 * pc is exact, and its stack may differ */
};

/* Caller-provided; holds all state and scratch space, so the core needs no
 * allocation and little kernel stack.  The kernel stack budget (probe
 * context runs on whatever stack the probed code left): at most 1 KiB for
 * the deepest chain below uw_step, through the host's find_tables and
 * read_mem, and 512 bytes for any frame; checked at build time by
 * kbuild/check.sh, and in the runtime's module by runtime/stack-budget.sh
 * (runtime/README.md; the measured chains are in bench/README.md).  The
 * cursor itself is over 12 KiB on x86_64 (it holds UW_CIE_CACHE CIEs with
 * their rows, parsed and compacted): do not put it on a kernel stack
 * (per-CPU or per-context storage instead), nor a struct uw_cache, which
 * is larger still (its entries, ranges, tags and CIEs). */
struct uw_cursor {
	/* Caller settings; uw_init sets defaults, change before uw_step. */
	uint32_t max_depth;	/* frames above the initial one */
	uint32_t max_work;	/* work units for the whole unwind: past
				 * them it stops with UW_STOP_WORK_LIMIT
				 * (default UW_DEFAULT_MAX_WORK) */
	uint64_t min_code;	/* no code lies below: a return address
				 * there stops with UW_STOP_BAD_RETURN_ADDRESS
				 * (default UW_DEFAULT_MIN_CODE; the kernel
				 * module: mmap_min_addr's default) */
	uint32_t policy;	/* UW_POLICY_* */
	struct uw_cache *cache;	/* optional row cache, see above; NULL */
	uint32_t stack_window;	/* bytes of stack one read may fetch for
				 * the frames above, up to UW_STACK_WINDOW
				 * (default UW_DEFAULT_STACK_WINDOW); below
				 * a frame's span, its slots alone */

	/* Current frame: read-only for the caller. */
	enum uw_arch arch;
	const struct uw_regs *regs;	/* one of ws.regs (a cursor is
					 * never copied: it points into
					 * itself) */
	uint64_t pc;
	uint64_t cfa;		/* CFA computed by the last step (the CFA of
				 * the frame below this one); 0 initially */
	uint64_t frame_cfa;	/* this frame's own CFA, when a step out of
				 * it computed one and then stopped at
				 * end_of_stack (the outermost frame's size,
				 * for stack usage); 0 otherwise */
	uint32_t depth;		/* successful steps so far */
	int pc_is_exact;	/* pc is the interrupted instruction (initial
				 * frame, or above a signal frame), not a
				 * return address: look up pc, not pc - 1 */
	enum uw_how how;	/* how this frame was reached */
	uint32_t work;		/* work units spent by the last uw_step */
	uint32_t work_total;	/* work units spent since uw_init */
	struct uw_stop stop;

	/* Private. */
	const struct uw_arch_desc *ad;
	const struct uw_host_ops *ops;
	void *host;
	/* ops->trace, or NULL: tested at every traced event, so one load */
	void (*trace)(void *host, enum uw_trace_event ev, uint64_t a, uint64_t b);
	struct {
		/* What a step that finds its row in the row cache uses
		 * comes first, in about 2 KiB: under TCG each page a probe
		 * touches after a context switch costs a TLB refill.  The
		 * parse's state follows. */
		struct uw_regs regs[2];		/* this frame's and its
						 * caller's, as a step builds
						 * them */
		struct uw_step_frame frame;	/* the caller frame uw_step
						 * builds */
		/* This step's tables, and the reusable ones before them
		 * (other_reusable and other_tag as they were): looked at
		 * before find_tables.  Each is one of tables_kept, so
		 * trading them costs no copy. */
		struct uw_tables *tables, *other;
		struct uw_tables tables_kept[2];
		uint8_t tables_for_pc;		/* tables (or module and
						 * unreadable of a failed
						 * lookup) describe this
						 * step's pc */
		uint8_t tables_reusable;	/* a successful lookup with a
						 * pc range: see pc_lo */
		uint8_t other_reusable;
		uint64_t tables_tag;		/* their tag in the row cache
						 * (uw_cache_tables), 0 if
						 * their rows are not cached:
						 * no cache, or tables that do
						 * not name their CFI
						 * (uw_rowcache_names_cfi) */
		uint64_t other_tag;
		const struct uw_section *sec;	/* section of cie/fde */
		uint8_t cache[64];		/* window on a target-resident section */
		uint64_t cache_addr;
		uint32_t cache_len;
		/* A window on the stack: [window_addr, window_addr +
		 * window_len), read at once for one frame's save slots, and
		 * serving those of the frames above it (mem.c:
		 * uw_stack_slots; at most stack_window bytes).  Valid for
		 * the whole unwind. */
		uint8_t window[UW_STACK_WINDOW + 8];	/* 8 past the end:
					 * step.c loads every slot as 8
					 * bytes, a 4-byte one at the end too */
		uint64_t window_addr;
		uint32_t window_len;
		struct uw_compact_row crow;	/* row, compacted: applied */
		/* The link-time pcs for which the FDE search finds the
		 * FDE it found (cfi.c), and of those, the ones row holds
		 * for (row.c): what the row cache's ranges keep. */
		struct uw_pc_range found;
		struct uw_pc_range row_pcs;
		/* The parse's state (cfi.c, row.c, expr.c). */
		struct uw_cie cie;
		struct uw_fde fde;
		/* The row parsed for this step's pc, as its CIE's row
		 * (row_base) and the rules its FDE changed: the CFA's rule,
		 * and the registers in row_changed (uw_row_rule).  So a
		 * parse copies no whole row, and compacts only those
		 * registers (row.c). */
		struct uw_row row;
		const struct uw_row *row_base;
		uint32_t row_changed;
		struct uw_row cie_row;		/* what the FDE's DW_CFA_restore
						 * restores to, when the CIE
						 * cache cannot keep the CIE's
						 * row (row_base is then the
						 * ABI's) */
		/* DW_CFA_remember_state's stack: the CFA's rule and those
		 * of the changed registers. */
		struct uw_row remembered[UW_MAX_REMEMBER];
		uint32_t remembered_changed[UW_MAX_REMEMBER];
		uint64_t stack[UW_MAX_EXPR_STACK];
		/* Parsed CIEs and their initial rows, for the whole unwind,
		 * of tables whose rows the row cache does not keep (else
		 * the cache keeps them, uw_cache.cies). */
		struct uw_cie_key cie_keys[UW_CIE_CACHE];
		struct uw_cie_entry cies[UW_CIE_CACHE];
		uint32_t cie_next;		/* round-robin victim */
		struct uw_cie_entry *cie_entry;	/* the entry of ws.cie, in
						 * cies[] or the cache's */
	} ws;
};

/* The rule of register reg (< UW_NREGS) in the row parsed for the last
 * step's pc: its FDE's if the FDE changed it, else its CIE's. */
static inline const struct uw_reg_rule *uw_row_rule(const struct uw_cursor *c,
						     unsigned reg)
{
	return c->ws.row_changed & UW_REG_BIT(reg) ? &c->ws.row.rule[reg] :
	       &c->ws.row_base->rule[reg];
}

/* Index the FDEs of t's eh_frame and debug_frame into out[0..max), sorted
 * for uw_tables.index.  Once per object, where there is time (process
 * context, a tool reading files), never in a probe: it parses every entry
 * (at most UW_MAX_SCAN_ENTRIES a section) and sorts (heapsort).  Both
 * sections must be local (data != NULL, size < 4 GiB) or absent; scratch
 * is any cursor, used for the parse.  Returns the number of FDEs indexed,
 * or -1 (out's contents then undefined): a section in target memory, more
 * than max FDEs, or malformed CFI before the end (scratch->stop says
 * where). */
UW_API int uw_index_build(struct uw_cursor *scratch, enum uw_arch arch,
			  const struct uw_tables *t,
			  struct uw_index_entry *out, uint32_t max);

/* Whether the .eh_frame_hdr hdr (local bytes: data != NULL) has a binary
 * search table that the lookup can use.  If not (no table, one of an
 * encoding the lookup cannot search, or a malformed one), .eh_frame must
 * be scanned, and an object with many FDEs wants an index
 * (uw_index_build).  *eh_frame_addr: the link-time address of .eh_frame
 * that the header gives, or 0.  Process context or tools, like
 * uw_index_build; scratch is any cursor.  Returns 1 or 0. */
UW_API int uw_hdr_searchable(struct uw_cursor *scratch, enum uw_arch arch,
			     const struct uw_section *hdr,
			     uint64_t *eh_frame_addr);

/* Set up the cursor on the initial frame.  initial->val[ra column] must be
 * defined (it is the pc).  ops->read_mem and ops->find_tables are required.
 * Returns 0, or -1 with cursor->stop.reason = UW_STOP_BAD_ARGUMENT. */
UW_API int uw_init(struct uw_cursor *c, enum uw_arch arch,
		   const struct uw_host_ops *ops, void *host,
		   const struct uw_regs *initial);

/* Unwind one frame.  1 = the cursor is now at the caller frame; 0 = stopped,
 * reason in c->stop (and every later call returns 0 again). */
UW_API int uw_step(struct uw_cursor *c);

UW_API uint64_t uw_pc(const struct uw_cursor *c);
/* SP of the current frame; 0 if it is undefined. */
UW_API uint64_t uw_sp(const struct uw_cursor *c);
UW_API uint64_t uw_cfa(const struct uw_cursor *c);
/* The CFA of the frame where the walk stopped at end_of_stack (the
 * outermost frame), 0 otherwise.  Every other frame's CFA is uw_cfa()
 * after the step out of it. */
UW_API uint64_t uw_frame_cfa(const struct uw_cursor *c);
/* 0 and *val set if DWARF register regno is defined in the current frame. */
UW_API int uw_get_reg(const struct uw_cursor *c, unsigned regno, uint64_t *val);

/* ------------------------------------------------------------------ */
/* Initial registers from a pt_regs-shaped register set                */

/* On an x86_64 kernel both 64-bit and 32-bit (compat) tasks have the 64-bit
 * struct pt_regs, whose first 21 fields are also ptrace's struct
 * user_regs_struct.  User space (tests) uses this mirror of that layout. */
#ifdef __KERNEL__
#include <asm/ptrace.h>
typedef struct pt_regs uw_pt_regs;
#else
typedef struct uw_user_pt_regs {
	uint64_t r15, r14, r13, r12, bp, bx, r11, r10, r9, r8;
	uint64_t ax, cx, dx, si, di, orig_ax, ip, cs, flags, sp, ss;
} uw_pt_regs;
#endif

/* Fill *out for arch from pt; only registers whose DWARF bit is set in
 * trusted_mask are marked defined (use UW_X86_64_ALL / UW_I386_ALL from
 * x86_64.h / i386.h for a complete user register set, e.g. at syscall
 * entry).  For i386 every value is truncated to 32 bits. */
UW_API void uw_regs_from_pt_regs(struct uw_regs *out, enum uw_arch arch,
				 const uw_pt_regs *pt, uint32_t trusted_mask);

#endif /* UW_UNWIND_CORE_H */
