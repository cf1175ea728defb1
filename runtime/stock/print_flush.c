/* stap-unwind: the runtime's print_flush.c, where stock's loses records.
 *
 * A flush sends the print buffer to the relay as one record: a header
 * (struct _stp_trace: sequence number, length) and the text.  Where the
 * record does not fit in what is left of the current sub-buffer (a page),
 * the relay reserves that rest and the record goes on in the next
 * sub-buffer; stapio reads each CPU's relay as one stream of bytes
 * (read() goes on across sub-buffers), the header with one read and the
 * text with as many as it takes.
 *
 * A runtime whose flush wants the whole header in the first piece, and
 * cannot skip padding (SystemTap 4.8: no STAP_TRACE_MAGIC for its reader
 * to find a header again by), drops the record and counts a transport
 * failure whenever the rest is 1 to 8 bytes, leaving those bytes
 * unwritten for the reader to take as a header.  Once records exceed a
 * page that is about one flush in 500: a session that prints a few
 * megabytes (snapshots of many threads, a profile's stacks) ends with
 * "There were N transport failures" and holes in its output.  There
 * (STP_UW_FLUSH_AS_STREAM, stap-unwind/features.h) a flush writes its
 * record as bytes, header included, across as many reservations as it
 * takes.  A runtime that pads such a rest and starts the header in the
 * next sub-buffer (SystemTap 5.0 and later) keeps its flush.
 */
#ifndef STP_UW_PRINT_FLUSH_C
#define STP_UW_PRINT_FLUSH_C

#include "stap-unwind/features.h"

#ifdef STP_UW_FLUSH_AS_STREAM

/* Copy the N bytes at FROM into this CPU's relay, through as many
 * reservations as they take: false when the relay is full (the rest is
 * lost, as with stock). */
static bool stp_uw_relay_write(const char *from, size_t n)
{
	void *entry;
	size_t got;

	while (n > 0) {	/* bound: each pass writes at least one byte or returns */
		entry = NULL;
		got = _stp_data_write_reserve(n, &entry);
		/* 0: full; above n: an error number, as size_t */
		if (!entry || got == 0 || got > n)
			return false;
		memcpy(_stp_data_entry_data(entry), from, got);
		_stp_data_write_commit(entry);
		from += got;
		n -= got;
	}
	return true;
}

/* Called with interrupts off (stock's print.c). */
static void __stp_print_flush(struct _stp_log *log)
{
	struct _stp_trace header;
	size_t len = log->len;

	if (likely(len == 0))
		return;
#if STP_UW_STOCK_LOG_NO_FLUSH
	if (unlikely(log->no_flush)) {
		log->is_full = true;
		return;
	}
#endif
	log->len = 0;
	memset(&header, 0, sizeof(header));
	header.sequence = _stp_seq_inc();
	header.pdu_len = len;
	if (!stp_uw_relay_write((const char *)&header, sizeof(header))
	    || !stp_uw_relay_write(log->buf, len))
		atomic_inc(&_stp_transport_failures);
}

#else
#include "stap-unwind-stock/print_flush_c/print_flush.c"
#endif

#endif /* STP_UW_PRINT_FLUSH_C */
