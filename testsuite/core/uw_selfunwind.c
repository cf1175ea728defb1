/* End-to-end check of the unwinder core on real CFI: the program captures
 * its own registers a few calls deep, unwinds itself through the core with
 * a host that reads its own memory (process_vm_readv, so a bad address is
 * an error, not a fault) and finds tables with dl_iterate_phdr
 * (PT_GNU_EH_FRAME; .eh_frame located through the header, size unknown),
 * and compares the return addresses with glibc's backtrace() (libgcc's
 * unwinder).  Built -m64 and -m32.  Prints PASS:/FAIL: lines.
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <signal.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../../runtime/unwind/unwind_core.h"
#include "../../runtime/unwind/x86_64.h"
#include "../../runtime/unwind/i386.h"

#include "check.h"

static int self_read(void *host, uint64_t addr, void *buf, uint32_t len)
{
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };

	(void)host;
	if ((uint64_t)(uintptr_t)addr != addr)
		return -1;
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) ==
	       (ssize_t)len ? 0 : -1;
}

struct find_arg {
	uintptr_t pc;
	struct uw_tables *out;
	int found;
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *data)
{
	struct find_arg *a = data;
	const ElfW(Phdr) *hdr = NULL;
	int covers = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &info->dlpi_phdr[i];

		if (p->p_type == PT_LOAD && a->pc >= info->dlpi_addr + p->p_vaddr &&
		    a->pc < info->dlpi_addr + p->p_vaddr + p->p_memsz)
			covers = 1;
		if (p->p_type == PT_GNU_EH_FRAME)
			hdr = p;
	}
	if (!covers || !hdr)
		return 0;
	memset(a->out, 0, sizeof(*a->out));
	a->out->bias = info->dlpi_addr;
	a->out->eh_frame_hdr.data = (const uint8_t *)(info->dlpi_addr + hdr->p_vaddr);
	a->out->eh_frame_hdr.addr = hdr->p_vaddr;
	a->out->eh_frame_hdr.size = hdr->p_memsz;
	a->out->module = info->dlpi_name[0] ? info->dlpi_name : "main";
	a->found = 1;
	return 1;
}

/* When set, pretend no module covers the signal trampoline at hide_pc, so
 * the core must recognise it by its instruction bytes. */
static volatile uint64_t hide_pc;

static int self_find(void *host, uint64_t pc, struct uw_tables *out)
{
	struct find_arg a = { (uintptr_t)pc, out, 0 };

	(void)host;
	if (hide_pc && pc + 1 >= hide_pc && pc < hide_pc + 16)
		return -1;
	dl_iterate_phdr(find_cb, &a);
	return a.found ? 0 : -1;
}

static const struct uw_host_ops self_ops = { self_read, self_find, NULL, NULL };

#define MAXF 64
static void *bt[MAXF];
static volatile int nbt;
static uint64_t ours[MAXF];
static volatile int nours;	/* also written in the signal handler */
static volatile enum uw_stop_reason last_reason;
static volatile uint64_t tramp_pc;	/* pc of the last signal frame seen */
static volatile int sigframe_steps;	/* steps made by instruction bytes */

static __attribute__((noinline)) void capture_and_unwind(void)
{
	static struct uw_cursor cur;	/* ~10 KiB: not on the stack */
	struct uw_regs regs;

	memset(&regs, 0, sizeof(regs));
#ifdef __x86_64__
	__asm__ volatile(
		"1: lea 1b(%%rip), %%rax\n\t"
		"mov %%rax, 128(%0)\n\t"
		"mov %%rsp, 56(%0)\n\t"
		"mov %%rbp, 48(%0)\n\t"
		"mov %%rbx, 24(%0)\n\t"
		"mov %%r12, 96(%0)\n\t"
		"mov %%r13, 104(%0)\n\t"
		"mov %%r14, 112(%0)\n\t"
		"mov %%r15, 120(%0)\n\t"
		: : "r"(regs.val) : "rax", "memory");
	regs.defined = UW_REG_BIT(UW_X86_64_RIP) | UW_REG_BIT(UW_X86_64_RSP) |
		       UW_X86_64_CALLEE_SAVED;
	uw_init(&cur, UW_ARCH_X86_64, &self_ops, NULL, &regs);
#else
	uint32_t r[9];
	/* call/pop gets the pc; esp is recorded after the pop, as it is
	 * at the label for the compiler's CFI. */
	__asm__ volatile(
		"call 2f\n"
		"2: pop %%eax\n\t"
		"mov %%eax, 32(%0)\n\t"
		"mov %%esp, 16(%0)\n\t"
		"mov %%ebp, 20(%0)\n\t"
		"mov %%ebx, 12(%0)\n\t"
		"mov %%esi, 24(%0)\n\t"
		"mov %%edi, 28(%0)\n\t"
		: : "r"(r) : "eax", "memory");
	regs.val[UW_I386_EIP] = r[8];
	regs.val[UW_I386_ESP] = r[4];
	regs.val[UW_I386_EBP] = r[5];
	regs.val[UW_I386_EBX] = r[3];
	regs.val[UW_I386_ESI] = r[6];
	regs.val[UW_I386_EDI] = r[7];
	regs.defined = UW_REG_BIT(UW_I386_EIP) | UW_REG_BIT(UW_I386_ESP) |
		       UW_I386_CALLEE_SAVED;
	uw_init(&cur, UW_ARCH_I386, &self_ops, NULL, &regs);
#endif
	nbt = backtrace(bt, MAXF);
	nours = 0;
	sigframe_steps = 0;
	while (nours < MAXF && uw_step(&cur) == 1) {
		if (cur.pc_is_exact && nours > 0)
			tramp_pc = ours[nours - 1];
		if (cur.how == UW_HOW_SIGFRAME)
			sigframe_steps++;
		if (getenv("UW_VERBOSE"))
			printf("note: frame %d pc 0x%llx how %d exact %d\n", nours,
			       (unsigned long long)uw_pc(&cur), cur.how, cur.pc_is_exact);
		ours[nours++] = uw_pc(&cur);
	}
	last_reason = cur.stop.reason;
	if (cur.stop.reason != UW_STOP_END_OF_STACK)
		printf("note: stopped: %s at pc 0x%llx addr 0x%llx in %s\n",
		       uw_stop_reason_name(cur.stop.reason),
		       (unsigned long long)cur.stop.pc,
		       (unsigned long long)cur.stop.addr,
		       cur.stop.module ? cur.stop.module : "?");
}

