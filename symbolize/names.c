/* symbolize/names.c: names of frames in files (names.h). */
#define _GNU_SOURCE
#include <elfutils/libdwelf.h>
#include <elfutils/libdwfl.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"

#define MAX_DEBUG_DIRS	16
#define MAX_OBJECTS	4096		/* objects kept open */
#define MAX_BUILD_ID	64
#define MAX_SYMBOLS	(1U << 22)	/* of one object, for the nearest */

/* A function symbol, for the nearest-symbol search. */
struct sym {
	GElf_Addr addr;		/* runtime address in the module */
	GElf_Word size;
	const char *name;	/* libdwfl's, alive with the Dwfl */
};

/* One object as the input names it: path and build-id (hex, maybe ""). */
struct object {
	char *path;
	char *build_id;
	Dwfl *dwfl;			/* NULL: not found (why) */
	Dwfl_Module *mod;
	GElf_Addr bias;			/* runtime = link-time + bias */
	Elf *elf;
	const char *why;
	struct sym *syms;		/* sorted by address; made on first use */
	size_t nsyms;
	bool syms_made;
};

struct names {
	const char *dirs[MAX_DEBUG_DIRS + 1];
	unsigned ndirs;
	char *debuginfo_path;		/* for libdwfl: "-:.debug:DIR:..." */
	Dwfl_Callbacks callbacks;
	struct object objects[MAX_OBJECTS];
	unsigned nobjects;
	char name[8192];		/* the last name given */
};

struct names *names_new(const char *const *dirs, unsigned n)
{
	struct names *nm = calloc(1, sizeof(*nm));
	size_t len = 16;

	if (!nm)
		return NULL;
	elf_version(EV_CURRENT);
	for (unsigned d = 0; d < n && d < MAX_DEBUG_DIRS; d++)	/* bound: MAX_DEBUG_DIRS */
		nm->dirs[nm->ndirs++] = dirs[d];
	nm->dirs[nm->ndirs++] = "/usr/lib/debug";
	for (unsigned d = 0; d < nm->ndirs; d++)	/* bound: MAX_DEBUG_DIRS + 1 */
		len += strlen(nm->dirs[d]) + 1;
	nm->debuginfo_path = malloc(len);
	if (!nm->debuginfo_path) {
		free(nm);
		return NULL;
	}
	strcpy(nm->debuginfo_path, "-:.debug");
	for (unsigned d = 0; d < nm->ndirs; d++) {	/* bound: MAX_DEBUG_DIRS + 1 */
		strcat(nm->debuginfo_path, ":");
		strcat(nm->debuginfo_path, nm->dirs[d]);
	}
	nm->callbacks.find_elf = dwfl_build_id_find_elf;
	nm->callbacks.find_debuginfo = dwfl_standard_find_debuginfo;
	nm->callbacks.section_address = dwfl_offline_section_address;
	nm->callbacks.debuginfo_path = &nm->debuginfo_path;
	return nm;
}

