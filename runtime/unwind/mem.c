/* Reading for the unwinder core: CFI section bytes (local or in the
 * target), LEB128 numbers, DW_EH_PE encoded pointers and target words.
 *
 * Every read is bounds-checked against the reader's end (which is within
 * its section) before any byte is touched; a read past it is malformed CFI
 * (UW_STOP_BAD_CFI at the link-time address), a failed host read is
 * UW_STOP_MEMORY_UNREADABLE at the runtime address.
 */
#include "uw_internal.h"

UW_INTERNAL uint64_t uw_sign_extend(uint64_t v, uint32_t size)
{
	uint32_t bits = size * 8;

	if (bits == 0 || bits >= 64)
		return v;
	if (v & ((uint64_t)1 << (bits - 1)))
		return v | (~(uint64_t)0 << bits);
	return v & ~(~(uint64_t)0 << bits);
}

static uint64_t uw_mem_le(const uint8_t *b, uint32_t size)
{
	uint64_t v = 0;
	uint32_t i;

	/* The common sizes as plain byte combinations (one load each). */
	if (size == 8)
		return (uint64_t)b[0] | (uint64_t)b[1] << 8 |
		       (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24 |
		       (uint64_t)b[4] << 32 | (uint64_t)b[5] << 40 |
		       (uint64_t)b[6] << 48 | (uint64_t)b[7] << 56;
	if (size == 4)
		return (uint64_t)b[0] | (uint64_t)b[1] << 8 |
		       (uint64_t)b[2] << 16 | (uint64_t)b[3] << 24;

	for (i = size; i > 0; i--)	/* bound: size <= 8 */
		v = (v << 8) | b[i - 1];
	return v;
}

UW_INTERNAL int uw_peek_word(struct uw_cursor *c, uint64_t addr, uint64_t *v)
{
	uint8_t buf[8];

	if (!uw_peek(c, addr & c->state.arch_desc->addr_mask, buf, c->state.arch_desc->addr_size))
		return 0;
	*v = uw_mem_le(buf, c->state.arch_desc->addr_size);
	return 1;
}

UW_INTERNAL const uint8_t *uw_stack_fill(struct uw_cursor *c, uint64_t addr,
					 uint32_t len)
{
	uint64_t end = addr + len, n;

	/* Read from addr up to the end of the page of the slots' last byte
	 * (the stack grows down: the callers' slots lie above), at most a
	 * window.  So the window adds no page to those the slots need, and
	 * a read that fails did so for the slots themselves; but a host
	 * may read less than a page (a snapshot's copy of the stack): then
	 * the slots alone. */
	c->state.window_len = 0;
	if (len == 0 || len > UW_ROW_MAX_SPAN || end < addr ||
	    uw_below_mapped(c, addr))
		return NULL;
	n = (((end - 1) | (UW_STACK_PAGE - 1)) + 1) - addr;
	if (n > c->stack_window)
		n = c->stack_window;
	if (n > UW_STACK_WINDOW)
		n = UW_STACK_WINDOW;
	if (n < len)
		n = len;
	if (c->state.ops->read_mem(c->state.host, addr, c->state.window, (uint32_t)n) < 0) {
		if (n == len ||
		    c->state.ops->read_mem(c->state.host, addr, c->state.window, len) < 0)
			return NULL;
		n = len;
	}
	c->state.window_addr = addr;
	c->state.window_len = (uint32_t)n;
	return c->state.window;
}

UW_INTERNAL int uw_read_target(struct uw_cursor *c, uint64_t addr,
			       uint32_t size, uint64_t *v)
{
	uint8_t buf[8];

	if (size == 0 || size > 8)
		return uw_fail(c, UW_STOP_BAD_CFI, addr);
	if (uw_below_mapped(c, addr) ||
	    c->state.ops->read_mem(c->state.host, addr, buf, size) < 0)
		return uw_fail(c, UW_STOP_MEMORY_UNREADABLE, addr);
	*v = uw_mem_le(buf, size);
	return 0;
}

UW_INTERNAL void uw_reader_init(struct uw_reader *r, struct uw_cursor *c,
				const struct uw_section *sec,
				uint64_t pos, uint64_t end)
{
	uw_reader_init_local(r, sec, pos, end, c->state.arch_desc->addr_size, &c->stop);
	r->c = c;
	r->text_base = c->state.tables->text_base;
}

UW_INTERNAL void uw_reader_init_local(struct uw_reader *r,
				      const struct uw_section *sec,
				      uint64_t pos, uint64_t end,
				      uint8_t addr_size, struct uw_stop *stop)
{
	r->c = NULL;
	r->stop = stop;
	r->sec = sec;
	r->data = sec->data;
	r->end = end < sec->size ? end : sec->size;
	r->pos = pos < r->end ? pos : r->end;
	r->text_base = 0;
	r->datarel_base = 0;
	r->func_base = 0;
	r->addr_size = addr_size;
	r->addr_mask = addr_size == 4 ? 0xffffffffu : ~(uint64_t)0;
}

UW_INTERNAL int uw_rd_fail(struct uw_reader *r, enum uw_stop_reason reason,
			   uint64_t addr)
{
	return uw_fail_stop(r->stop, reason, addr);
}

/* Fill the cache window so that it holds [addr, addr + n); the window is
 * at most sizeof cache and never extends past the section (avail bytes). */
static int uw_mem_fill(struct uw_cursor *c, uint64_t addr, uint32_t n,
		       uint64_t avail)
{
	uint32_t len = sizeof(c->state.section_window);

	if (avail < len)
		len = (uint32_t)avail;
	if (c->state.ops->read_mem(c->state.host, addr, c->state.section_window, len) < 0) {
		/* The window may cross into an unmapped page: retry exact. */
		len = n;
		if (c->state.ops->read_mem(c->state.host, addr, c->state.section_window, len) < 0) {
			c->state.section_window_len = 0;
			return uw_fail(c, UW_STOP_MEMORY_UNREADABLE, addr);
		}
	}
	c->state.section_window_addr = addr;
	c->state.section_window_len = len;
	return 0;
}

UW_INTERNAL int uw_rd_bytes(struct uw_reader *r, uint8_t *buf, uint32_t n)
{
	struct uw_cursor *c = r->c;
	const struct uw_section *sec = r->sec;
	uint64_t addr, off;
	uint32_t i;

	if (n > r->end - r->pos || n > sizeof(c->state.section_window))
		return uw_rd_fail(r, UW_STOP_BAD_CFI, sec->addr + r->pos);
	if (sec->data) {
		for (i = 0; i < n; i++)		/* bound: n <= 64 */
			buf[i] = sec->data[r->pos + i];
		r->pos += n;
		return 0;
	}
	if (!c)
		return uw_rd_fail(r, UW_STOP_MEMORY_UNREADABLE,
				  sec->addr + r->pos);
	addr = (sec->addr + c->state.tables->bias + r->pos) & c->state.arch_desc->addr_mask;
	off = addr - c->state.section_window_addr;
	if (c->state.section_window_len == 0 || addr < c->state.section_window_addr ||
	    off + n > c->state.section_window_len) {
		if (uw_mem_fill(c, addr, n, sec->size - r->pos) < 0)
			return -1;
		off = 0;
	}
	for (i = 0; i < n; i++)			/* bound: n <= 64 */
		buf[i] = c->state.section_window[off + i];
	r->pos += n;
	return 0;
}

UW_INTERNAL int uw_rd_u8_slow(struct uw_reader *r, uint8_t *v)
{
	return uw_rd_bytes(r, v, 1);
}

UW_INTERNAL int uw_rd_uint_slow(struct uw_reader *r, uint32_t size,
				uint64_t *v)
{
	uint8_t buf[8];

	if (size == 0 || size > 8)
		return uw_rd_fail(r, UW_STOP_BAD_CFI, r->sec->addr + r->pos);
	if (uw_rd_bytes(r, buf, size) < 0)
		return -1;
	*v = uw_mem_le(buf, size);
	return 0;
}

UW_INTERNAL int uw_rd_skip(struct uw_reader *r, uint64_t n)
{
	if (n > r->end - r->pos)
		return uw_rd_fail(r, UW_STOP_BAD_CFI, r->sec->addr + r->pos);
	r->pos += n;
	return 0;
}

/* LEB128: at most 10 bytes (ceil(64 / 7)); a longer number is malformed. */
UW_INTERNAL int uw_rd_leb_slow(struct uw_reader *r, uint64_t *v,
			       int is_signed)
{
	uint64_t result = 0;
	uint32_t shift = 0;
	uint8_t byte = 0x80;
	int i;

	for (i = 0; i < 10 && (byte & 0x80); i++) {
		if (uw_rd_u8(r, &byte) < 0)
			return -1;
		if (shift < 64)
			result |= (uint64_t)(byte & 0x7f) << shift;
		shift += 7;
	}
	if (byte & 0x80)
		return uw_rd_fail(r, UW_STOP_BAD_CFI, r->sec->addr + r->pos);
	if (is_signed && shift < 64 && (byte & 0x40))
		result |= ~(uint64_t)0 << shift;
	*v = result;
	return 0;
}

/* Size in bytes of a fixed-size encoding; 0 for LEB128; -1 if invalid. */
UW_INTERNAL int uw_encoded_size(uint8_t enc, uint8_t addr_size)
{
	switch (enc & DW_EH_PE_FORMAT_MASK) {
	case DW_EH_PE_absptr:
	case DW_EH_PE_signed:
		return addr_size;
	case DW_EH_PE_udata2:
	case DW_EH_PE_sdata2:
		return 2;
	case DW_EH_PE_udata4:
	case DW_EH_PE_sdata4:
		return 4;
	case DW_EH_PE_udata8:
	case DW_EH_PE_sdata8:
		return 8;
	case DW_EH_PE_uleb128:
	case DW_EH_PE_sleb128:
		return 0;
	default:
		return -1;
	}
}

/* uw_rd_encoded (uw_internal.h), every encoding. */
UW_INTERNAL int uw_rd_encoded_slow(struct uw_reader *r, uint8_t enc,
				   uint64_t *v)
{
	struct uw_cursor *c = r->c;
	uint64_t field = r->sec->addr + r->pos;
	uint64_t base, raw = 0;
	int size;

	if (enc == DW_EH_PE_omit)
		return uw_rd_fail(r, UW_STOP_BAD_CFI, field);
	switch (enc & DW_EH_PE_APPL_MASK) {
	case 0:
		base = 0;
		break;
	case DW_EH_PE_pcrel:
		base = field;
		break;
	case DW_EH_PE_textrel:
		base = r->text_base;
		if (base == 0)
			return uw_rd_fail(r, UW_STOP_BAD_CFI, field);
		break;
	case DW_EH_PE_datarel:
		base = r->datarel_base;
		if (base == 0)
			return uw_rd_fail(r, UW_STOP_BAD_CFI, field);
		break;
	case DW_EH_PE_funcrel:
		base = r->func_base;
		break;
	case DW_EH_PE_aligned:
		/* Aligned to the address size in the link-time space. */
		base = (0 - field) & (uint64_t)(r->addr_size - 1);
		if (uw_rd_skip(r, base) < 0)
			return -1;
		base = 0;
		break;
	default:
		return uw_rd_fail(r, UW_STOP_BAD_CFI, field);
	}

	size = uw_encoded_size(enc, r->addr_size);
	if (size < 0)
		return uw_rd_fail(r, UW_STOP_BAD_CFI, field);
	if (size == 0) {
		if ((enc & DW_EH_PE_FORMAT_MASK) == DW_EH_PE_sleb128) {
			int64_t s;

			if (uw_rd_sleb(r, &s) < 0)
				return -1;
			raw = (uint64_t)s;
		} else if (uw_rd_uleb(r, &raw) < 0) {
			return -1;
		}
	} else {
		if (uw_rd_uint(r, (uint32_t)size, &raw) < 0)
			return -1;
		if (enc & DW_EH_PE_signed)	/* SIGNED, SDATA2/4/8 */
			raw = uw_sign_extend(raw, (uint32_t)size);
	}
	*v = (base + raw) & r->addr_mask;

	if (enc & DW_EH_PE_indirect) {
		/* The field holds the address of the pointer (in the target,
		 * relocated), so read it there and go back to link-time.
		 * Without a host (uw_index_build, uw_compile_run: a cursor as
		 * scratch) there is no target to read. */
		if (!c || !c->state.ops)
			return uw_rd_fail(r, UW_STOP_BAD_CFI, field);
		if (uw_read_target(c, (*v + c->state.tables->bias) & r->addr_mask,
				   r->addr_size, &raw) < 0)
			return -1;
		*v = (raw - c->state.tables->bias) & r->addr_mask;
	}
	return 0;
}
