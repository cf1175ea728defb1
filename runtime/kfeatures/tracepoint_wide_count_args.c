/* <linux/tracepoint.h> brings a COUNT_ARGS() that counts past twelve
 * arguments (<linux/args.h>, Linux 6.7; before, <linux/kernel.h>'s, of
 * twelve).  The runtime does not use it: kfeatures.sh does, to tell
 * whether a translator's tracepoint query, which may define the
 * twelve-argument one again, builds on this kernel. */
#include <linux/tracepoint.h>
_Static_assert(COUNT_ARGS(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14) == 14,
	       "COUNT_ARGS() counts twelve arguments");
int stp_uw_kf;
