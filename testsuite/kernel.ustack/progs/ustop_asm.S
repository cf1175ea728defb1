/* kernel.ustack stop test: functions whose CFI makes a user backtrace
 * taken at their getppid system call stop for one known reason each
 * (progs/ustop.c says which and where).  Each system call is made right
 * here (syscall / int $0x80), so the initial frame is the function itself.
 * The label after each call or system call (a nop follows, so the CFI rule
 * described covers that pc) is the pc the stop must be reported at.
 * The .file line names the symbol table's file symbol: without it, gas
 * takes the name of gcc's temporary object, new at every build, so the
 * program's contents, and with them its time (runtime/cache-time.sh) and
 * SystemTap's module for stop.stp, changed at every build. */
	.file "ustop_asm.S"
	.text
#ifdef __x86_64__
#define NR_getppid 110
#define SYSCALL syscall
#else
#define NR_getppid 64
#define SYSCALL int $0x80
#endif

/* long raw_getppid(void): plain CFI, the system call made here. */
	.globl raw_getppid
	.type raw_getppid,@function
raw_getppid:
	.cfi_startproc
	mov $NR_getppid, %eax
	SYSCALL
	nop
	ret
	.cfi_endproc
	.size raw_getppid, .-raw_getppid

/* void stop_unreadable(void *bad): during the system call the CFA is
 * bad + 2 words, so the return address is read at bad + 1 word. */
	.globl stop_unreadable
	.type stop_unreadable,@function
stop_unreadable:
	.cfi_startproc
#ifdef __x86_64__
	push %rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	mov %rdi, %rbx
	.cfi_def_cfa %rbx, 16
#else
	push %ebx
	.cfi_def_cfa_offset 8
	.cfi_offset %ebx, -8
	mov 8(%esp), %ebx
	.cfi_def_cfa %ebx, 8
#endif
	mov $NR_getppid, %eax
	SYSCALL
	.globl unreadable_pc
unreadable_pc:
	nop
#ifdef __x86_64__
	.cfi_def_cfa %rsp, 16
	pop %rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
#else
	.cfi_def_cfa %esp, 8
	pop %ebx
	.cfi_def_cfa_offset 4
	.cfi_restore %ebx
#endif
	ret
	.cfi_endproc
	.size stop_unreadable, .-stop_unreadable

/* void ru_outer(void): its CFA is bx-based; it calls ru_inner, whose CFI
 * says the caller's bx is undefined: the step out of ru_outer needs it. */
	.globl ru_outer
	.type ru_outer,@function
ru_outer:
	.cfi_startproc
#ifdef __x86_64__
	push %rbx
	.cfi_def_cfa_offset 16
	.cfi_offset %rbx, -16
	mov %rsp, %rbx
	.cfi_def_cfa_register %rbx
#else
	push %ebx
	.cfi_def_cfa_offset 8
	.cfi_offset %ebx, -8
	mov %esp, %ebx
	.cfi_def_cfa_register %ebx
#endif
	call ru_inner
	.globl regundef_pc
regundef_pc:
	nop
#ifdef __x86_64__
	.cfi_def_cfa_register %rsp
	pop %rbx
	.cfi_def_cfa_offset 8
	.cfi_restore %rbx
#else
	.cfi_def_cfa_register %esp
	pop %ebx
	.cfi_def_cfa_offset 4
	.cfi_restore %ebx
#endif
	ret
	.cfi_endproc
	.size ru_outer, .-ru_outer

	.type ru_inner,@function
ru_inner:
	.cfi_startproc
#ifdef __x86_64__
	.cfi_undefined %rbx
#else
	.cfi_undefined %ebx
#endif
	mov $NR_getppid, %eax
	SYSCALL
	nop
	ret
	.cfi_endproc
	.size ru_inner, .-ru_inner

#ifdef __x86_64__
/* void stop_rcx(void): CFA = rcx + 8 at the 64-bit syscall instruction,
 * which destroys rcx (the kernel's entry rules mark it undefined). */
	.globl stop_rcx
	.type stop_rcx,@function
stop_rcx:
	.cfi_startproc
	.cfi_def_cfa %rcx, 8
	mov $NR_getppid, %eax
	syscall
	.globl rcx_pc
rcx_pc:
	nop
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size stop_rcx, .-stop_rcx
#endif

/* void stop_badcfi(void): its CFI pops a state never remembered
 * (DW_CFA_restore_state, 0x0b, raw: the assembler would refuse it).  An
 * opcode the linker knows, so the binary keeps its .eh_frame_hdr. */
	.globl stop_badcfi
	.type stop_badcfi,@function
stop_badcfi:
	.cfi_startproc
	.cfi_escape 0x0b
	mov $NR_getppid, %eax
	SYSCALL
	.globl badcfi_pc
badcfi_pc:
	nop
	ret
	.cfi_endproc
	.size stop_badcfi, .-stop_badcfi

/* void np_outer(unsigned long *sp): stores its sp at the call into *sp and
 * calls raw_getppid; its CFI says CFA = sp + 0, which is the callee's CFA:
 * the stack did not grow. */
	.globl np_outer
	.type np_outer,@function
np_outer:
	.cfi_startproc
#ifdef __x86_64__
	.cfi_def_cfa %rsp, 0
	mov %rsp, (%rdi)
#else
	.cfi_def_cfa %esp, 0
	mov 4(%esp), %ecx
	mov %esp, (%ecx)
#endif
	call raw_getppid
	.globl np_pc
np_pc:
	nop
#ifdef __x86_64__
	.cfi_def_cfa %rsp, 8
#else
	.cfi_def_cfa %esp, 4
#endif
	ret
	.cfi_endproc
	.size np_outer, .-np_outer

/* void stop_badra(void *bogus): pushes bogus and calls raw_getppid; its
 * CFI leaves the push out (as glibc's i386 memcpy does at one push), so
 * the return address it gives is bogus itself: an address in anonymous
 * memory after zero bytes, no call before it. */
	.globl stop_badra
	.type stop_badra,@function
stop_badra:
	.cfi_startproc
#ifdef __x86_64__
	push %rdi
	/* wrong on purpose: the CFA is rsp + 16 now */
	call raw_getppid
	.globl badra_pc
badra_pc:
	nop
	pop %rdi
#else
	pushl 4(%esp)
	/* wrong on purpose: the CFA is esp + 8 now */
	call raw_getppid
	.globl badra_pc
badra_pc:
	nop
	add $4, %esp
#endif
	ret
	.cfi_endproc
	.size stop_badra, .-stop_badra

	.section .note.GNU-stack,"",@progbits
