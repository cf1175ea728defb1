/* stap-unwind-symbolize: name, afterwards, the user frames that a script
 * printed as an object and a file offset.
 *
 *   stap-unwind-symbolize [--debug-dir DIR]... [FILE...]
 *
 * A filter (FILE..., or standard input, to standard output).  Every frame
 * printed as "[PATH+0xFOFF]" -- what print_ubacktrace() prints for an
 * address that no symbol the runtime knows contains (local functions of
 * objects not named with -d, usym_explicit(1)) -- optionally followed by
 * " {buildid=HEX bias=0xHEX}" (the raw form: ubuildid(), and the load
 * bias, runtime minus link-time address, of uw_vma_mapping()), becomes
 *
 *   NAME+0xOFF/0xSIZE [PATH] at FILE:LINE
 *
 * from the object's own symbol table (.symtab, or .dynsym) and DWARF line
 * table, read with elfutils libdwfl; everything else is copied unchanged.
 * The object is found:
 *   - at PATH, if that file's build-id is the one given (or none is);
 *   - else by build-id, as DIR/.build-id/NN/REST.debug in each --debug-dir
 *     and in /usr/lib/debug;
 * and its separate debuginfo (for file:line and local symbols of a stripped
 * object) by build-id or .gnu_debuglink in the same directories.  The
 * frame's link-time address is the line's pc (" 0xPC : ...") minus the
 * bias, when both are given, else the file offset's place in the file's
 * PT_LOADs (a separate debug file keeps the addresses, not the offsets,
 * so an object found only as one needs the bias).  A frame
 * that cannot be named is left as it was, followed by " (not symbolized:
 * WHY)", never silently.
 *
 * Frames after the first of a backtrace (consecutive frame lines) are
 * return addresses: they are looked up at the address before them, the
 * call, as gdb and the runtime do, and their offset is still the pc's.
 */
#define _GNU_SOURCE
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define MAX_DEBUG_DIRS	16
#define MAX_OBJECTS	4096		/* objects kept open */
#define MAX_BUILD_ID	64

static const char *debug_dirs[MAX_DEBUG_DIRS + 1];
static unsigned ndebug_dirs;
static char *debuginfo_path;		/* for libdwfl: "-:.debug:DIR:..." */

/* One object as the input names it: path and build-id (hex, maybe ""). */
struct object {
	char *path;
	char *build_id;
	Dwfl *dwfl;			/* NULL: not found (why) */
	Dwfl_Module *mod;
	GElf_Addr bias;			/* runtime = link-time + bias */
	Elf *elf;
	const char *why;
};

static struct object objects[MAX_OBJECTS];
static unsigned nobjects;

static const Dwfl_Callbacks callbacks = {
	.find_elf = dwfl_build_id_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
	.section_address = dwfl_offline_section_address,
	.debuginfo_path = &debuginfo_path,
};

/* The file's GNU build-id as hex into out (2 * MAX_BUILD_ID + 1); "" if
 * it has none. */
static void file_build_id(Elf *elf, char *out)
{
	const unsigned char *bits;
	int len;

	out[0] = '\0';
	len = dwelf_elf_gnu_build_id(elf, (const void **)&bits);
	for (int i = 0; i < len && i < MAX_BUILD_ID; i++)	/* bound: MAX_BUILD_ID */
		sprintf(out + 2 * i, "%02x", bits[i]);
}

/* Report the file at path to a new Dwfl as an offline module. */
static bool report(struct object *o, const char *path)
{
	o->dwfl = dwfl_begin(&callbacks);
	if (!o->dwfl)
		return false;
	o->mod = dwfl_report_offline(o->dwfl, o->path, path, -1);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod || !(o->elf = dwfl_module_getelf(o->mod, &o->bias))) {
		dwfl_end(o->dwfl);
		o->dwfl = NULL;
		o->mod = NULL;
		return false;
	}
	return true;
}

/* Whether the file at path exists and, if want is not empty, has that
 * build-id. */
static bool file_matches(const char *path, const char *want)
{
	char have[2 * MAX_BUILD_ID + 1];
	int fd = open(path, O_RDONLY);
	Elf *elf;
	bool ok;

	if (fd < 0)
		return false;
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	ok = elf && elf_kind(elf) == ELF_K_ELF;
	if (ok && want[0]) {
		file_build_id(elf, have);
		ok = strcmp(have, want) == 0;
	}
	elf_end(elf);
	close(fd);
	return ok;
}

