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
 *   1  cursor.c    the cursor's state at the start of an unwind
 *   1  mem.c       every read: CFI sections, LEB128, DW_EH_PE, target words
 *   1  rowcache.c  compact rows kept across unwinds
 *   2  cfi.c       finding and parsing a CIE and FDE for a pc
 *   2  row.c       executing call frame instructions into a row; compacting
 *   2  expr.c      the DWARF expression stack machine
 *   2  arch.c      per-arch facts: ABI rows, pt_regs, signal trampolines
 *   2  nocfi.c     code without CFI: the caller from its instructions
 *   2  elfmem.c    the one ELF reader; an object's tables from its headers
 *   2  tables.c    which tables serve a pc: this unwind's, those kept
 *                  across unwinds, the host's
 *   3  compile.c   compiling an object's CFI into a table of compiled rows
 *   4  step.c      uw_init/uw_step: the methods in order, the one row
 *                  interpreter, and compiled rows applied
 *
 * Headers: types.h, dwarf.h (DWARF numbers), unwind_core.h (this, the
 * public interface), x86_64.h and i386.h (per-arch numbers, with their
 * sources), cursor.h (the layout of the cursor's and the row cache's
 * state, which callers allocate and never read), uw_internal.h
 * (declarations shared inside the core).
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

/* Steps by where their CFI row came from (uw_cursor.steps_compiled, and
 * the same four for one object's tables: uw_tables.steps). */
struct uw_step_counts {
	uint64_t compiled, full, marked, uncompiled;
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
	/* Optional: these tables compiled (uw_compile_begin): a step finds
	 * its row there, and parses only the rows it marks.  It must have
	 * been compiled from these same sections (bias aside). */
	const struct uw_compiled_table *compiled;
	/* Optional: nonzero when the host knows that every function of the
	 * object that its CFI does not cover keeps the frame pointer, as
	 * the kernel builds its vDSO (arch/x86/entry/vdso/Makefile: both
	 * ABIs -fno-omit-frame-pointer, the 32-bit one without unwind
	 * tables for its C functions).  A pc there that the code does not
	 * explain (nocfi.c) then takes the frame-pointer chain, whatever
	 * the cursor's policy. */
	uint8_t keeps_frame_pointer;
	/* Optional: where the host counts the steps these tables serve, by
	 * where their row came from, as the cursor counts every step
	 * (uw_cursor.steps_compiled ...): the object's own share.  Only the
	 * unwinding thread writes it while the tables are in hand (a kernel
	 * host gives each CPU its own). */
	struct uw_step_counts *steps;
};

/* ------------------------------------------------------------------ */
/* Compiled tables                                                     */

/* An object's CFI compiled once, where there is time (process context, a
 * tool reading files: uw_compile_begin), so that a step at any of its pcs
 * finds its row by a binary search and applies it, with nothing parsed:
 * every FDE's instructions run once, and each row they make, for its
 * address range, becomes an entry of 8 bytes, sorted by address (what an
 * entry says: uw_internal.h, "Compiled rows"), which names its rule, kept
 * unpacked once per table.  A row the entry cannot
 * say (an expression, a register saved in another, a signal frame, a
 * slot or offset out of its range) is marked, and a step there parses it
 * as it would without a compiled table: for every pc the step is the
 * same either way (testsuite/harness/uw-compiled-diff checks it on real
 * objects).  The host gives it with the object's tables
 * (uw_tables.compiled); one serves every process that maps the object. */
struct uw_compiled_row {
	uint32_t start;			/* link-time pc - the table's base */
	uint32_t rule;			/* the row (uw_internal.h) */
};

struct uw_compiled_table {
	uint64_t base;			/* link-time pc of rows[0] */
	const struct uw_compiled_row *rows;
	uint32_t count;			/* rows; the last one holds for every pc
					 * from its start on */
	/* The lookup's first level, as the kernel's ORC lookup table: for
	 * i < index_count, rows[index[i]] is the row of the pc base +
	 * (i << index_shift), so a search reads only the rows from there to
	 * rows[index[i + 1]]. */
	const uint32_t *index;
	uint32_t index_count;
	uint8_t index_shift;
	uint8_t arch;			/* enum uw_arch it was compiled for */
	/* The rows kept whole, in the form the interpreter applies, that
	 * rows[] name by their index (uw_internal.h). */
	const struct uw_compact_row *full;
	uint32_t full_count;
	uint32_t outside;		/* the rule of pcs below base */
	/* Its compact rows' rules, each unpacked once for its apply, that
	 * rows[] name by their index (uw_internal.h): an object's rows say
	 * a few hundred rules (libc 370, libLLVM 974), so a step at a pc
	 * never seen reads its row ready, as a step at a pc seen before
	 * does, at a few kilobytes. */
	const struct uw_compiled_unpacked *unpacked;
	uint32_t unpacked_count;
};

