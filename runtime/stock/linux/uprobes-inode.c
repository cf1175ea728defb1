/* stap-unwind: the runtime's linux/uprobes-inode.c, on kernels whose
 * uprobe_register() returns the uprobe.
 *
 * Linux 6.12 changed the inode uprobe interface: uprobe_register(inode,
 * offset, ref_ctr_offset, consumer) returns the uprobe (or an ERR_PTR),
 * and it is unregistered with uprobe_unregister_nosync(uprobe, consumer)
 * followed by uprobe_unregister_sync(), which waits for the handlers that
 * may still run; uprobe_unregister() is gone.  A stock runtime that
 * predates it (SystemTap 5.1, Debian 13's) calls uprobe_register(inode,
 * offset, consumer) for an int, and uprobe_unregister(inode, offset,
 * consumer): no process(...) probe builds on Debian 13's own kernel.
 * There (STP_UW_UPROBE_HANDLE_ADAPTER, stap-unwind/features.h, which also
 * keeps stock from looking "uprobe_unregister" up at module init), stock's
 * file, included unchanged below, calls ours instead: they keep the uprobe
 * each registration returned, by its consumer (stock registers each
 * consumer once at a time, and unregisters it with the same inode and
 * offset), and unregister it the new way.  Elsewhere stock's file serves
 * as it is.
 *
 * Both run in process context, under stock's consumer mutex; the table is
 * a hash of the live registrations, one node each, freed at unregister.
 */
#ifndef STP_UW_UPROBES_INODE_C
#define STP_UW_UPROBES_INODE_C

#include <linux/uprobes.h>
#include "stap-unwind/features.h"

#ifdef STP_UW_UPROBE_HANDLE_ADAPTER
#include <linux/err.h>
#include <linux/hashtable.h>
#include <linux/mutex.h>
#include <linux/slab.h>

struct stp_uw_uprobe {
	struct hlist_node node;
	struct uprobe_consumer *consumer;	/* the key */
	struct uprobe *uprobe;
};

static DEFINE_HASHTABLE(stp_uw_uprobes, 8);
static DEFINE_MUTEX(stp_uw_uprobes_lock);

static int stp_uw_uprobe_register(struct inode *inode, loff_t offset,
				  struct uprobe_consumer *uc)
{
	struct stp_uw_uprobe *r = kzalloc(sizeof(*r), GFP_KERNEL);
	struct uprobe *u;

	if (!r)
		return -ENOMEM;
	u = uprobe_register(inode, offset, 0, uc);
	if (IS_ERR(u)) {
		kfree(r);
		return PTR_ERR(u);
	}
	r->consumer = uc;
	r->uprobe = u;
	mutex_lock(&stp_uw_uprobes_lock);
	hash_add(stp_uw_uprobes, &r->node, (unsigned long)uc);
	mutex_unlock(&stp_uw_uprobes_lock);
	return 0;
}

static void stp_uw_uprobe_unregister(struct inode *inode, loff_t offset,
				     struct uprobe_consumer *uc)
{
	struct stp_uw_uprobe *r, *found = NULL;

	mutex_lock(&stp_uw_uprobes_lock);
	hash_for_each_possible(stp_uw_uprobes, r, node, (unsigned long)uc) {	/* bound: the live registrations */
		if (r->consumer == uc) {
			hash_del(&r->node);
			found = r;
			break;
		}
	}
	mutex_unlock(&stp_uw_uprobes_lock);
	if (!found)
		return;		/* never registered, or its registration failed */
	uprobe_unregister_nosync(found->uprobe, uc);
	/* Stock frees the consumer next: no handler may be left running. */
	uprobe_unregister_sync();
	kfree(found);
}

#define uprobe_register stp_uw_uprobe_register
#define uprobe_unregister stp_uw_uprobe_unregister
#endif /* STP_UW_UPROBE_HANDLE_ADAPTER */

/* Stock's file has an "else ;" that newer compilers' -Wempty-body, which
 * these kernels enable, rejects under stap's -Werror. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wempty-body"
#include "stap-unwind-stock/linux_uprobes-inode_c/uprobes-inode.c"
#pragma GCC diagnostic pop

#ifdef STP_UW_UPROBE_HANDLE_ADAPTER
#undef uprobe_register
#undef uprobe_unregister
#endif

#endif /* STP_UW_UPROBES_INODE_C */
