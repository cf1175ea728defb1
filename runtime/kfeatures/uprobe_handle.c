/* uprobe_register() returns the uprobe, which uprobe_unregister_nosync()
 * takes back (Linux 6.12, "uprobes: switch to RCU Tasks Trace flavor for
 * better performance" and the API change before it). */
#include <linux/uprobes.h>
_Static_assert(__builtin_types_compatible_p(typeof(&uprobe_register),
	struct uprobe *(*)(struct inode *, loff_t, loff_t, struct uprobe_consumer *)),
	"uprobe_register returns an int");
void (*stp_uw_kf_unregister)(struct uprobe *, struct uprobe_consumer *) = uprobe_unregister_nosync;
