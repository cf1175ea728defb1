/* profile-oracle: the independent judge of kernel.ustack/profile.exp.
 *
 * Reads the samples printed by scripts/profile-mix.stp (registers at the
 * sample, a copy of the user stack from sp on, and the pcs of the runtime's
 * ubacktrace()) and the maps and vdso copies that run-mix.sh took of each
 * process before it was killed.  Unwinds every sample again with elfutils
 * libdwfl (dwfl_attach_state: the registers as the initial state, memory
 * served from the stack copy and from the mapped ELF files' pages, each
 * object's own CFI) and compares frame by frame.  Runs in the guest, whose
 * elfutils (0.196) unwinds i386 processes correctly.
 *
 *   profile-oracle SAMPLES MAPSDIR [VERBOSE-MISMATCHES]
 *
 * Prints "V SEQ EQUAL" for every sample (SEQ: its S line's number from 0, EQUAL 1
 * when every frame equals the oracle's), one "X ..." line per sample that
 * differs or is incomplete (the first VERBOSE-MISMATCHES of them with both
 * frame lists) and one summary line per process kind and ABI:
 *   K KIND ABI samples=N complete=N equal=N truncated=N differing_frames=N
 *     unverified_frames=N oracle_complete=N complete_reachable=N
 * complete: the runtime's outermost frame is a start routine: _start (the
 *   entry point of the executable or of ld.so) for the main thread, the clone
 *   child in libc (CFI marks its return address undefined) for other threads.
 * equal: every frame of the runtime's equals the oracle's, same count.
 * truncated: the oracle ran past the end of the stack copy; only the common
 *   prefix is compared (the runtime's frames beyond it are unverified).
 * differing_frames: frames of the runtime's that differ from the oracle's at
 *   the same depth, plus frames beyond the oracle's clean end.
 * unverified_frames: frames of the runtime's beyond where the oracle had to
 *   stop early: the end of the stack copy, or code without CFI (where libdwfl
 *   would guess from frame pointers: the oracle keeps to the CFI's answers).
 * oracle_complete: the oracle's own frames reach a start routine.
 * complete_reachable: samples complete both for the runtime and the oracle
 *   (the share of oracle_complete that the runtime completes too).
 */
#define _GNU_SOURCE
#include <elfutils/libdw.h>
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

#define MAXFR 256
#define MAXMAPS 2048

struct map {
	uint64_t start, end, off;
	char *path; /* NULL: anonymous; "[vdso]" */
	int fd;
};

struct proc {
	int pid;
	struct map maps[MAXMAPS];
	int nmaps;
	unsigned char *vdso;
	size_t vdso_len;
	Dwfl *dwfl;
	bool attached, broken;
	struct proc *next;
};

static struct {
	struct proc *p;
	int tid, abi;
	uint64_t regs[17];
	uint32_t known; /* the registers in regs to give libdwfl (bit = DWARF number) */
	uint64_t sp;
	unsigned char *stack;
	size_t stack_len;
	bool hit_end;
	char why[512]; /* the runtime's stop reason, if printed */
} cur;

static const char *mapsdir;
static struct proc *procs;

static void load_maps(struct proc *p)
{
	char path[1024], line[4096];
	snprintf(path, sizeof path, "%s/%d.maps", mapsdir, p->pid);
	FILE *f = fopen(path, "r");
	if (!f) {
		p->broken = true;
		return;
	}
	while (fgets(line, sizeof line, f) && p->nmaps < MAXMAPS) {
		struct map *m = &p->maps[p->nmaps];
		char perms[8], dev[32];
		unsigned long ino;
		int pos = 0;
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %31s %lu %n", &m->start,
			   &m->end, perms, &m->off, dev, &ino, &pos) < 6)
			continue;
		char *name = line + pos;
		name[strcspn(name, "\n")] = 0;
		m->fd = -1;
		m->path = NULL;
		if (name[0] == '/') {
			m->path = strdup(name);
			m->fd = open(name, O_RDONLY);
		} else if (strcmp(name, "[vdso]") == 0) {
			m->path = strdup(name);
		}
		p->nmaps++;
	}
	fclose(f);
	snprintf(path, sizeof path, "%s/%d.vdso", mapsdir, p->pid);
	f = fopen(path, "r");
	if (f) {
		p->vdso = malloc(1 << 20);
		p->vdso_len = fread(p->vdso, 1, 1 << 20, f);
		fclose(f);
	}
}

