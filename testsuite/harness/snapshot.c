/* Capturing, saving and replaying snapshots of stopped threads; see
   snapshot.h for the file format.  */
#define _GNU_SOURCE
#include "snapshot.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>

#define SNAP_MAGIC 0x50414e53u
static const char file_magic[8] __attribute__((nonstring)) = "UWSNAP01";

uint64_t uw_snapshot_pc(const struct uw_snapshot *s)
{
	return s->arch == 32 ? (uint32_t)s->regs.rip : s->regs.rip;
}

uint64_t uw_snapshot_sp(const struct uw_snapshot *s)
{
	return s->arch == 32 ? (uint32_t)s->regs.rsp : s->regs.rsp;
}

static char *read_text_file(const char *path, size_t *len_out)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	size_t cap = 8192, len = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (len + 4096 + 1 > cap)
			buf = realloc(buf, cap *= 2);
		ssize_t n = read(fd, buf + len, cap - len - 1);
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	buf[len] = '\0';
	*len_out = len;
	return buf;
}

/* UW_SYSROOT, when set, is where the snapshot's files are on this machine:
   snapshots recorded in the stapvm guest name the guest's paths, which the
   host finds under the target tree (bench/run.sh on a host without i386).  */
static const char *snapshot_sysroot(void)
{
	const char *root = getenv("UW_SYSROOT");
	return root && *root ? root : "";
}

int uw_snapshot_parse_maps(struct uw_snapshot *s)
{
	if (s->mappings)
		return 0;
	const char *root = snapshot_sysroot();
	size_t rootlen = strlen(root);
	size_t lines = 1;
	for (size_t i = 0; i < s->maps_len; i++)
		lines += s->maps_text[i] == '\n';
	s->mappings = calloc(lines, sizeof *s->mappings);
	/* Each line copied with ROOT before an absolute path; NUL-terminated.  */
	s->maps_storage = malloc(s->maps_len + lines * (rootlen + 1) + 1);
	s->nmappings = 0;

	char *out = s->maps_storage;
	const char *text = s->maps_text, *end = text + s->maps_len;
	while (text < end) { /* bound: one line of the maps text per pass */
		const char *nl = memchr(text, '\n', (size_t)(end - text));
		size_t len = nl ? (size_t)(nl - text) : (size_t)(end - text);
		char *line = out;
		memcpy(line, text, len);
		line[len] = '\0';
		text += len + (nl != NULL);
		struct uw_mapping *m = &s->mappings[s->nmappings];
		int path_at = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s %" SCNx64 " %*s %*u %n",
			   &m->start, &m->end, m->perms, &m->offset, &path_at) < 4) {
			continue;
		}
		if (path_at && line[path_at] == '/' && rootlen) {
			memmove(line + path_at + rootlen, line + path_at, len - (size_t)path_at + 1);
			memcpy(line + path_at, root, rootlen);
			len += rootlen;
		}
		m->path = path_at ? line + path_at : "";
		out += len + 1;
		s->nmappings++;
	}
	return 0;
}

const struct uw_mapping *uw_snapshot_find_mapping(const struct uw_snapshot *s, uint64_t addr)
{
	for (int i = 0; i < s->nmappings; i++)
		if (addr >= s->mappings[i].start && addr < s->mappings[i].end)
			return &s->mappings[i];
	return NULL;
}

bool uw_snapshot_read(const struct uw_snapshot *s, uint64_t addr, void *out, size_t len)
{
	for (int i = 0; i < s->nregions; i++) {
		const struct uw_region *r = &s->regions[i];
		if (addr >= r->base && addr - r->base <= r->len && len <= r->len - (addr - r->base)) {
			memcpy(out, r->bytes + (addr - r->base), len);
			return true;
		}
	}
	return false;
}