/* Why rows were left to the parse (uw_compile_stats.why). */
enum uw_compile_why {
	UW_COMPILE_WHY_EXPRESSION,	/* a DWARF expression the compact row
					 * keeps general */
	UW_COMPILE_WHY_CFA,		/* the CFA is not sp or bp plus 1 to
					 * 4095 words */
	UW_COMPILE_WHY_RETURN,		/* the return address is not in the
					 * word below the CFA */
	UW_COMPILE_WHY_SAVED,		/* a callee-saved register saved
					 * otherwise than 2 to 7 words below
					 * the CFA */
	UW_COMPILE_WHY_OTHER,		/* a rule for another register, or
					 * the sp's not the CFA */
	UW_COMPILE_WHY_SIGNAL,		/* a signal frame */
	UW_COMPILE_WHY_STOPS,		/* the parse stops there (malformed
					 * CFI, past a bound) */
	UW_COMPILE_WHY_PLT,		/* a PLT entry's byte where no
					 * instruction starts, whose CFA the
					 * linker's expression makes other for
					 * a return address than for the pc
					 * (compile.c: uw_compile_plt) */
	UW_COMPILE_WHYS
};

struct uw_compile_stats {
	uint32_t fdes;			/* FDEs compiled */
	uint32_t rows;			/* rows their instructions made */
	uint32_t why[UW_COMPILE_WHYS];	/* rows the compact form cannot say,
					 * by reason: */
	uint32_t full_rows;		/* ... kept whole */
	uint32_t parse_rows;		/* ... left to the parse */
	uint64_t bytes;			/* code the rows cover */
	uint64_t full_bytes;		/* ... the full rows' */
	uint64_t parse_bytes;		/* ... the parse's rows' */
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
	/* Optional (may be NULL): is ra, the caller's pc a step read from
	 * the stack word at slot (the word below the CFA, where a call put
	 * it), a trampoline standing in for the real return address?
	 * Linux's uretprobes replace a probed function's return address
	 * with one, and keep the real one (and the slot) per task.  0: ra
	 * is no trampoline; 1: it is, and *real is the return address it
	 * stands for (checked as any other); < 0: it is, and the real
	 * return address is not known: the step stops with
	 * UW_STOP_TRAMPOLINE.  Not asked after a signal frame. */
	int (*return_address)(void *host, uint64_t ra, uint64_t slot,
			      uint64_t *real);
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
	X(WORK_LIMIT,     10, "work limit",        "work_limit",         "units",  DEC) \
	/* the caller's pc is a return trampoline (a uretprobe's) whose	\
	 * real return address the host could not find; addr = the	\
	 * trampoline's address, which is not reported as a frame */	\
	X(TRAMPOLINE,     11, "unresolved return trampoline", "return_trampoline", "ra", HEX)

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

/* The stack window: the save slots of a frame, and of the frames above
 * it, are read from the target at once (cursor.stack_window). */
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

/* The layouts of the cursor's and the row cache's private state: the
 * caller allocates them as part of struct uw_cursor and struct uw_cache,
 * and never reads them. */
#include "cursor.h"

/* ------------------------------------------------------------------ */
/* Row cache (optional, caller-owned, kept across unwinds)             */

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
 * the last UW_CACHE_KEPT_TABLES tables found (with pc ranges) in
 * unwinds of that space before it calls find_tables; those of other
 * spaces stay, for walks of theirs, until newer ones replace them.  A
 * host that walks a few processes in turn gives each its own number; 0,
 * the default, vouches for nothing. */
struct uw_cache {
	uint64_t space;			/* set by the host before an unwind:
					 * see Tables across unwinds */
	/* Statistics, for the host. */
	uint64_t hits, misses;		/* misses are rows parsed */
	uint64_t range_hits;		/* of the hits, those of kept ranges */
	uint64_t cie_misses;		/* CIEs parsed for tables whose rows
					 * are cached */
	/* Private: the core's (cursor.h). */
	struct uw_cache_state state;
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
 * pc never seen in tables seen before (bench/uw-bench --new-rows); the
 * compiled rows unpacked are forgotten too.  Not
 * for invalidation.  The tables kept across unwinds are forgotten (their
 * tags are the old ones). */
UW_API void uw_cache_forget_rows(struct uw_cache *cache);

/* Caller-provided; holds all state and scratch space, so the core needs no
 * allocation and little kernel stack.  The kernel stack budget (probe
 * context runs on whatever stack the probed code left): at most 1 KiB for
 * the deepest chain below uw_step, through the host's find_tables and
 * read_mem, and 512 bytes for any frame; checked at build time by
 * kbuild/check.sh, and in the runtime's module by runtime/stack-budget.sh
 * (runtime/README.md; the measured chains are in bench/README.md).  The
 * cursor itself is over 12 KiB on x86_64 (it holds UW_CURSOR_CIES CIEs with
 * their rows, parsed and compacted): do not put it on a kernel stack
 * (per-CPU or per-context storage instead), nor a struct uw_cache, which
 * is larger still (its entries, ranges, tags and CIEs). */
struct uw_cursor {
	/* Caller settings; uw_init sets defaults, change before uw_step. */
	uint32_t max_depth;	/* frames above the initial one */
	uint32_t max_work;	/* work units for the whole unwind: past
				 * them it stops with UW_STOP_WORK_LIMIT
				 * (default UW_DEFAULT_MAX_WORK) */
	uint64_t min_code;	/* nothing is mapped below: a return
				 * address there stops with
				 * UW_STOP_BAD_RETURN_ADDRESS, and no read
				 * there is asked of the host (default
				 * UW_DEFAULT_MIN_CODE; the kernel module:
				 * mmap_min_addr's default) */
	uint32_t policy;	/* UW_POLICY_* */
	struct uw_cache *cache;	/* optional row cache, see above; NULL */
	uint32_t stack_window;	/* bytes of stack one read may fetch for
				 * the frames above, up to UW_STACK_WINDOW
				 * (default UW_DEFAULT_STACK_WINDOW); below
				 * a frame's span, its slots alone */

