/* mm->mm_lock_seq is a seqcount, odd while the mmap lock is held for
 * writing (Linux 6.13; backported to Debian's 6.12). */
#include <linux/mm_types.h>
#include <linux/seqlock.h>
unsigned int stp_uw_kf(struct mm_struct *mm)
{
	return raw_read_seqcount(&mm->mm_lock_seq);
}