/* The object of (path, build_id), found and opened once. */
static struct object *object_of(const char *path, const char *build_id)
{
	struct object *o;
	char cand[4096];

	for (unsigned i = 0; i < nobjects; i++)	/* bound: MAX_OBJECTS */
		if (!strcmp(objects[i].path, path) && !strcmp(objects[i].build_id, build_id))
			return &objects[i];
	if (nobjects == MAX_OBJECTS)
		return NULL;
	o = &objects[nobjects++];
	o->path = strdup(path);
	o->build_id = strdup(build_id);
	if (file_matches(path, build_id)) {
		if (!report(o, path))
			o->why = "libdwfl cannot read it";
		return o;
	}
	if (!build_id[0] || strlen(build_id) < 4) {
		o->why = access(path, R_OK) ? "no such file, and no build-id" :
					      "not an ELF file";
		return o;
	}
	for (unsigned d = 0; d < ndebug_dirs; d++) {	/* bound: MAX_DEBUG_DIRS + 1 */
		snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug",
			 debug_dirs[d], build_id, build_id + 2);
		if (file_matches(cand, build_id) && report(o, cand))
			return o;
	}
	o->why = "the file has another build-id or is gone, and no debug file has its build-id";
	return o;
}

/* The link-time address of file offset foff (a PT_LOAD's file bytes). */
static bool link_address(Elf *elf, uint64_t foff, GElf_Addr *out)
{
	size_t n;

	if (elf_getphdrnum(elf, &n) != 0)
		return false;
	for (size_t i = 0; i < n; i++) {	/* bound: the program headers */
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (foff >= ph.p_offset && foff < ph.p_offset + ph.p_filesz) {
			*out = ph.p_vaddr + (foff - ph.p_offset);
			return true;
		}
	}
	return false;
}

/* A frame as the input gives it. */
struct frame {
	char path[4096];
	uint64_t foff;
	char build_id[2 * MAX_BUILD_ID + 1];	/* "" = not given */
	bool has_pc, has_bias;
	uint64_t pc, bias;
	bool caller;		/* a return address: look up pc - 1 */
};

/* Name frame f into out; false with *why. */
static bool symbolize(const struct frame *f, char *out, size_t outsz,
		      const char **why)
{
	struct object *o = object_of(f->path, f->build_id);
	GElf_Addr link, addr, look, off;
	GElf_Sym sym;
	const char *name, *src = NULL;
	Dwfl_Line *line;
	int lineno = 0;
	int n;

	if (!o) {
		*why = "too many objects";
		return false;
	}
	if (!o->dwfl) {
		*why = o->why;
		return false;
	}
	if (f->has_pc && f->has_bias) {
		link = f->pc - f->bias;
	} else if (!link_address(o->elf, f->foff, &link)) {
		*why = "the offset is in no loadable segment of the file found "
		       "(a separate debug file: give bias=)";
		return false;
	}
	addr = link + o->bias;
	look = f->caller && addr > 0 ? addr - 1 : addr;
	name = dwfl_module_addrinfo(o->mod, look, &off, &sym, NULL, NULL, NULL);
	if (!name) {
		*why = "no symbol contains it";
		return false;
	}
	off += addr - look;	/* the pc's own offset */
	line = dwfl_module_getsrc(o->mod, look);
	if (line)
		src = dwfl_lineinfo(line, NULL, &lineno, NULL, NULL, NULL);
	n = snprintf(out, outsz, "%s+%#" PRIx64 "/%#" PRIx64 " [%s]", name,
		     (uint64_t)off, (uint64_t)sym.st_size, f->path);
	if (src && lineno > 0 && n > 0 && (size_t)n < outsz) {
		const char *base = strrchr(src, '/');

		snprintf(out + n, outsz - (size_t)n, " at %s:%d", base ? base + 1 : src,
			 lineno);
	}
	return true;
}

/* The fields of a raw frame's " {buildid=HEX bias=0xHEX}" at p (either
 * may be left out); returns the end of the braces, or p if there are none
 * or they are not that. */
