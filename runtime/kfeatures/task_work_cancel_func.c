/* task_work_cancel_func() cancels by function, and task_work_cancel()
 * takes the callback_head instead (Linux 6.11, and the stable kernels it
 * was backported to, e.g. Debian's 6.1.0-2x and later). */
#include <linux/task_work.h>
struct callback_head *(*stp_uw_kf_cancel)(struct task_struct *, task_work_func_t) = task_work_cancel_func;
