/* Test program for in-memory unwind tables (uw-memcheck): makes one page of
   its own unwind data unreadable (PROT_NONE: process_vm_readv fails on it,
   as a nofault read fails on a page that is not resident), stops itself
   inside a known call chain, then makes the page readable again and stops
   once more.

   usage: uwm-noread fde|hdr
     fde: the page holding the FDE of victim_leaf (found with libgcc's
          _Unwind_Find_FDE, independent of our library)
     hdr: the page holding .eh_frame_hdr (from PT_GNU_EH_FRAME)
   Prints, before the first stop:
     UWM mode=M page=0xP len=0xL expect=0xA leaf=0xF
   where expect is the first byte an unwinder must read in that page (the
   FDE, or the header), or "UWM skip REASON" (then exits) when the link
   layout puts that byte on a page that cannot be protected alone.  */
#define _GNU_SOURCE
#include <link.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct dwarf_eh_bases {
	void *tbase, *dbase, *func;
};
extern const void *_Unwind_Find_FDE(void *pc, struct dwarf_eh_bases *bases);

/* Many small functions before the victims, so that .eh_frame spans a few
   pages and the victims' FDEs (emitted last: build with
   -fno-toplevel-reorder) are pages away from the header.  */
#define PAD(n) \
	__attribute__((noinline, used)) int pad##n(int x) \
	{ \
		__asm__ volatile("" : "+r"(x)); \
		return x * (n) + 1; \
	}
#define PAD10(n) PAD(n##0) PAD(n##1) PAD(n##2) PAD(n##3) PAD(n##4) \
	PAD(n##5) PAD(n##6) PAD(n##7) PAD(n##8) PAD(n##9)
#define PAD100(n) PAD10(n##0) PAD10(n##1) PAD10(n##2) PAD10(n##3) PAD10(n##4) \
	PAD10(n##5) PAD10(n##6) PAD10(n##7) PAD10(n##8) PAD10(n##9)
PAD100(1) PAD100(2) PAD100(3) PAD100(4) PAD100(5) PAD100(6)

static volatile int sink;

__attribute__((noinline)) void victim_leaf(void)
{
	raise(SIGSTOP);
	sink++;
}

__attribute__((noinline)) void victim_mid(void)
{
	victim_leaf();
	sink++;
}

struct hdr_arg {
	uintptr_t hdr, hdr_len, start;
};

static int find_hdr(struct dl_phdr_info *info, size_t size, void *data)
{
	struct hdr_arg *a = data;
	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME) {
			a->hdr = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			a->hdr_len = info->dlpi_phdr[i].p_memsz;
		}
		if (info->dlpi_phdr[i].p_type == PT_LOAD && info->dlpi_phdr[i].p_offset == 0)
			a->start = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
	}
	return 1; /* the first object is the main program */
}

int main(int argc, char **argv)
{
	uintptr_t pagesz = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct hdr_arg a = { 0, 0, 0 };
	struct dwarf_eh_bases bases;
	const char *mode = argc > 1 ? argv[1] : "fde";

	dl_iterate_phdr(find_hdr, &a);
	uintptr_t fde = (uintptr_t)_Unwind_Find_FDE((char *)&victim_leaf + 1, &bases);
	if (!a.hdr || !fde) {
		printf("UWM skip no PT_GNU_EH_FRAME or no FDE for victim_leaf\n");
		return 0;
	}
	uintptr_t expect = strcmp(mode, "hdr") == 0 ? a.hdr : fde;
	uintptr_t page = expect & ~(pagesz - 1);
	uintptr_t code = (uintptr_t)&victim_leaf & ~(pagesz - 1);
	if (page == (a.start & ~(pagesz - 1)) || page == code ||
	    (strcmp(mode, "fde") == 0 && page < a.hdr + a.hdr_len && a.hdr < page + pagesz)) {
		printf("UWM skip page %#lx also holds the ELF header, the code or the header\n",
		       (unsigned long)page);
		return 0;
	}
	printf("UWM mode=%s page=%#lx len=%#lx expect=%#lx leaf=%#lx\n", mode, (unsigned long)page,
	       (unsigned long)pagesz, (unsigned long)expect, (unsigned long)(uintptr_t)&victim_leaf);
	fflush(stdout);
	/* From here until the page is readable again nothing may touch it:
	   no string constants, no exceptions.  */
	if (mprotect((void *)page, pagesz, PROT_NONE) != 0)
		return 1;
	victim_mid();
	if (mprotect((void *)page, pagesz, PROT_READ) != 0)
		return 1;
	victim_mid();
	return 0;
}
