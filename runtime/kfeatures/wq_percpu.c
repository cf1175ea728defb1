/* WQ_PERCPU names a per-CPU workqueue, which newer kernels warn of when
 * neither it nor WQ_UNBOUND is given (Linux 6.17; backported to Debian's
 * 6.12). */
#include <linux/workqueue.h>
int stp_uw_kf = WQ_PERCPU;
