/* stap-unwind: the table of stacks behind stack ids (stack_id.h). */
#ifndef STP_UW_STACK_ID_C
#define STP_UW_STACK_ID_C

#include "stap-unwind/stack_id.h"

#define STP_UW_STACK_ID_PROBES 32

enum { STP_UW_SLOT_EMPTY, STP_UW_SLOT_FILLING, STP_UW_SLOT_READY };

struct stp_uw_stack_slot {
	atomic_t state;			/* STP_UW_SLOT_*: READY is final */
	unsigned depth;
	unsigned long pc[MAXBACKTRACE];
};

static struct stp_uw_stack_slot stp_uw_stack_slots[STP_UW_STACK_IDS];
static atomic_t stp_uw_stack_misses = ATOMIC_INIT(0);

static u64 stp_uw_stack_hash(const unsigned long *pc, unsigned n)
{
	u64 h = 0x9e3779b97f4a7c15ULL ^ n;
	unsigned i;

	for (i = 0; i < n; i++) {	/* bound: MAXBACKTRACE pcs */
		h = (h ^ pc[i]) * 0xff51afd7ed558ccdULL;
		h ^= h >> 33;
	}
	return h;
}

static long stp_uw_stack_id(const unsigned long *pc, unsigned n)
{
	u64 h = stp_uw_stack_hash(pc, n);
	struct stp_uw_stack_slot *s;
	unsigned i, slot;

	for (i = 0; i < STP_UW_STACK_ID_PROBES; i++) {	/* bound: 32 slots */
		slot = (unsigned)(h + i) & (STP_UW_STACK_IDS - 1);
		s = &stp_uw_stack_slots[slot];
		switch (atomic_read_acquire(&s->state)) {
		case STP_UW_SLOT_READY:
			if (s->depth == n && !memcmp(s->pc, pc, n * sizeof(*pc)))
				return slot;
			break;
		case STP_UW_SLOT_EMPTY:
			/* Lost to another CPU: that slot may become this
			 * very stack, but is not yet; look on. */
			if (atomic_cmpxchg(&s->state, STP_UW_SLOT_EMPTY,
					   STP_UW_SLOT_FILLING) != STP_UW_SLOT_EMPTY)
				break;
			s->depth = n;
			memcpy(s->pc, pc, n * sizeof(*pc));
			atomic_set_release(&s->state, STP_UW_SLOT_READY);
			return slot;
		default:	/* being filled by another CPU */
			break;
		}
	}
	atomic_inc(&stp_uw_stack_misses);
	return -1;
}

static long stp_uw_stack_id_misses(void)
{
	return atomic_read(&stp_uw_stack_misses);
}

#endif /* STP_UW_STACK_ID_C */
