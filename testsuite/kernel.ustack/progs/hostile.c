/* hostile: a process that carries hostile unwind tables, for
 * kernel.ustack/hostile.exp.
 *
 *   hostile KIND SECONDS [SEED]
 *
 * Writes an ELF object (one PT_LOAD, readable and executable, and a
 * PT_GNU_EH_FRAME) whose .eh_frame_hdr and .eh_frame are the tables of
 * testsuite/core/hostile_cfi.h, maps it from its file (so that the VMA
 * tracker records it, as it would a library), prints "hostile PID KIND",
 * points the stack pointer at a region of return addresses into the
 * hostile function, and jumps there.  That function loops: a little
 * user-mode work, then getppid(), forever; SIGALRM ends the process after
 * SECONDS.
 *
 * KIND: scan, insns, exprs (hostile_cfi.h), or mutant: the insns tables
 * with a few bytes of .eh_frame_hdr and .eh_frame changed at random
 * (SEED), malformed CFI in a real process.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "../../core/hostile_cfi.h"

typedef ElfW(Ehdr) Ehdr;
typedef ElfW(Phdr) Phdr;
#if defined(__x86_64__)
#define ELF_CLASS ELFCLASS64
#define ELF_MACHINE EM_X86_64
#define I386 0
#define GETPPID_NR 110
#define SYSCALL_INSN 0x0f, 0x05		/* syscall */
#else
#define ELF_CLASS ELFCLASS32
#define ELF_MACHINE EM_386
#define I386 1
#define GETPPID_NR 64
#define SYSCALL_INSN 0xcd, 0x80		/* int $0x80 */
#endif
/* mov $0x1000,%ecx; 1: loop 1b; mov $GETPPID_NR,%eax; the system call;
 * jmp back to the start: 16 bytes, the hostile function's extent. */
static const uint8_t loop_code[16] = {
	0xb9, 0x00, 0x10, 0x00, 0x00, 0xe2, 0xfe, 0xb8, GETPPID_NR, 0x00, 0x00, 0x00,
	SYSCALL_INSN, 0xeb, 0xf0,
};

#define CODE_AT		0x1000ul	/* link-time = file offset */
#define HDR_AT		0x2000ul
#define FILLER_AT	0x10000000ul	/* the filler FDEs' pcs: nothing there */

static uintptr_t stack_words[4096];

static void die(const char *what)
{
	perror(what);
	exit(1);
}

/* Change n random bytes of b (not its first 4: keep the header's
 * version and encodings, so the core gets past them some of the time). */
static void mutate(struct buf *b, unsigned n)
{
	for (unsigned i = 0; i < n && b->n > 4; i++)	/* bound: n */
		b->b[4 + (size_t)rand() % (b->n - 4)] = (uint8_t)rand();
}

int main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	int secs = argc > 2 ? atoi(argv[2]) : 0;
	static uint8_t image[HDR_AT + 3 * CFI_BUF_BYTES];
	char path[] = "/tmp/hostile-XXXXXX";
	size_t eh_at, size;
	uint8_t *map;
	int fd;

	if (argc < 3 || secs <= 0) {
		fprintf(stderr, "usage: hostile scan|insns|exprs|mutant SECONDS [SEED]\n");
		return 2;
	}
	hostile.hdr.addr = HDR_AT;
	hostile_begin(I386, FILLER_AT, CODE_AT);
	/* .eh_frame right after the header: its size is known only after
	 * building, so build with a guess of the header's size first. */
	eh_at = HDR_AT + 64;
	hostile.eh.addr = eh_at;
	if (!strcmp(kind, "scan"))
		hostile_scan(0);
	else if (!strcmp(kind, "insns") || !strcmp(kind, "mutant"))
		hostile_insns();
	else if (!strcmp(kind, "exprs"))
		hostile_exprs();
	else {
		fprintf(stderr, "hostile: unknown kind %s\n", kind);
		return 2;
	}
	if (hostile.hdr.n > 64) {
		fprintf(stderr, "hostile: header of %zu bytes\n", hostile.hdr.n);
		return 1;
	}
	if (!strcmp(kind, "mutant")) {
		srand(argc > 3 ? (unsigned)atoi(argv[3]) : 1);
		mutate(&hostile.hdr, 2);
		mutate(&hostile.eh, 8);
	}

	/* The object: ELF header, program headers, code, tables. */
	size = eh_at + hostile.eh.n;
	Ehdr *eh = (Ehdr *)image;
	Phdr *ph = (Phdr *)(image + sizeof(Ehdr));
	memcpy(eh->e_ident, ELFMAG, SELFMAG);
	eh->e_ident[EI_CLASS] = ELF_CLASS;
	eh->e_ident[EI_DATA] = ELFDATA2LSB;
	eh->e_ident[EI_VERSION] = EV_CURRENT;
	eh->e_type = ET_DYN;
	eh->e_machine = ELF_MACHINE;
	eh->e_version = EV_CURRENT;
	eh->e_phoff = sizeof(Ehdr);
	eh->e_ehsize = sizeof(Ehdr);
	eh->e_phentsize = sizeof(Phdr);
	eh->e_phnum = 2;
	ph[0].p_type = PT_LOAD;
	ph[0].p_flags = PF_R | PF_X;
	ph[0].p_offset = 0;
	ph[0].p_vaddr = ph[0].p_paddr = 0;
	ph[0].p_filesz = ph[0].p_memsz = size;
	ph[0].p_align = 0x1000;
	ph[1].p_type = PT_GNU_EH_FRAME;
	ph[1].p_flags = PF_R;
	ph[1].p_offset = ph[1].p_vaddr = ph[1].p_paddr = HDR_AT;
	ph[1].p_filesz = ph[1].p_memsz = hostile.hdr.n;
	ph[1].p_align = 4;
	memcpy(image + CODE_AT, loop_code, sizeof(loop_code));
	memcpy(image + HDR_AT, hostile.hdr.b, hostile.hdr.n);
	memcpy(image + eh_at, hostile.eh.b, hostile.eh.n);

	fd = mkstemp(path);
	if (fd < 0)
		die("mkstemp");
	if (write(fd, image, size) != (ssize_t)size)
		die("write");
	map = mmap(NULL, size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED)
		die("mmap");
	close(fd);
	unlink(path);	/* the mapping keeps the file */

	/* Every frame returns into the hostile function again. */
	for (size_t i = 0; i < sizeof(stack_words) / sizeof(stack_words[0]); i++)
		stack_words[i] = (uintptr_t)(map + CODE_AT + 8);	/* bound: the array */
	printf("hostile %d %s\n", (int)getpid(), kind);
	fflush(stdout);
	alarm((unsigned)secs);
	uintptr_t *sp = &stack_words[16];
	void *pc = map + CODE_AT;
#if defined(__x86_64__)
	__asm__ volatile("mov %0, %%rsp\n\tjmp *%1" : : "r"(sp), "r"(pc) : "memory");
#else
	__asm__ volatile("mov %0, %%esp\n\tjmp *%1" : : "r"(sp), "r"(pc) : "memory");
#endif
	__builtin_unreachable();
}
