/* stap-unwind: the overlay's start-up and shutdown (init_exit.c). */
#ifndef STP_UW_INIT_EXIT_H
#define STP_UW_INIT_EXIT_H

/* The translator's calls, in a module that tracks mappings (pragma:vma):
 * start every part of the overlay, in order, at module init (0, or the
 * failing part's error, with the parts before it stopped again); stop
 * them, in reverse order, at exit. */
static int _stp_vma_init(void);
static void _stp_vma_done(void);

/* Whether every part runs: from the end of _stp_vma_init() to the start
 * of _stp_vma_done().  Any context. */
static int stp_uw_parts_running(void);

#endif /* STP_UW_INIT_EXIT_H */
