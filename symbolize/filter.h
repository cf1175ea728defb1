/* symbolize/filter.h: stap-unwind-symbolize's filter, which names the
 * frames of a text as it copies it (names.h, perfmap.h), in two modes.
 *
 * Plain (stap-unwind-symbolize FILE...): every frame printed as
 * "[PATH+0xFOFF]", maybe with " {buildid=HEX bias=0xHEX}" (the raw form),
 * becomes "NAME+0xOFF/0xSIZE [PATH] at FILE:LINE", or stays, followed by
 * " (not symbolized: WHY)"; a frame line " 0xPC" alone (anonymous memory)
 * is named from the perf map given, if any.
 *
 * Stream (--stream): what the stap-unwind tools print, as they print it.
 * The frames of frame lines (" 0xPC : [PATH+0xFOFF]...": pstack's
 * records) are named as in plain mode, but a frame that no symbol contains
 * is named as stock SystemTap names it, after the nearest symbol before
 * it, marked "~NAME" (FRAME_NEAREST_MARK), and one that nothing names
 * stays as it is, without a reason; a frame line " 0xPC" alone is named
 * from the perf map of the process whose record it is in (a line
 * "<thread TID of COMM[PID] ...>" or "<N threads of COMM[PID]: ...>").
 * And the tools' own marks, each between two US characters (\037), are
 * read:
 *
 *   US u PID EUID N 0xPC TEXT US   a user frame, anywhere in a line:
 *       frame N (0: the innermost; above, a return address) of process
 *       PID, whose effective uid is EUID, at 0xPC, as the session printed
 *       it in the explicit form (usymframe_pid(PID, PC, N, 1)):
 *       "NAME+0xOFF/0xSIZE [PATH]" (a symbol of the process contains it),
 *       "[PATH+0xFOFF]", "[PATH]" or "0xADDR" (anonymous memory: PID's
 *       perf map).  Printed in the filter's form: the name alone, or
 *       "NAME+0xOFF/0xSIZE [OBJECT]" (--offsets); with --folded, a ';' of
 *       a name (a folded line's separator) as ':'.
 *   a line "US def ID US"           the text up to "US end US" (which may
 *       end a line or be one) is text number ID, named, not printed;
 *   a line "US d ID US TEXT"        TEXT, named, is a line of text number
 *       ID, which "US e ID US" (a line) ends: the lines of several texts
 *       may come interleaved (a session's CPUs print lines, not texts,
 *       whole);
 *   a line "US p ID US TEXT"        the same for a piece of a line: TEXT
 *       without its newline;
 *   US ref ID US                    text number ID, where it is defined;
 *   a line "US sum US"              begins a section of items, each
 *       beginning with a line "US item COUNT US ...": the text of each
 *       item (up to the next item, or the line "US end US" that ends the
 *       section), named and with its texts in place, is printed once per
 *       distinct text, with "US count US" replaced by the sum of the
 *       COUNTs of the items of that text, in increasing order of it.
 *
 * So a tool's session prints each stack once, as a numbered text, when it
 * first sees it, and at the end only numbers and counts; the stacks whose
 * names are the same (two call sites of one function) are summed here,
 * after naming.  Output that refers to a text not yet defined (the
 * session's CPUs' output may arrive in another order) waits for it; at
 * the end, a text never defined is printed as "[text ID not defined]" and
 * said on stderr.
 */
#ifndef STAP_UNWIND_FILTER_H
#define STAP_UNWIND_FILTER_H

#include <stdbool.h>
#include <stdio.h>

#include "names.h"
#include "perfmap.h"

struct filter_opts {
	bool stream;		/* the tools' stream (above); else plain */
	enum frame_form token_form;	/* FORM_NAME, or FORM_DATA: --offsets */
	bool folded;		/* --folded */
	struct perf_map *map;	/* plain: the map of bare frames, or NULL */
};

struct filter;

struct filter *filter_new(struct names *nm, struct perf_maps *pm,
			  const struct filter_opts *opts, const char *prog);

/* Filter in to stdout. */
void filter_file(struct filter *f, FILE *in);

/* At the end of the input: print what waits; 0, or 1 if some text was
 * never defined (said on stderr).  Frees f. */
int filter_end(struct filter *f);

#endif /* STAP_UNWIND_FILTER_H */