/* Is PC in this process's vdso?  (Its one PT_LOAD, from its own headers.) */
static int in_vdso(uint64_t pc)
{
	uintptr_t base = getauxval(AT_SYSINFO_EHDR);
	if (!base || !pc)
		return 0;
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)base;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)(base + eh->e_phoff);
	for (int i = 0; i < eh->e_phnum; i++) /* bound: the vdso's few headers */
		if (ph[i].p_type == PT_LOAD)
			return pc >= base && pc - base < ph[i].p_vaddr + ph[i].p_memsz;
	return 0;
}

__attribute__((noinline)) void uw_level3(int n) { capture_and_unwind(); __asm__ volatile("" ::: "memory"); (void)n; }
__attribute__((noinline)) void uw_level2(int n) { uw_level3(n + 1); __asm__ volatile("" ::: "memory"); }
__attribute__((noinline)) void uw_level1(int n) { uw_level2(n + 1); __asm__ volatile("" ::: "memory"); }

/* Return addresses of ours and of backtrace() agree from our first
 * caller on (bt[0] is in capture_and_unwind itself or, under ASan, in the
 * backtrace interceptor). */
static int same_frames(void)
{
	int i, k, same;

	for (k = 0; k < nbt && nours > 0; k++)
		if ((uint64_t)(uintptr_t)bt[k] == ours[0])
			break;
	same = nours > 0 && k < nbt && nbt - k == nours;
	for (i = 0; same && i < nours; i++)
		same = (uint64_t)(uintptr_t)bt[k + i] == ours[i];
	if (!same) {
		for (i = 0; i < nbt || i < nours; i++)
			printf("note: %2d backtrace %p ours 0x%llx\n", i,
			       i < nbt ? bt[i] : NULL,
			       i < nours ? (unsigned long long)ours[i] : 0ULL);
	}
	return same;
}

static void handler(int sig)
{
	(void)sig;
	uw_level1(0);
}

int main(void)
{
	struct sigaction sa;
	int n;

	uw_level1(0);
	check(nours >= 5, "selfunwind: at least 5 frames");
	check(same_frames(), "selfunwind: same return addresses as glibc backtrace()");
	check(last_reason == UW_STOP_END_OF_STACK, "selfunwind: ends at end of stack");

	/* Through a signal frame: glibc's restorer (CFI with 'S'). */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = handler;
	sigaction(SIGUSR1, &sa, NULL);
	n = nours;
	raise(SIGUSR1);
	printf("note: %d frames without, %d with the signal frame\n", n, nours);
	if (getenv("UW_VERBOSE"))
		for (int i = 0; i < nours; i++)
			printf("note: frame %d 0x%llx\n", i, (unsigned long long)ours[i]);
	check(nours > n, "selfunwind signal: more frames than without the signal");
	check(same_frames(), "selfunwind signal: same return addresses as glibc backtrace()");
	check(last_reason == UW_STOP_END_OF_STACK, "selfunwind signal: ends at end of stack");
	if (in_vdso(tramp_pc)) {
		/* The C library left the return to the kernel's trampoline in
		 * the vdso (glibc 2.43 on i386).  Kernel 7.2's FDE for
		 * __kernel_sigreturn starts at the symbol, the handler's
		 * return address, so the byte before it that an unwinder
		 * looks up has no CFI there: recognised by its bytes.  */
		printf("note: the trampoline is the vdso's, unwound by %s\n",
		       sigframe_steps ? "its instruction bytes" : "its CFI");
		check(sigframe_steps <= 1, "selfunwind signal: vdso trampoline unwound (CFI or bytes)");
	} else {
		check(sigframe_steps == 0 && tramp_pc != 0,
		      "selfunwind signal: trampoline unwound by its CFI");
	}

	/* The same, with the trampoline's CFI hidden: recognised by bytes,
	 * registers from the sigcontext (checks the frame offsets). */
	hide_pc = tramp_pc;
	raise(SIGUSR1);
	hide_pc = 0;
	check(sigframe_steps == 1, "selfunwind signal by bytes: trampoline recognised");
	check(same_frames(), "selfunwind signal by bytes: same return addresses as glibc backtrace()");
	check(last_reason == UW_STOP_END_OF_STACK, "selfunwind signal by bytes: ends at end of stack");
	return failures ? 1 : 0;
}