static char *raw_fields(char *p, struct frame *f)
{
	char *q = p + 2, *e;

	if (strncmp(p, " {", 2))
		return p;
	/* bound: the two fields */
	for (int k = 0; k < 2 && *q != '}'; k++) {
		if (!strncmp(q, "buildid=", 8)) {
			size_t n = strspn(q + 8, "0123456789abcdef");

			if (n == 0 || n > 2 * MAX_BUILD_ID)
				return p;
			memcpy(f->build_id, q + 8, n);
			f->build_id[n] = '\0';
			q += 8 + n;
		} else if (!strncmp(q, "bias=0x", 7)) {
			errno = 0;
			f->bias = strtoull(q + 7, &e, 16);
			if (errno || e == q + 7)
				return p;
			f->has_bias = true;
			q = e;
		} else {
			return p;
		}
		if (*q == ' ')
			q++;
	}
	return *q == '}' ? q + 1 : p;
}

/* A frame token in line: "[PATH+0xFOFF]" and its raw fields.  Returns its
 * start, with *end past it and f filled, or NULL. */
static char *find_frame(char *line, char **end, struct frame *f)
{
	char *p = line;

	while ((p = strchr(p, '[')) != NULL) {	/* bound: the line's length */
		char *close = strchr(p, ']'), *plus = NULL, *q, *e;

		if (!close)
			return NULL;
		for (q = close; q > p; q--)	/* bound: the token's length */
			if (q[0] == '+' && q[1] == '0' && q[2] == 'x') {
				plus = q;
				break;
			}
		if (plus && p[1] == '/' && (size_t)(plus - p - 1) < sizeof(f->path)) {
			errno = 0;
			f->foff = strtoull(plus + 3, &e, 16);
			if (e == close && errno == 0) {
				memcpy(f->path, p + 1, (size_t)(plus - p - 1));
				f->path[plus - p - 1] = '\0';
				f->build_id[0] = '\0';
				f->has_bias = false;
				*end = raw_fields(close + 1, f);
				return p;
			}
		}
		p = close + 1;
	}
	return NULL;
}

/* A frame line of a backtrace: " 0xPC : ..."; its pc. */
static bool frame_line(const char *line, uint64_t *pc)
{
	char *e;

	if (strncmp(line, " 0x", 3))
		return false;
	*pc = strtoull(line + 3, &e, 16);
	return e > line + 3 && !strncmp(e, " : ", 3);
}

static void filter(FILE *in)
{
	static struct frame f;
	static char named[8192];
	char *line = NULL;
	size_t cap = 0;
	bool in_stack = false;

	while (getline(&line, &cap, in) >= 0) {	/* bound: the input */
		char *start, *end;
		const char *why = NULL;
		bool after_frame = in_stack;

		in_stack = frame_line(line, &f.pc);
		f.has_pc = in_stack;
		f.caller = in_stack && after_frame;
		start = find_frame(line, &end, &f);
		if (!start) {
			fputs(line, stdout);
			continue;
		}
		if (symbolize(&f, named, sizeof(named), &why)) {
			fwrite(line, 1, (size_t)(start - line), stdout);
			fputs(named, stdout);
			fputs(end, stdout);
		} else {
			fwrite(line, 1, strcspn(line, "\n"), stdout);
			printf(" (not symbolized: %s)\n", why);
		}
	}
	free(line);
}

static void usage(void)
{
	fprintf(stderr, "usage: stap-unwind-symbolize [--debug-dir DIR]... [FILE...]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	size_t len = 16;
	int i;

	elf_version(EV_CURRENT);
	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {	/* bound: argc */
		if (!strcmp(argv[i], "--")) {
			i++;
			break;
		}
		if (strcmp(argv[i], "--debug-dir") || i + 1 >= argc || ndebug_dirs == MAX_DEBUG_DIRS)
			usage();
		debug_dirs[ndebug_dirs++] = argv[++i];
	}
	debug_dirs[ndebug_dirs++] = "/usr/lib/debug";
	for (unsigned d = 0; d < ndebug_dirs; d++)	/* bound: MAX_DEBUG_DIRS + 1 */
		len += strlen(debug_dirs[d]) + 1;
	debuginfo_path = malloc(len);
	strcpy(debuginfo_path, "-:.debug");
	for (unsigned d = 0; d < ndebug_dirs; d++) {	/* bound: MAX_DEBUG_DIRS + 1 */
		strcat(debuginfo_path, ":");
		strcat(debuginfo_path, debug_dirs[d]);
	}
	if (i == argc)
		filter(stdin);
	for (; i < argc; i++) {	/* bound: argc */
		FILE *f = fopen(argv[i], "r");

		if (!f) {
			fprintf(stderr, "stap-unwind-symbolize: %s: %s\n", argv[i], strerror(errno));
			return 1;
		}
		filter(f);
		fclose(f);
	}
	return 0;
}
