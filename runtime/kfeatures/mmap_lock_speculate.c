/* mmap_lock_speculate_try_begin(): a number that tells whether an mm's
 * mappings changed (Linux 6.14). */
#include <linux/mm.h>
#include <linux/mmap_lock.h>
bool stp_uw_kf(struct mm_struct *mm, unsigned int *seq)
{
	return mmap_lock_speculate_try_begin(mm, seq);
}
