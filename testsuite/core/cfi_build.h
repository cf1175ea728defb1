/* A builder of CFI bytes for the core's test programs: a buffer at a
 * link-time address, little-endian and LEB128 numbers, DW_EH_PE encoded
 * values, and .eh_frame CIEs and FDEs.  Define CFI_BUF_BYTES before
 * including it for tables larger than 16 KiB (the hostile tables of
 * uw_hostile.c).
 */
#ifndef UW_TEST_CFI_BUILD_H
#define UW_TEST_CFI_BUILD_H

#include <stdint.h>
#include <string.h>

#ifndef CFI_BUF_BYTES
#define CFI_BUF_BYTES 16384
#endif

#define CFI_UNUSED __attribute__((unused))

struct buf {
	uint8_t b[CFI_BUF_BYTES];
	size_t n;
	uint64_t addr;		/* link-time address of b[0] */
};

static CFI_UNUSED void u8(struct buf *b, uint64_t v) { b->b[b->n++] = (uint8_t)v; }
static CFI_UNUSED void un(struct buf *b, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		u8(b, v >> (8 * i));
}
static CFI_UNUSED void uleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t x = v & 0x7f;
		v >>= 7;
		u8(b, x | (v ? 0x80 : 0));
	} while (v);
}
static CFI_UNUSED void sleb(struct buf *b, int64_t v)
{
	int more = 1;
	while (more) {
		uint8_t x = v & 0x7f;
		v >>= 7;
		if ((v == 0 && !(x & 0x40)) || (v == -1 && (x & 0x40)))
			more = 0;
		else
			x |= 0x80;
		u8(b, x);
	}
}
static CFI_UNUSED void bytes(struct buf *b, const uint8_t *p, size_t n)
{
	if (n)
		memcpy(b->b + b->n, p, n);
	b->n += n;
}
static CFI_UNUSED void patch32(struct buf *b, size_t at, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b->b[at + i] = (uint8_t)(v >> (8 * i));
}

static CFI_UNUSED uint64_t g_datarel, g_textrel;
static CFI_UNUSED int g_asize = 8;

/* Encode value with a DW_EH_PE encoding at the current position. */
static CFI_UNUSED void put_enc(struct buf *b, uint8_t enc, uint64_t v)
{
	uint64_t field = b->addr + b->n;

	if ((enc & 0x70) == 0x50)
		while ((b->addr + b->n) % g_asize)
			u8(b, 0);
	switch (enc & 0x70) {
	case 0x10: v -= field; break;
	case 0x20: v -= g_textrel; break;
	case 0x30: v -= g_datarel; break;
	default: break;
	}
	switch (enc & 0x0f) {
	case 0x00: case 0x08: un(b, v, g_asize); break;
	case 0x01: uleb(b, v); break;
	case 0x09: sleb(b, (int64_t)v); break;
	case 0x02: case 0x0a: un(b, v, 2); break;
	case 0x03: case 0x0b: un(b, v, 4); break;
	case 0x04: case 0x0c: un(b, v, 8); break;
	}
}

/* CIE for .eh_frame; aug is "" or "z..." with R as the only data-bearing
 * letter besides S.  Returns the CIE offset. */
static CFI_UNUSED size_t cie(struct buf *b, int version, const char *aug, int64_t daf,
		  unsigned ra, uint8_t fde_enc, const uint8_t *ins, size_t n)
{
	size_t at = b->n;

	un(b, 0, 4);
	un(b, 0, 4);		/* CIE id */
	u8(b, version);
	bytes(b, (const uint8_t *)aug, strlen(aug) + 1);
	uleb(b, 1);		/* code alignment */
	sleb(b, daf);
	if (version == 1)
		u8(b, ra);
	else
		uleb(b, ra);
	if (aug[0] == 'z') {
		uleb(b, strchr(aug, 'R') ? 1 : 0);
		if (strchr(aug, 'R'))
			u8(b, fde_enc);
	}
	bytes(b, ins, n);
	patch32(b, at, (uint32_t)(b->n - at - 4));
	return at;
}

static CFI_UNUSED size_t fde(struct buf *b, size_t cie_at, int z, uint8_t enc,
		  uint64_t begin, uint64_t range, const uint8_t *ins, size_t n)
{
	size_t at = b->n;

	un(b, 0, 4);
	un(b, b->n - cie_at, 4);
	put_enc(b, enc, begin);
	{
		uint8_t fmt = enc & 0x0f;
		if (fmt == 0x01 || fmt == 0x09)
			uleb(b, range);
		else if ((enc & 0x70) == 0x50 || fmt == 0 || fmt == 8)
			un(b, range, g_asize);
		else
			un(b, range, fmt == 2 || fmt == 0xa ? 2 : fmt == 3 || fmt == 0xb ? 4 : 8);
	}
	if (z)
		uleb(b, 0);
	bytes(b, ins, n);
	patch32(b, at, (uint32_t)(b->n - at - 4));
	return at;
}

#endif /* UW_TEST_CFI_BUILD_H */