static int find_elf(Dwfl_Module *mod, void **userdata, const char *name, Dwarf_Addr base,
		    char **file_name, Elf **elfp)
{
	(void)mod;
	(void)userdata;
	(void)base;
	*elfp = NULL;
	if (strcmp(name, "[vdso]") == 0) {
		if (!cur.p->vdso_len)
			return -1;
		*elfp = elf_memory((char *)cur.p->vdso, cur.p->vdso_len);
		return -1;
	}
	int fd = open(name, O_RDONLY);
	if (fd < 0)
		return -1;
	*elfp = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	*file_name = strdup(name);
	return fd;
}

static const Dwfl_Callbacks callbacks = {
	.find_elf = find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)arg;
	if (*thread_argp)
		return 0;
	*thread_argp = (void *)1;
	return cur.tid;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	(void)arg;
	size_t sz = cur.abi == 32 ? 4 : 8;
	uint64_t v = 0;
	if (addr >= cur.sp && addr + sz <= cur.sp + cur.stack_len) {
		memcpy(&v, cur.stack + (addr - cur.sp), sz);
		*result = v;
		return true;
	}
	if (addr >= cur.sp && addr < cur.sp + cur.stack_len + (1 << 20)) {
		cur.hit_end = true;
		return false;
	}
	struct proc *p = cur.p;
	for (int i = 0; i < p->nmaps; i++) {
		struct map *m = &p->maps[i];
		if (addr < m->start || addr + sz > m->end || !m->path)
			continue;
		if (m->fd >= 0) {
			if (pread(m->fd, &v, sz, (off_t)(addr - m->start + m->off)) != (ssize_t)sz)
				return false;
			*result = v;
			return true;
		}
		if (strcmp(m->path, "[vdso]") == 0 && addr - m->start + sz <= p->vdso_len) {
			memcpy(&v, p->vdso + (addr - m->start), sz);
			*result = v;
			return true;
		}
	}
	return false;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	(void)arg;
	/* The general registers, then the pc; the return-address column (rip
	   16, eip 8) holds the pc too, as CFA expressions of PLT entries
	   (DW_OP_breg16) read it.  */
	int n = cur.abi == 32 ? 8 : 16;
	for (int i = 0; i <= n; i++) {
		Dwarf_Word w = cur.regs[i];
		if ((cur.known & (1u << i)) && !dwfl_thread_state_registers(thread, i, 1, &w))
			return false;
	}
	dwfl_thread_state_register_pc(thread, cur.regs[n]);
	return true;
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

static struct proc *get_proc(int pid)
{
	for (struct proc *p = procs; p; p = p->next)
		if (p->pid == pid)
			return p;
	struct proc *p = calloc(1, sizeof *p);
	p->pid = pid;
	p->next = procs;
	procs = p;
	cur.p = p;
	load_maps(p);
	if (p->broken)
		return p;
	p->dwfl = dwfl_begin(&callbacks);
	dwfl_report_begin(p->dwfl);
	/* One module per object: from its lowest to its highest mapping.  */
	for (int i = 0; i < p->nmaps; i++) {
		struct map *m = &p->maps[i];
		if (!m->path)
			continue;
		bool first = true;
		for (int j = 0; j < i; j++)
			if (p->maps[j].path && strcmp(p->maps[j].path, m->path) == 0)
				first = false;
		if (!first)
			continue;
		uint64_t lo = m->start, hi = m->end;
		for (int j = i + 1; j < p->nmaps; j++)
			if (p->maps[j].path && strcmp(p->maps[j].path, m->path) == 0)
				hi = p->maps[j].end;
		if (!dwfl_report_module(p->dwfl, m->path, lo, hi))
			fprintf(stderr, "oracle: pid %d: %s: %s\n", pid, m->path, dwfl_errmsg(-1));
	}
	dwfl_report_end(p->dwfl, NULL, NULL);
	return p;
}