	/* Current frame: read-only for the caller. */
	enum uw_arch arch;
	const struct uw_regs *regs;	/* this frame's registers (in the
					 * cursor: a cursor is never
					 * copied) */
	uint64_t pc;
	uint64_t sp;		/* this frame's sp; 0 if it is undefined */
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
	/* Steps since uw_init by where their CFI row came from: a compiled
	 * table's compact rows (or its word that no CFI is there); its full
	 * rows; parsed where it marks the row for the parse (or the row
	 * cache's copy of that parse); parsed (or the row cache) in tables
	 * without a compiled table. */
	uint32_t steps_compiled, steps_full, steps_marked, steps_uncompiled;
	struct uw_stop stop;

	/* Private: the core's (cursor.h). */
	struct uw_cursor_state state;
};

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

/* Compile t (struct uw_compiled_table, above) in chunks, where there is
 * time: no allocation, and each uw_compile_run call does a bounded part
 * (max_fdes of its FDEs), so that a kernel caller can reschedule between
 * calls.  t's sections must be local (data != NULL, under 4 GiB) or
 * absent, and searched: by t->index (uw_index_build) or by a usable
 * .eh_frame_hdr table (uw_hdr_searchable).  out receives the rows, at most
 * max, full the full rows, at most max_full, and unpacked the compact
 * rules unpacked, at most max_unpacked; out == NULL only counts them
 * (comp->count, comp->full_count, comp->unpacked_count, and the index's
 * words, uw_compile_index_size), to size them for a second compile.
 * Then uw_compile_end writes the lookup index (at most index_max words,
 * uw_compile_index_size of them) and fills *table, whose rows, full
 * rows, unpacked rules and index are out, full, unpacked and index, the
 * caller's to keep.
 *   uw_compile_begin: 0, or -1 (bad arguments, comp->stop).
 *   uw_compile_run: 1 = call again, 0 = every FDE compiled, -1 = failed
 *     (out too small, tables no search serves, an object over 4 GiB:
 *     comp->stop says which); scratch is any cursor.
 *   uw_compile_end: 0, or -1 (not done, or index too small). */
struct uw_compiler {
	uint32_t count;			/* rows made so far */
	uint32_t full_count;		/* full rows made so far */
	uint32_t unpacked_count;	/* compact rules unpacked so far */
	struct uw_compile_stats stats;
	struct uw_stop stop;		/* why a call failed */
	/* Private: the core's (cursor.h). */
	struct uw_compiler_state state;
};

UW_API int uw_compile_begin(struct uw_compiler *comp, enum uw_arch arch,
			    const struct uw_tables *t,
			    struct uw_compiled_row *out, uint32_t max,
			    struct uw_compact_row *full, uint32_t max_full,
			    struct uw_compiled_unpacked *unpacked,
			    uint32_t max_unpacked);
UW_API int uw_compile_run(struct uw_compiler *comp, struct uw_cursor *scratch,
			  uint32_t max_fdes);
UW_API uint32_t uw_compile_index_size(const struct uw_compiler *comp);
UW_API int uw_compile_end(struct uw_compiler *comp, uint32_t *index,
			  uint32_t index_max, struct uw_compiled_table *table);

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

/* A frame uw_step_many stepped to: its pc and sp (0 if undefined), the
 * CFA of the frame below it, which the step computed (uw_cfa), and
 * whether its pc is exact (after a signal frame) rather than a return
 * address. */
struct uw_stepped_frame {
	uint64_t pc;
	uint64_t sp;
	uint64_t cfa;
	uint32_t pc_is_exact;
};

/* Up to max steps, as uw_step makes them, each frame stepped to written
 * to out: the number written.  Fewer than max: stopped, as uw_step
 * reports it (c->stop).  The same frames as a loop of uw_step, without a
 * call a frame where the common step serves. */
UW_API uint32_t uw_step_many(struct uw_cursor *c,
			     struct uw_stepped_frame *out, uint32_t max);

/* The current frame's pc, and its sp (0 if it is undefined): reads of
 * the cursor's fields, inline, as a walk asks for them at every frame. */
static inline uint64_t uw_pc(const struct uw_cursor *c)
{
	return c->pc;
}

static inline uint64_t uw_sp(const struct uw_cursor *c)
{
	return c->sp;
}

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
