/* The cursor's state at the start of an unwind, or of a tool's use of a
 * cursor as scratch (uw_index_build, the compiled tables' builder): the
 * caller's settings at their defaults, no stop, no work spent, no
 * tables, no CIE parsed.  Its layout is cursor.h's.
 */
#include "uw_internal.h"

UW_INTERNAL void uw_cursor_reset(struct uw_cursor *c,
				 const struct uw_arch_desc *ad,
				 const struct uw_host_ops *ops, void *host)
{
	int i;

	c->max_depth = UW_DEFAULT_MAX_DEPTH;
	c->max_work = UW_DEFAULT_MAX_WORK;
	c->min_code = UW_DEFAULT_MIN_CODE;
	c->policy = 0;
	c->cache = NULL;
	c->stack_window = UW_DEFAULT_STACK_WINDOW;
	for (i = 0; i < UW_CURSOR_CIES; i++)	/* bound: UW_CURSOR_CIES */
		c->state.cie_keys[i].valid = 0;
	c->state.cie_next = 0;
	c->state.cie_entry = NULL;
	c->cfa = 0;
	c->frame_cfa = 0;
	c->depth = 0;
	c->pc_is_exact = 1;
	c->how = UW_HOW_NONE;
	c->work = 0;
	c->work_total = 0;
	c->steps_compiled = 0;
	c->steps_full = 0;
	c->steps_marked = 0;
	c->steps_uncompiled = 0;
	c->stop = (struct uw_stop){ UW_STOP_NONE, 0, 0, NULL };
	c->state.arch_desc = ad;
	c->state.ops = ops;
	c->state.host = host;
	c->state.trace = ops ? ops->trace : NULL;
	c->state.section = NULL;
	c->state.row_changed = UW_ROW_ALL;	/* no base: nothing parsed */
	c->state.row_base = NULL;
	c->state.section_window_len = 0;
	c->state.window_len = 0;
	c->state.tables = &c->state.tables_storage[0];
	c->state.prev = &c->state.tables_storage[1];
	*c->state.tables = (struct uw_tables){ .module = NULL };
	c->state.tables_for_pc = 0;
	c->state.tables_reusable = 0;
	c->state.tables_tag = 0;
	c->state.prev_reusable = 0;
	c->state.prev_tag = 0;
	c->pc = 0;
	c->sp = 0;
	c->state.regs[0].defined = 0;
	c->regs = &c->state.regs[0];
}