struct collect {
	uint64_t pc[MAXFR];
	int n;
	/* x86_64: the registers libdwfl knows in the last frame, and rbx as the
	   ABI has it there (cfi_ends_stack says why libdwfl may not).  */
	uint64_t regs[17];
	uint32_t known;
	uint64_t rbx;
	bool rbx_known;
	int continued; /* times unwound again past libdwfl's loss of rbx */
};

static int collect_frame(Dwfl_Frame *state, void *arg)
{
	struct collect *c = arg;
	Dwarf_Addr pc;
	bool activation;
	if (c->n == MAXFR)
		return DWARF_CB_ABORT;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return -1;
	c->pc[c->n++] = cur.abi == 32 ? (pc & 0xffffffffu) : pc;
	if (cur.abi == 64) {
		c->known = 0;
		for (unsigned r = 0; r < 17; r++) {
			Dwarf_Word v;
			if (dwfl_frame_reg(state, r, &v) == 0) {
				c->regs[r] = v;
				c->known |= 1u << r;
			}
		}
		/* Where libdwfl has rbx, it is right; where it has none, the CFI
		   gave no rule (explicitly undefined rbx is not seen in practice)
		   and the ABI makes it the inner frame's.  */
		if (c->known & (1u << 3)) {
			c->rbx = c->regs[3];
			c->rbx_known = true;
		}
	}
	return DWARF_CB_OK;
}

/* The module and symbol of a frame, for messages. */
static void describe(struct proc *p, uint64_t pc, bool ret, char *buf, size_t len)
{
	uint64_t a = ret ? pc - 1 : pc;
	Dwfl_Module *mod = p->dwfl ? dwfl_addrmodule(p->dwfl, a) : NULL;
	if (!mod) {
		snprintf(buf, len, "%#" PRIx64 " ?", pc);
		return;
	}
	Dwarf_Addr start;
	const char *mname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
	const char *base = mname && strrchr(mname, '/') ? strrchr(mname, '/') + 1 : mname;
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, a, &off, &sym, NULL, NULL, NULL);
	if (name && (sym.st_size == 0 || off < sym.st_size))
		snprintf(buf, len, "%#" PRIx64 " %s+%#" PRIx64 " [%s]", pc, name,
			 (uint64_t)(off + (a != pc)), base);
	else
		snprintf(buf, len, "%#" PRIx64 " [%s+%#" PRIx64 "]", pc, base, pc - start);
}

/* Is the outermost frame PC (a return address unless it is the only frame)
   a start routine: the entry point (_start) of the executable or of ld.so,
   or, in a thread, libc's clone child whose CFI ends the stack?  */
static bool is_start(struct proc *p, uint64_t pc, bool ret, bool thread)
{
	uint64_t a = ret ? pc - 1 : pc;
	Dwfl_Module *mod = p->dwfl ? dwfl_addrmodule(p->dwfl, a) : NULL;
	if (!mod)
		return false;
	Dwarf_Addr bias;
	Elf *elf = dwfl_module_getelf(mod, &bias);
	if (!elf)
		return false;
	GElf_Ehdr eh;
	if (!gelf_getehdr(elf, &eh))
		return false;
	const char *mname = dwfl_module_info(mod, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	const char *base = mname && strrchr(mname, '/') ? strrchr(mname, '/') + 1 : "";
	if (eh.e_type == ET_EXEC || strncmp(base, "ld-linux", 8) == 0 ||
	    (eh.e_type == ET_DYN && eh.e_entry && strncmp(base, "lib", 3) != 0)) {
		uint64_t entry = eh.e_entry + bias;
		if (a >= entry && a < entry + 64)
			return true;
	}
	if (thread && strncmp(base, "libc.so", 7) == 0)
		return true;
	return false;
}

/* The CFI row of the object at PC (a return address if RET), from
   .eh_frame or else .debug_frame; the caller frees it.  NULL: no CFI.  */
static Dwarf_Frame *cfi_row(struct proc *p, uint64_t pc, bool ret)
{
	uint64_t a = ret ? pc - 1 : pc;
	Dwfl_Module *mod = dwfl_addrmodule(p->dwfl, a);
	if (!mod)
		return NULL;
	Dwarf_Addr bias;
	Dwarf_Frame *frame;
	Dwarf_CFI *cfi = dwfl_module_eh_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, a - bias, &frame) == 0)
		return frame;
	cfi = dwfl_module_dwarf_cfi(mod, &bias);
	if (cfi && dwarf_cfi_addrframe(cfi, a - bias, &frame) == 0)
		return frame;
	return NULL;
}

