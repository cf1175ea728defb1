/* Stop reasons: the failure record every layer writes, and the names
 * generated from the one table in unwind_core.h (UW_STOP_REASONS).
 *
 * The bottom layer of the core: it calls nothing, so any file may record
 * a stop (see "Layers" in unwind_core.h).
 */
#include "uw_internal.h"

UW_INTERNAL int uw_fail_stop(struct uw_stop *stop, enum uw_stop_reason reason,
			     uint64_t addr)
{
	stop->reason = reason;
	stop->addr = addr;
	return -1;
}

UW_INTERNAL int uw_fail(struct uw_cursor *c, enum uw_stop_reason reason,
			uint64_t addr)
{
	return uw_fail_stop(&c->stop, reason, addr);
}

struct uw_stop_text {
	const char *name, *id, *key;
	enum uw_stop_detail form;
};

static const struct uw_stop_text uw_stop_texts[] = {
#define UW_STOP_TEXT(name, code, text, id, key, form)			\
	[code] = { text, id, key, UW_STOP_DETAIL_##form },
	UW_STOP_REASONS(UW_STOP_TEXT)
#undef UW_STOP_TEXT
};

static const struct uw_stop_text *uw_stop_text(enum uw_stop_reason reason)
{
	unsigned r = (unsigned)reason;

	if (r >= sizeof(uw_stop_texts) / sizeof(uw_stop_texts[0]) ||
	    !uw_stop_texts[r].name)
		return NULL;
	return &uw_stop_texts[r];
}

UW_API const char *uw_stop_reason_name(enum uw_stop_reason reason)
{
	const struct uw_stop_text *t = uw_stop_text(reason);

	return t ? t->name : "unknown";
}

UW_API const char *uw_stop_reason_id(enum uw_stop_reason reason)
{
	const struct uw_stop_text *t = uw_stop_text(reason);

	return t ? t->id : "unknown";
}

UW_API const char *uw_stop_reason_detail(enum uw_stop_reason reason,
					 enum uw_stop_detail *form)
{
	const struct uw_stop_text *t = uw_stop_text(reason);

	*form = t ? t->form : UW_STOP_DETAIL_NONE;
	return t ? t->key : NULL;
}
