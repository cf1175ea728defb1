/* Shared definitions of the unwind test programs.  */
#ifndef UWT_H
#define UWT_H

/* Keep every function of the known call chains a real frame.  */
#ifdef __clang__
#define UWT_NOINLINE __attribute__((noinline))
#else
#define UWT_NOINLINE __attribute__((noinline, noclone))
#endif
/* Stop the compiler from turning calls into tail calls or folding them.  */
#define UWT_BARRIER(v) __asm__ volatile("" : "+r"(v) : : "memory")

int lib_entry(int (*callback)(int), int x);

#endif