/* Does the object at PC have CFI for it?  libdwfl falls back on frame
   pointers where there is none (x86_64); such frames are guesses, not the
   CFI's answer, so the oracle's frames end there.  */
static bool has_cfi(struct proc *p, uint64_t pc, bool ret)
{
	Dwarf_Frame *frame = cfi_row(p, pc, ret);
	free(frame);
	return frame != NULL;
}

/* Does the CFI say that the frame at PC has no caller (its return-address
   rule is "undefined")?  libdwfl also ends a stack, without an error, when
   it cannot evaluate the return address: a register that the rule needs is
   unknown to it.  That is not the CFI's answer, and elfutils (0.188 to
   0.196 at least) reaches it in correct code: its x86_64 ABI defaults make
   DWARF register 0 (rax) "same value" where rbx (3) was meant, so rbx is
   lost in the first frame whose CFI does not save it, and a caller whose
   CFA is rbx-based (ld.so's _dl_runtime_resolve) ends the stack.  */
static bool cfi_ends_stack(struct proc *p, uint64_t pc, bool ret)
{
	Dwarf_Frame *frame = cfi_row(p, pc, ret);
	if (!frame)
		return false;
	Dwarf_Addr start, end;
	bool signalp;
	int ra = dwarf_frame_info(frame, &start, &end, &signalp);
	Dwarf_Op mem[3], *ops;
	size_t nops;
	bool undefined = ra >= 0 && dwarf_frame_register(frame, ra, mem, &ops, &nops) == 0 &&
			 nops == 0 && ops == mem;
	free(frame);
	return undefined;
}

/* x86_64: libdwfl ended C at a frame whose CFI gives a caller, having lost
   rbx there (cfi_ends_stack).  Unwind again from that frame's registers with
   rbx put back, and append the frames found; a few rounds at most.  The
   frame is restarted as the innermost one at its return address minus one,
   so that libdwfl looks up the same row as for a return address.  Returns
   dwfl_getthread_frames's result for the last round (0 if none ran).  */
static int continue_past_rbx_loss(struct proc *p, struct collect *c)
{
	int rc = 0;
	for (int round = 0; round < 4 && cur.abi == 64 && c->n > 0; round++) {
		int last = c->n - 1;
		uint32_t need = (1u << 7) | (1u << 16);
		if ((c->known & need) != need || (c->known & (1u << 3)) || !c->rbx_known ||
		    cfi_ends_stack(p, c->pc[last], last > 0))
			break;
		uint64_t saved[17];
		uint32_t saved_known = cur.known;
		memcpy(saved, cur.regs, sizeof saved);
		memcpy(cur.regs, c->regs, sizeof cur.regs);
		cur.regs[3] = c->rbx;
		cur.regs[16] = c->pc[last] - (last > 0);
		cur.known = c->known | (1u << 3);
		struct collect more = { .rbx = c->rbx, .rbx_known = true };
		rc = dwfl_getthread_frames(p->dwfl, cur.tid, collect_frame, &more);
		memcpy(cur.regs, saved, sizeof saved);
		cur.known = saved_known;
		if (more.n <= 1)
			break;
		for (int i = 1; i < more.n && c->n < MAXFR; i++)
			c->pc[c->n++] = more.pc[i];
		memcpy(c->regs, more.regs, sizeof c->regs);
		c->known = more.known;
		c->rbx = more.rbx;
		c->continued++;
		if (rc != 0)
			break;
	}
	return rc;
}

static int hexval(int c)
{
	return c <= '9' ? c - '0' : c - 'a' + 10;
}

