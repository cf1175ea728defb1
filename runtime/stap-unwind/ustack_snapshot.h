/* stap-unwind: every thread's stack at one instant, without stopping
 * anyone (tapset/ustack_snapshot.stp).
 *
 * A probe asks for a snapshot of one process's threads, or of every
 * process's (stp_uw_ustack_snapshot_request: no sleeping, no allocation,
 * NMI safe); a kernel worker reads the threads and prints their stacks
 * after the probe, in one of four forms; one snapshot runs at a time.
 * How the threads are read, and the bounds: ustack_snapshot.c, brought in
 * by the overlay's stack.c.
 */
#ifndef STP_UW_USTACK_SNAPSHOT_H
#define STP_UW_USTACK_SNAPSHOT_H

#include <linux/types.h>

/* Threads a snapshot has room for (records of under 500 bytes with
 * MAXBACKTRACE 20, allocated for the snapshot and freed after it); the
 * rest are counted as dropped.  STP_UW_TSNAP_THREADS, the option's
 * earlier name, is still read. */
#ifndef STP_UW_USTACK_SNAPSHOT_THREADS
#ifdef STP_UW_TSNAP_THREADS
#define STP_UW_USTACK_SNAPSHOT_THREADS	STP_UW_TSNAP_THREADS
#else
#define STP_UW_USTACK_SNAPSHOT_THREADS	4096
#endif
#endif

/* The printed forms, one per tapset function. */
enum stp_uw_ustack_snapshot_form {
	STP_UW_USTACK_SNAPSHOT_PER_THREAD,	/* ustack_snapshot() */
	STP_UW_USTACK_SNAPSHOT_GROUPED,		/* ustack_snapshot_grouped() */
	STP_UW_USTACK_SNAPSHOT_FOLDED,		/* ustack_snapshot_folded() */
	STP_UW_USTACK_SNAPSHOT_RAW,		/* ustack_snapshot_raw() */
};

/* In any context: ask for a snapshot of pid's threads (0: every process),
 * printed in form.  Returns its number, or 0 if one is under way (or the
 * module is unloading). */
static unsigned long stp_uw_ustack_snapshot_request(pid_t pid,
						    enum stp_uw_ustack_snapshot_form form);

/* Whether snapshot n (a number the request returned) has been printed,
 * its summary line included. */
static int stp_uw_ustack_snapshot_printed(unsigned long n);

/* Module init and exit (process context; at exit, every probe is
 * unregistered). */
static int stp_uw_ustack_snapshot_init(void);
static void stp_uw_ustack_snapshot_exit(void);

#endif /* STP_UW_USTACK_SNAPSHOT_H */
