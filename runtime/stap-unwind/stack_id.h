/* stap-unwind: stack ids, to count stacks without turning each into a
 * string (tapset/stack_id.stp: ubacktrace_id(), backtrace_id(),
 * stack_id_misses()).
 *
 * Each distinct stack (its array of pcs, as ubacktrace() and backtrace()
 * would print them) gets a number: its slot in a table of stacks that the
 * module holds for the session, as BPF's stack maps do.  Equal numbers
 * are equal stacks: a stack is compared whole, pc by pc, with the one in
 * its slot, so that two stacks whose hashes collide get two slots.
 *
 * The table has -DSTP_UW_STACK_IDS slots (a power of two, default 4096;
 * each holds MAXBACKTRACE pcs and a word, 168 bytes with the default 20).
 * A stack may go in one of STP_UW_STACK_ID_PROBES slots from its hash's;
 * when all of them hold other stacks, the stack has no id (-1), and the
 * miss is counted.  Two CPUs that meet one new stack at once may give it
 * two slots: its counts are then split over two numbers, each exact,
 * never merged wrongly.  Slots are never freed during the session.
 *
 * The implementation is stack_id.c, which includes this header.
 */
#ifndef STP_UW_STACK_ID_H
#define STP_UW_STACK_ID_H

#ifndef STP_UW_STACK_IDS
#define STP_UW_STACK_IDS 4096
#endif
#if STP_UW_STACK_IDS < 1 || (STP_UW_STACK_IDS & (STP_UW_STACK_IDS - 1))
#error "STP_UW_STACK_IDS must be a power of two"
#endif

/* The id of the stack pc[0 .. n-1] (n <= MAXBACKTRACE): the slot that
 * holds it, found or taken now; -1 if none of its slots is free. */
static long stp_uw_stack_id(const unsigned long *pc, unsigned n);

/* How many calls of stp_uw_stack_id() returned -1 this session. */
static long stp_uw_stack_id_misses(void);

#endif /* STP_UW_STACK_ID_H */