void names_free(struct names *nm)
{
	if (!nm)
		return;
	for (unsigned i = 0; i < nm->nobjects; i++) {	/* bound: MAX_OBJECTS */
		struct object *o = &nm->objects[i];

		if (o->dwfl)
			dwfl_end(o->dwfl);
		free(o->syms);
		free(o->path);
		free(o->build_id);
	}
	free(nm->debuginfo_path);
	free(nm);
}

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
static bool report(struct names *nm, struct object *o, const char *path)
{
	o->dwfl = dwfl_begin(&nm->callbacks);
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
static struct object *object_of(struct names *nm, const char *path,
				const char *build_id)
{
	struct object *o;
	char cand[4096];

	for (unsigned i = 0; i < nm->nobjects; i++)	/* bound: MAX_OBJECTS */
		if (!strcmp(nm->objects[i].path, path)
		    && !strcmp(nm->objects[i].build_id, build_id))
			return &nm->objects[i];
	if (nm->nobjects == MAX_OBJECTS)
		return NULL;
	o = &nm->objects[nm->nobjects];
	o->path = strdup(path);
	o->build_id = strdup(build_id);
	if (!o->path || !o->build_id) {
		free(o->path);
		free(o->build_id);
		return NULL;
	}
	nm->nobjects++;
	if (file_matches(path, build_id)) {
		if (!report(nm, o, path))
			o->why = "libdwfl cannot read it";
		return o;
	}
	if (!build_id[0] || strlen(build_id) < 4) {
		o->why = access(path, R_OK) ? "no such file, and no build-id" :
					      "not an ELF file";
		return o;
	}
	for (unsigned d = 0; d < nm->ndirs; d++) {	/* bound: MAX_DEBUG_DIRS + 1 */
		snprintf(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug",
			 nm->dirs[d], build_id, build_id + 2);
		if (file_matches(cand, build_id) && report(nm, o, cand))
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

static int sym_cmp(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* The object's function symbols with a name, by address: the table
 * libdwfl names frames from (.symtab of the file or of its debug file,
 * else .dynsym). */
static void make_syms(struct object *o)
{
	int n = dwfl_module_getsymtab(o->mod);
	size_t cap = 0;

	o->syms_made = true;
	for (int i = 1; i < n && o->nsyms < MAX_SYMBOLS; i++) {	/* bound: MAX_SYMBOLS */
		GElf_Sym s;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(o->mod, i, &s, &addr,
							   NULL, NULL, NULL);

		if (!name || !name[0] || s.st_shndx == SHN_UNDEF
		    || (GELF_ST_TYPE(s.st_info) != STT_FUNC
			&& GELF_ST_TYPE(s.st_info) != STT_GNU_IFUNC))
			continue;
		if (o->nsyms == cap) {
			struct sym *more;

			cap = cap ? cap * 2 : 256;
			more = realloc(o->syms, cap * sizeof(*more));
			if (!more)
				break;
			o->syms = more;
		}
		o->syms[o->nsyms++] = (struct sym){ addr, (GElf_Word)s.st_size, name };
	}
	qsort(o->syms, o->nsyms, sizeof(*o->syms), sym_cmp);
}

/* The nearest function symbol at or below addr, or NULL. */
static const struct sym *nearest_sym(struct object *o, GElf_Addr addr)
{
	size_t lo = 0, hi;

	if (!o->syms_made)
		make_syms(o);
	hi = o->nsyms;
	while (lo < hi) {	/* bound: log2(nsyms) halvings */
		size_t mid = lo + (hi - lo) / 2;

		if (o->syms[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo ? &o->syms[lo - 1] : NULL;
}

/* name without the version glibc's symbol tables append
 * ("__libc_start_main@@GLIBC_2.34"), as the dynamic symbol table names
 * it, in nm's buffer. */
static const char *unversioned(struct names *nm, const char *name)
{
	snprintf(nm->name, sizeof(nm->name), "%s", name);
	if (nm->name[0] != '@')
		nm->name[strcspn(nm->name, "@")] = '\0';
	return nm->name;
}

void names_file_frame(struct names *nm, const struct file_frame *f,
		      bool nearest, struct frame_name *out)
{
	struct object *o = object_of(nm, f->path, f->build_id);
	GElf_Addr link, addr, look, off;
	GElf_Sym sym;
	const char *name;
	Dwfl_Line *line;
	const struct sym *near;

	memset(out, 0, sizeof(*out));
	out->kind = FRAME_UNNAMED;
	if (!o) {
		out->why = "too many objects";
		return;
	}
	if (!o->dwfl) {
		out->why = o->why;
		return;
	}
	out->object = o->path;
	if (f->has_pc && f->has_bias) {
		link = f->pc - f->bias;
	} else if (!link_address(o->elf, f->foff, &link)) {
		out->why = "the offset is in no loadable segment of the file found "
			   "(a separate debug file: give bias=)";
		return;
	}
	addr = link + o->bias;
	look = f->caller && addr > 0 ? addr - 1 : addr;
	name = dwfl_module_addrinfo(o->mod, look, &off, &sym, NULL, NULL, NULL);
	/* A return address at a function's first byte was not pushed by a
	 * call: the kernel gives a signal handler the trampoline that ends
	 * the signal (glibc's __restore_rt, a symbol of size 0) to return
	 * to.  No symbol with a size holds the byte before it (libdwfl may
	 * offer the nearest one without a size below it, a guess); the
	 * trampoline is named. */
	if (look != addr && (!name || sym.st_size == 0)) {
		GElf_Off at_off;
		GElf_Sym at_sym;
		const char *at = dwfl_module_addrinfo(o->mod, addr, &at_off,
						      &at_sym, NULL, NULL, NULL);

		if (at && at_off == 0) {
			name = at;
			off = at_off;
			sym = at_sym;
			look = addr;
		}
	}
	if (name) {
		out->kind = FRAME_SYMBOL;
		out->name = unversioned(nm, name);
		out->off = off + (addr - look);	/* the pc's own offset */
		out->size = sym.st_size;
		line = dwfl_module_getsrc(o->mod, look);
		if (line) {
			const char *src = dwfl_lineinfo(line, NULL, &out->line,
							NULL, NULL, NULL);

			if (src && out->line > 0) {
				const char *base = strrchr(src, '/');

				out->src = base ? base + 1 : src;
			}
		}
		return;
	}
	out->why = "no symbol contains it";
	if (!nearest || !(near = nearest_sym(o, look)))
		return;
	out->kind = FRAME_NEAREST;
	out->name = unversioned(nm, near->name);
	out->off = addr - near->addr;
	out->size = near->size;
}

bool names_format(const struct frame_name *n, enum frame_form form,
		  char *buf, size_t len)
{
	const char *mark = n->kind == FRAME_NEAREST ? FRAME_NEAREST_MARK : "";
	int k;

	if (n->kind == FRAME_UNNAMED)
		return false;
	if (form == FORM_NAME) {
		snprintf(buf, len, "%s%s", mark, n->name);
		return true;
	}
	k = snprintf(buf, len, "%s%s+0x%" PRIx64 "/0x%" PRIx64 " [%s]", mark,
		     n->name, n->off, n->size, n->object);
	if (form == FORM_FULL && n->src && k > 0 && (size_t)k < len)
		snprintf(buf + k, len - (size_t)k, " at %s:%d", n->src, n->line);
	return true;
}