static int add_region(struct uw_snapshot *s, pid_t pid, uint64_t base, uint64_t len)
{
	if (s->nregions == UW_MAX_REGIONS || len == 0)
		return 0;
	struct uw_region *r = &s->regions[s->nregions];
	r->bytes = malloc(len);
	struct iovec local = { r->bytes, len };
	struct iovec remote = { (void *)(uintptr_t)base, len };
	ssize_t n = process_vm_readv(pid, &local, 1, &remote, 1, 0);
	if (n <= 0) {
		free(r->bytes);
		r->bytes = NULL;
		return -errno;
	}
	r->base = base;
	r->len = (uint64_t)n;
	s->nregions++;
	return 0;
}

int uw_snapshot_capture(struct uw_snapshot *s, pid_t pid, int arch)
{
	memset(s, 0, sizeof *s);
	s->arch = arch;
	s->nframes = -1;
	if (ptrace(PTRACE_GETREGS, pid, NULL, &s->regs) != 0)
		return -errno;

	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", pid);
	s->maps_text = read_text_file(path, &s->maps_len);
	if (!s->maps_text)
		return -errno;
	uw_snapshot_parse_maps(s);

	/* The stack from SP up; when SP is on an alternate signal stack the
	   interrupted frames are on the main stack, so take that too.  */
	uint64_t sp = uw_snapshot_sp(s);
	const struct uw_mapping *sp_map = uw_snapshot_find_mapping(s, sp);
	if (sp_map) {
		uint64_t end = sp_map->end;
		if (end - sp > UW_STACK_CAP)
			end = sp + UW_STACK_CAP;
		add_region(s, pid, sp, end - sp);
	}
	for (int i = 0; i < s->nmappings; i++) {
		const struct uw_mapping *m = &s->mappings[i];
		if (m == sp_map)
			continue;
		if (strcmp(m->path, "[stack]") == 0) {
			uint64_t start = m->end - m->start > UW_STACK_CAP ? m->end - UW_STACK_CAP : m->start;
			add_region(s, pid, start, m->end - start);
		} else if (strcmp(m->path, "[vdso]") == 0) {
			add_region(s, pid, m->start, m->end - m->start);
		}
	}
	return 0;
}

void uw_snapshot_free(struct uw_snapshot *s)
{
	for (int i = 0; i < s->nregions; i++)
		free(s->regions[i].bytes);
	free(s->label);
	free(s->maps_text);
	free(s->mappings);
	free(s->maps_storage);
	memset(s, 0, sizeof *s);
}

/* ---- files ---- */

struct snap_head {
	uint32_t magic, arch, nregions, maps_len, nframes, label_len;
};

struct snap_frame_rec {
	uint64_t pc, sp;
	uint32_t flags, pad;
};

int uw_snapshot_write_header(FILE *f)
{
	return fwrite(file_magic, sizeof file_magic, 1, f) == 1 ? 0 : -1;
}

int uw_snapshot_write(FILE *f, const struct uw_snapshot *s)
{
	size_t label_len = s->label ? strlen(s->label) : 0;
	int nframes = s->nframes > 0 ? s->nframes : 0;
	struct snap_head h = { SNAP_MAGIC, (uint32_t)s->arch, (uint32_t)s->nregions,
			       (uint32_t)s->maps_len, (uint32_t)nframes, (uint32_t)label_len };
	fwrite(&h, sizeof h, 1, f);
	fwrite(&s->regs, sizeof s->regs, 1, f);
	fwrite(s->label, 1, label_len, f);
	fwrite(s->maps_text, 1, s->maps_len, f);
	for (int i = 0; i < s->nregions; i++) {
		fwrite(&s->regions[i].base, 8, 1, f);
		fwrite(&s->regions[i].len, 8, 1, f);
		fwrite(s->regions[i].bytes, 1, s->regions[i].len, f);
	}
	for (int i = 0; i < nframes; i++) {
		struct snap_frame_rec r = { s->frames[i].pc, s->frames[i].sp,
					    (s->frames[i].activation ? 1u : 0u) |
						    (s->frames[i].has_sp ? 2u : 0u), 0 };
		fwrite(&r, sizeof r, 1, f);
	}
	return ferror(f) ? -1 : 0;
}

