/* Kernel-module compile check of the unwinder core: the whole core is
 * #included as one translation unit, exactly as the SystemTap runtime will
 * include it, with a host that reads current's user memory without
 * faulting.  Loading it runs one unwind attempt of a made-up frame and logs
 * the stop reason; its real purpose is that it builds with -Werror, and
 * that its call graph gives the core's stack budget (check.sh): so the
 * host does what the runtime's does in probe context, find_tables scanning
 * the ELF image mapped around pc (runtime/stock/unwind.c). */
#include <linux/module.h>
#include <linux/init.h>
#include <linux/uaccess.h>

#define UW_SINGLE_TU
#include "unwind_all.c"

static int uw_kcheck_read(void *host, uint64_t addr, void *buf, uint32_t len)
{
	(void)host;
	if (copy_from_user_nofault(buf, (const void __user *)(unsigned long)addr,
				   len))
		return -1;
	return 0;
}

static const struct uw_host_ops uw_kcheck_ops;

/* The scan's result and working memory off the stack, as the runtime
 * keeps them in its unwind context. */
static struct uw_elfmem_info uw_kcheck_info;
static struct uw_elfmem_scratch uw_kcheck_scratch;

static int uw_kcheck_find(void *host, uint64_t pc, struct uw_tables *out)
{
	struct uw_elfmem_info *info = &uw_kcheck_info;
	int st;

	st = uw_elfmem_scan(&uw_kcheck_ops, host, pc & ~(uint64_t)0xfff, info,
			    &uw_kcheck_scratch);
	if (st != UW_ELFMEM_OK)
		return uw_elfmem_fail_tables(out, st, info);
	*out = info->tables;
	return 0;
}

static const struct uw_host_ops uw_kcheck_ops = {
	.read_mem = uw_kcheck_read,
	.find_tables = uw_kcheck_find,
};

static struct uw_cursor uw_kcheck_cursor;

/* The entry points, called through pointers so that each stays a function
 * of its own, with its real signature (inlined into its one caller here,
 * its frame would merge into a frame that is not the unwinder's): the
 * stack budget is summed from them. */
static int (*volatile uw_kcheck_init_fn)(struct uw_cursor *, enum uw_arch,
					 const struct uw_host_ops *, void *,
					 const struct uw_regs *) = uw_init;
static int (*volatile uw_kcheck_step_fn)(struct uw_cursor *) = uw_step;
static uint32_t (*volatile uw_kcheck_step_many_fn)(struct uw_cursor *,
						   struct uw_stepped_frame *,
						   uint32_t) = uw_step_many;
static struct uw_stepped_frame uw_kcheck_frames[4];

static int __init uw_kcheck_init(void)
{
	struct uw_regs regs = { .defined = UW_REG_BIT(UW_X86_64_RIP) };

	regs.val[UW_X86_64_RIP] = 0x1000;
	if (uw_kcheck_init_fn(&uw_kcheck_cursor, UW_ARCH_X86_64, &uw_kcheck_ops,
			      NULL, &regs) == 0 &&
	    uw_kcheck_step_fn(&uw_kcheck_cursor) == 1)
		uw_kcheck_step_many_fn(&uw_kcheck_cursor, uw_kcheck_frames, 4);
	pr_info("uw_kcheck: %s\n",
		uw_stop_reason_name(uw_kcheck_cursor.stop.reason));
	return 0;
}

static void __exit uw_kcheck_exit(void)
{
}

module_init(uw_kcheck_init);
module_exit(uw_kcheck_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("stap-unwind core: kernel compile check");