struct kind {
	char name[32];
	int abi;
	long samples, complete, equal, truncated, differing, unverified, oracle_complete,
	     complete_reachable,
	     continued; /* samples unwound again past libdwfl's loss of rbx */
	struct kind *next;
};
static struct kind *kinds;

static struct kind *get_kind(const char *name, int abi)
{
	struct kind **pp = &kinds;
	for (; *pp; pp = &(*pp)->next)
		if (strcmp((*pp)->name, name) == 0 && (*pp)->abi == abi)
			return *pp;
	*pp = calloc(1, sizeof **pp);
	snprintf((*pp)->name, sizeof (*pp)->name, "%s", name);
	(*pp)->abi = abi;
	return *pp;
}

/* Samples to show frame by frame: every one with a differing frame (there
   should be none, and each is a bug to chase), and the first VERBOSE of the
   others.  VERBOSE 0 shows none at all.  */
static int verbose_left;
static bool show_differing;
static long nsample = -1; /* the current sample's sequence number (S lines from 0) */

static void judge(const char *kname, int pid, uint64_t *ours, int nours)
{
	struct kind *k = get_kind(kname, cur.abi);
	struct proc *p = get_proc(pid);
	cur.p = p;
	k->samples++;
	struct collect c = { .n = 0 };
	const char *err = "no maps";
	int rc = -1;
	cur.hit_end = false;
	if (!p->broken) {
		if (!p->attached) {
			if (!dwfl_attach_state(p->dwfl, NULL, pid, &thread_callbacks, NULL)) {
				fprintf(stderr, "oracle: pid %d: attach: %s\n", pid, dwfl_errmsg(-1));
				p->broken = true;
			}
			p->attached = true;
		}
	}
	if (!p->broken) {
		rc = dwfl_getthread_frames(p->dwfl, cur.tid, collect_frame, &c);
		if (rc == 0)
			rc = continue_past_rbx_loss(p, &c);
		err = rc == 0 ? NULL : dwfl_errmsg(-1);
		k->continued += c.continued > 0;
	}
	bool thread = cur.tid != pid;
	bool nocfi = false;
	for (int i = 0; i + 1 < c.n; i++)
		if (!has_cfi(p, c.pc[i], i > 0)) {
			c.n = i + 1;
			nocfi = true;
			err = "no CFI (frames after it were libdwfl's guesses)";
			break;
		}
	if (rc == 0 && !nocfi && c.n > 0 && !cfi_ends_stack(p, c.pc[c.n - 1], c.n > 1))
		err = "libdwfl ended where the CFI gives a caller";
	/* Clean end: the CFI says there is no caller, or the oracle stopped in a
	   start routine that has no CFI (ld.so's _start).  */
	bool clean = !cur.hit_end &&
		     ((rc == 0 && !nocfi && !err) ||
		      (c.n > 0 && is_start(p, c.pc[c.n - 1], c.n > 1, thread)));
	bool trunc = cur.hit_end;
	int n = nours < c.n ? nours : c.n;
	int diff = 0, unverified = 0;
	for (int i = 0; i < n; i++)
		if (ours[i] != c.pc[i])
			diff++;
	if (nours > c.n) {
		if (clean)
			diff += nours - c.n;
		else
			unverified += nours - c.n;
	}
	bool equal = diff == 0 && nours == c.n && clean;
	bool ocomplete = clean && c.n > 0 && is_start(p, c.pc[c.n - 1], c.n > 1, thread);
	bool complete = diff == 0 && nours > 0 && nours >= c.n &&
			is_start(p, ours[nours - 1], nours > 1, thread);
	k->complete += complete;
	k->equal += equal;
	k->truncated += trunc;
	k->differing += diff;
	k->unverified += unverified;
	k->oracle_complete += ocomplete;
	k->complete_reachable += ocomplete && complete;
	printf("V %ld %d\n", nsample, equal);
	if (equal && complete)
		return;
	printf("X %s %d pid=%d tid=%d ours=%d oracle=%d%s%s%s diff=%d complete=%d oracle_complete=%d\n",
	       kname, cur.abi, pid, cur.tid, nours, c.n, trunc ? " truncated" : "",
	       err ? " oracle-error=" : "", err ? err : "", diff, complete, ocomplete);
	if (diff > 0 && show_differing)
		;
	else if (verbose_left > 0)
		verbose_left--;
	else
		return;
	if (cur.why[0])
		printf("  stop: %s\n", cur.why);
	char buf[512];
	for (int i = 0; i < nours || i < c.n; i++) {
		printf("  %2d ", i);
		if (i < nours) {
			describe(p, ours[i], i > 0, buf, sizeof buf);
			printf("ours %-60s", buf);
		} else {
			printf("ours %-60s", "-");
		}
		if (i < c.n) {
			describe(p, c.pc[i], i > 0, buf, sizeof buf);
			printf(" %s oracle %s\n", i < nours && ours[i] == c.pc[i] ? "==" : "!=", buf);
		} else {
			printf("    oracle -\n");
		}
	}
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: profile-oracle SAMPLES MAPSDIR [VERBOSE]\n");
		return 2;
	}
	mapsdir = argv[2];
	verbose_left = argc > 3 ? atoi(argv[3]) : 10;
	show_differing = verbose_left > 0;
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	size_t cap = 1 << 20, lcap = 1 << 16;
	cur.stack = malloc(cap);
	char *line = malloc(lcap);
	char kname[64] = "";
	int pid = 0, in = 0, nours = 0;
	uint64_t ours[MAXFR];
	ssize_t len;
	size_t lsz = lcap;
	while ((len = getline(&line, &lsz, f)) >= 0) {
		line[strcspn(line, "\n")] = 0;
		if (line[0] == 'S' && line[1] == ' ') {
			nsample++;
			if (sscanf(line, "S %63s %d %d %d", kname, &pid, &cur.tid, &cur.abi) == 4) {
				in = 1;
				nours = 0;
				cur.stack_len = 0;
				memset(cur.regs, 0, sizeof cur.regs);
				cur.why[0] = 0;
			}
		} else if (!in) {
			continue;
		} else if (line[0] == 'R') {
			char *s = line + 1;
			for (int i = 0; i < 17; i++) {
				char *e;
				cur.regs[i] = strtoull(s, &e, 16);
				if (e == s)
					break;
				s = e;
			}
			cur.sp = cur.abi == 32 ? cur.regs[4] : cur.regs[7];
			cur.known = ~0u; /* user mode at a timer interrupt: every register */
		} else if (line[0] == 'U') {
			char *s = line + 1;
			while (nours < MAXFR) {
				char *e;
				uint64_t v = strtoull(s, &e, 16);
				if (e == s)
					break;
				ours[nours++] = v;
				s = e;
			}
		} else if (line[0] == 'W' && line[1] == ' ') {
			snprintf(cur.why, sizeof cur.why, "%s", line + 2);
		} else if (line[0] == 'D' && line[1] == ' ') {
			for (char *s = line + 2; *s && *s != '!';) {
				if (*s == 'z') {
					char *e;
					unsigned long z = strtoul(s + 1, &e, 16);
					if (cur.stack_len + z > cap)
						break;
					memset(cur.stack + cur.stack_len, 0, z);
					cur.stack_len += z;
					s = *e == '.' ? e + 1 : e;
				} else if (s[1]) {
					if (cur.stack_len < cap)
						cur.stack[cur.stack_len++] =
							(unsigned char)(hexval(s[0]) << 4 | hexval(s[1]));
					s += 2;
				} else {
					break;
				}
			}
		} else if (line[0] == 'E') {
			judge(kname, pid, ours, nours);
			in = 0;
		}
	}
	for (struct kind *k = kinds; k; k = k->next)
		printf("K %s %d samples=%ld complete=%ld equal=%ld truncated=%ld differing_frames=%ld "
		       "unverified_frames=%ld oracle_complete=%ld complete_reachable=%ld "
		       "oracle_continued=%ld\n",
		       k->name, k->abi, k->samples, k->complete, k->equal, k->truncated,
		       k->differing, k->unverified, k->oracle_complete, k->complete_reachable,
		       k->continued);
	return 0;
}