int uw_snapshot_read_header(FILE *f)
{
	char magic[sizeof file_magic];
	if (fread(magic, sizeof magic, 1, f) != 1 || memcmp(magic, file_magic, sizeof magic) != 0)
		return -1;
	return 0;
}

int uw_snapshot_read_next(FILE *f, struct uw_snapshot *s)
{
	struct snap_head h;
	memset(s, 0, sizeof *s);
	if (fread(&h, sizeof h, 1, f) != 1)
		return 0;
	if (h.magic != SNAP_MAGIC || h.nregions > UW_MAX_REGIONS || h.nframes > UW_MAX_FRAMES ||
	    (h.arch != 64 && h.arch != 32))
		return -1;
	s->arch = (int)h.arch;
	s->nregions = (int)h.nregions;
	s->nframes = (int)h.nframes;
	s->maps_len = h.maps_len;
	s->label = calloc(1, h.label_len + 1);
	s->maps_text = calloc(1, h.maps_len + 1);
	if (fread(&s->regs, sizeof s->regs, 1, f) != 1 ||
	    fread(s->label, 1, h.label_len, f) != h.label_len ||
	    fread(s->maps_text, 1, h.maps_len, f) != h.maps_len)
		return -1;
	for (int i = 0; i < s->nregions; i++) {
		struct uw_region *r = &s->regions[i];
		if (fread(&r->base, 8, 1, f) != 1 || fread(&r->len, 8, 1, f) != 1 ||
		    r->len > 64u * 1024 * 1024)
			return -1;
		r->bytes = malloc(r->len ? r->len : 1);
		if (fread(r->bytes, 1, r->len, f) != r->len)
			return -1;
	}
	for (int i = 0; i < s->nframes; i++) {
		struct snap_frame_rec r;
		if (fread(&r, sizeof r, 1, f) != 1)
			return -1;
		s->frames[i] = (struct uw_frame){ .pc = r.pc, .sp = r.sp, .activation = r.flags & 1, .has_sp = (r.flags & 2) != 0 };
	}
	uw_snapshot_parse_maps(s);
	return 1;
}

/* libdwfl calls a signal trampoline frame an activation too (its
   isactivation is "this or the next frame is a signal frame"), while the
   trampoline's pc is the return address the kernel pushed for the handler.
   Both name the same pc; only the flag's convention differs, so the flag of
   a trampoline frame (an activation followed by another activation in
   libdwfl's list) is not compared.  */
static bool oracle_trampoline(const struct uw_frame *oracle, int n, int i)
{
	return i > 0 && i + 1 < n && oracle[i].activation && oracle[i + 1].activation;
}

bool uw_frames_equal(const struct uw_frame *oracle, int na, const struct uw_frame *b, int nb)
{
	return na == nb && uw_frames_first_difference(oracle, na, b, nb) == na;
}

int uw_frames_first_difference(const struct uw_frame *oracle, int na, const struct uw_frame *b,
			       int nb)
{
	int i = 0;
	for (; i < na && i < nb; i++) {
		if (oracle[i].pc != b[i].pc)
			break;
		if (oracle[i].activation != b[i].activation && !oracle_trampoline(oracle, na, i))
			break;
		if (oracle[i].has_sp && b[i].has_sp && oracle[i].sp != b[i].sp)
			break;
	}
	return i; /* == min(na, nb) when every common frame matches */
}

void uw_frames_print(FILE *f, const char *who, const struct uw_frame *fr, int n,
		     const struct uw_snapshot *s)
{
	fprintf(f, "  %s: %d frames\n", who, n);
	for (int i = 0; i < n; i++) {
		const struct uw_mapping *m = s ? uw_snapshot_find_mapping(s, fr[i].pc) : NULL;
		fprintf(f, "    #%-3d pc %#" PRIx64 "%s", i, fr[i].pc, fr[i].activation ? "" : " (ret)");
		if (fr[i].has_sp)
			fprintf(f, " sp %#" PRIx64, fr[i].sp);
		if (m)
			fprintf(f, "  %s+%#" PRIx64, *m->path ? m->path : "[anon]",
				fr[i].pc - m->start + m->offset);
		fputc('\n', f);
	}
}
