/* stap-unwind: the names of user addresses.
 *
 * Every stock function prints SystemTap's own grammar, so that scripts and
 * tools that parse " 0xADDR : NAME+0xOFF/0xSIZE [PATH]" keep working; two
 * things differ from SystemTap 5.6.  SIZE is the symbol's own st_size
 * (stock prints the distance to the next symbol of its table), so an
 * address that the symbol does not contain -- stock names such an address
 * after the nearest symbol before it, however far away, e.g.
 * "error_at_line+0x9b59/0x24761" -- shows OFF >= SIZE.  And objects stock
 * knows nothing of are named too: every object of the process from its
 * own .dynsym, and the vdso ("vdso", e.g. "__kernel_vsyscall+0x9/0x14
 * [vdso]").  With usym_explicit(1) (-DSTP_USYM_EXPLICIT) an address that no
 * symbol contains is printed as its object and file offset instead,
 * "[/path/of/object+0xOFFSET]".
 *
 * Where symbols and extents come from:
 *   - modules named with -d/--ldd: the translator's table (names and
 *     addresses, no sizes) plus each symbol's st_size, read once at module
 *     init (process context) from the ELF file at the module's path
 *     (.symtab and .dynsym), and only if that file's build-id is the one
 *     the translator saw;
 *   - any other mapped ELF object: its dynamic symbol table read from the
 *     process's memory in probe context (usym_elf.h: PT_DYNAMIC -> DT_SYMTAB,
 *     DT_STRTAB, DT_STRSZ, count from DT_HASH or DT_GNU_HASH; every read
 *     copy_from_user_nofault, every loop bounded).
 * The object containing an address: stp_uw_vma_find() (VMA tracking for
 * every process, vma_map.h), else SystemTap's own vma map (processes the
 * task finder tracks: -c/-x targets and -d modules), else the vdso of the
 * address space (mm->context); umodname() finds it the same way
 * (stp_uw_umod_lookup).
 *
 * How it is wired in: the overlay's sym.c (runtime/stock/sym.c), which every
 * module includes, includes this file right after stock's sym.c, and then
 * renames _stp_snprint_addr, _stp_print_addr and _stp_umod_lookup to this
 * file's functions (stap-unwind/overrides.h, USYM), so that every later
 * caller -- stack.c's backtraces and the tapsets' embedded C (usymname,
 * usymdata, print_usyms, sprint_ubacktrace, ...), all emitted after sym.c
 * -- goes through here.
 * Kernel addresses (task == NULL) are passed to SystemTap's own functions
 * unchanged.  The -d symbol sizes (and the cache of names read from
 * .dynsym, below) are set up at module init, and freed at exit after
 * every probe is unregistered and an RCU grace period has let running
 * handlers finish, by the overlay's start-up and shutdown
 * (stap-unwind/init_exit.c): the translator calls them whenever a script
 * uses user symbols or backtraces, the only users of the sizes.
 *
 * Printed forms (flags as in sym.h): a symbol names the address (by
 * default also the nearest one before an address no symbol contains) / no
 * symbol does (explicit form, or no symbol before it at all):
 *   _STP_SYM_FULL    " 0xADDR : name+0xoff/0xsize [path]"  " 0xADDR : [path+0xfoff]"
 *   _STP_SYM_SIMPLE  "name+0xoff [base]"                   "[base+0xfoff]"
 *   _STP_SYM_BRIEF   "name+0xoff"                          "[path+0xfoff]"
 *   _STP_SYM_DATA    "name+0xoff/0xsize [path]"            "[path+0xfoff]"
 *   _STP_SYM_SYMBOL  "name"                                "0xADDR"
 * (base: the path's last component.)  0xfoff is the file offset of ADDR in
 * the object: the code is at that offset of that file, whatever the load
 * address.  An address in no known object is printed as "0xADDR" alone;
 * in a known object outside its file-backed part, as "[path]".
 *
 * Caller frames: every frame of a user backtrace above the first one has
 * a return address for its pc, and is named with STP_UW_SYM_CALLER, which
 * stp_uw_frame_sym_flags() adds (stack.c, ustack_snapshot.c, udefer.c, the
 * tapset's usymframe_pid()).  The symbol and the source line are then
 * looked up for pc - 1, the call instruction's last byte, so that a call
 * to a noreturn function at the very end of a function (whose return
 * address is the next function's first byte) is named after the caller,
 * and a call followed by the next line's code is given its own line; the
 * printed address and offset are still those of pc (the offset may then
 * equal the size).  A signal handler's return address, which no call
 * precedes, is a trampoline's first byte: where no symbol contains pc - 1,
 * a symbol that starts at pc names it.
 */
#ifndef STP_UW_USYM_C
#define STP_UW_USYM_C

#include "stap-unwind/usym.h"
#include "stap-unwind/vma_map.h"
#include "stap-unwind/usym_elf.h"

#include <linux/fs.h>
#include <linux/vmalloc.h>
#include <linux/sched.h>
#include <asm/vdso.h>

/* The parts, each on those before it. */
#include "stap-unwind/usym_lookup.h"	/* one address's answer; working memory */
#include "stap-unwind/usym_dmod.c"	/* the -d modules' tables, with sizes */
#include "stap-unwind/usym_cache.c"	/* names from .dynsym, cached per CPU */
#include "stap-unwind/usym_lookup.c"	/* what is known about one address */
#include "stap-unwind/usym_print.c"	/* SystemTap's printed forms */

/* Module init and exit (process context, stap-unwind/init_exit.c): the
 * -d symbol sizes, the cache of names from .dynsym, the working memory. */
static int stp_uw_usym_init(void)
{
	stp_uw_symsz_load();
	stp_uw_usym_cache_alloc();
	/* Without it, user addresses are named as stock names them. */
	stp_uw_usym_scratch = __alloc_percpu(sizeof(struct stp_uw_usym_scratch),
					     __alignof__(struct stp_uw_usym_scratch));
	return 0;
}

static void stp_uw_usym_exit(void)
{
	free_percpu(stp_uw_usym_scratch);
	stp_uw_usym_scratch = NULL;
	stp_uw_usym_cache_free();
	stp_uw_symsz_free();
}

#endif /* STP_UW_USYM_C */
