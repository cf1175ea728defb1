/* symbolize/names.h: names of user frames, found in user space.  The
 * library behind stap-unwind-symbolize and the tools' names
 * (symbolize/filter.h).
 *
 * A frame in a file -- its object's path and the frame's offset in that
 * file, maybe the object's build-id and load bias -- is named from the
 * object's own symbol table (.symtab, else .dynsym) and DWARF line table,
 * or from its separate debug file, found by build-id or .gnu_debuglink in
 * the debug directories and /usr/lib/debug, or fetched from debuginfod
 * servers (DEBUGINFOD_URLS): elfutils libdwfl.  Each object is opened
 * once, the first time a frame names it, and kept for the run.  A frame
 * that no symbol contains may be named as stock SystemTap names it, after
 * the nearest symbol before it (FRAME_NEAREST), which the printed forms
 * mark.
 *
 * A frame in anonymous memory (code a JIT or an interpreter wrote) is
 * named from the process's perf map (symbolize/perfmap.h).
 */
#ifndef STAP_UNWIND_NAMES_H
#define STAP_UNWIND_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum frame_name_kind {
	FRAME_UNNAMED,		/* nothing names it: why says why */
	FRAME_SYMBOL,		/* a symbol contains it */
	FRAME_NEAREST,		/* no symbol contains it: the nearest one
				 * before it, stock's grammar (OFF >= SIZE) */
	FRAME_PERF_MAP,		/* an entry of a perf map contains it */
};

/* A frame's name.  The strings belong to the library: name lives until
 * the next call that names a frame, the others until names_free(). */
struct frame_name {
	enum frame_name_kind kind;
	const char *name;
	uint64_t off;		/* the frame's pc from the start of name */
	uint64_t size;		/* name's extent */
	const char *object;	/* the file that named it */
	const char *src;	/* the source file (NULL: not known) */
	int line;
	const char *why;	/* FRAME_UNNAMED */
};

/* A frame in a file, as the input gives it. */
struct file_frame {
	const char *path;
	uint64_t foff;		/* the frame's offset in the file */
	const char *build_id;	/* lowercase hex; "" if not given */
	bool has_pc, has_bias;
	uint64_t pc, bias;	/* runtime address; runtime - link-time */
	bool caller;		/* a return address: its call is looked up */
};

struct names;

/* A namer that looks for debug files in dirs[0 .. n-1] (build-id trees),
 * then /usr/lib/debug.  NULL if out of memory. */
struct names *names_new(const char *const *dirs, unsigned n);
void names_free(struct names *nm);

/* Name frame f.  With nearest, a frame that no symbol contains is named
 * after the nearest symbol before it (FRAME_NEAREST); without, it is
 * FRAME_UNNAMED. */
void names_file_frame(struct names *nm, const struct file_frame *f,
		      bool nearest, struct frame_name *out);

/* How a name is printed. */
enum frame_form {
	FORM_NAME,		/* "NAME" */
	FORM_DATA,		/* "NAME+0xOFF/0xSIZE [OBJECT]" */
	FORM_FULL,		/* FORM_DATA and " at FILE:LINE" */
};

/* The mark of a name in stock's grammar (FRAME_NEAREST): "~NAME", "the
 * code after NAME".  A demangled or plain symbol never starts with it. */
#define FRAME_NEAREST_MARK "~"

/* Print n in form into buf (size len, truncated at it); false if n is
 * FRAME_UNNAMED (buf untouched). */
bool names_format(const struct frame_name *n, enum frame_form form,
		  char *buf, size_t len);

#endif /* STAP_UNWIND_NAMES_H */
