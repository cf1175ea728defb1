/* Unit test of runtime/unwind/elfmem.c.  Built -m64 and -m32; prints
 * PASS:/FAIL: lines.
 *
 * Real objects: every object of this process (the program, libc, ld.so,
 * the vdso) is scanned from its own mapped ELF header, and the result is
 * checked against what glibc's dl_iterate_phdr says about it (load bias =
 * dlpi_addr, PT_GNU_EH_FRAME address) and against the mapped bytes (a CIE
 * at the start of .eh_frame, a known function inside the text extent);
 * each one with a file is scanned from the file too (uw_elfmem_scan_file),
 * which must give the same tables at link-time addresses.
 * Made-up objects: the program's own first page, copied and corrupted one
 * field at a time, must give the documented distinct status, and reads
 * that fail must be reported with their address.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/uio.h>
#include <unistd.h>

#include "../../runtime/unwind/elfmem.h"

#include "check.h"

/* Reads: a fake object at FAKE_BASE backed by fake[], an unreadable
 * range [hole_lo, hole_hi), anything else from this process (through
 * process_vm_readv, so a bad address fails instead of faulting). */
#define FAKE_BASE 0x40000000u
static unsigned char fake[8192];
static uint64_t hole_lo, hole_hi;

static int test_read(void *host, uint64_t addr, void *buf, uint32_t len)
{
	(void)host;
	if (addr < hole_hi && addr + len > hole_lo)
		return -1;
	if (addr >= FAKE_BASE && addr < FAKE_BASE + sizeof fake) {
		if (len > FAKE_BASE + sizeof fake - addr)
			return -1;
		memcpy(buf, fake + (addr - FAKE_BASE), len);
		return 0;
	}
	if ((uint64_t)(uintptr_t)addr != addr)
		return -1;
	struct iovec local = { buf, len };
	struct iovec remote = { (void *)(uintptr_t)addr, len };
	return process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

static const struct uw_host_ops ops = { .read_mem = test_read };
static struct uw_elfmem_scratch scan_scratch;	/* every scan's */

/* A file source's reads: pread of the descriptor *fd. */
static int file_read(void *fd, uint64_t off, void *buf, uint32_t len)
{
	return pread(*(int *)fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The scan of the file path must give the tables that the scan of its
 * image gave (mapped: info), at link-time addresses. */
static void check_file_scan(const char *name, const char *path,
			    const struct uw_elfmem_info *mapped)
{
	static struct uw_elfmem_scratch file_scratch;
	struct uw_elfmem_info info;
	struct uw_elf_src src;
	const struct uw_tables *a = &info.tables, *b = &mapped->tables;
	char what[256];
	int fd = open(path, O_RDONLY);

	snprintf(what, sizeof what, "%s: the scan of its file gives the same tables", name);
	if (fd < 0) {
		check(0, what);
		return;
	}
	uw_elf_src_file(&src, file_read, &fd);
	int rc = uw_elfmem_scan_file(&src, &info, &file_scratch);
	check(rc == UW_ELFMEM_OK && a->bias == 0 && info.arch == mapped->arch &&
	      a->eh_frame_hdr.addr == b->eh_frame_hdr.addr &&
	      a->eh_frame_hdr.size == b->eh_frame_hdr.size &&
	      a->eh_frame.addr == b->eh_frame.addr && a->eh_frame.size == b->eh_frame.size &&
	      a->data_base == b->data_base && info.build_id_len == mapped->build_id_len &&
	      memcmp(info.build_id, mapped->build_id, info.build_id_len) == 0, what);
	close(fd);
}

static int nobjects;

static int per_object(struct dl_phdr_info *dl, size_t size, void *data)
{
	struct uw_elfmem_info info;
	const ElfW(Phdr) *eh = NULL, *first = NULL;
	char name[160];
	(void)size;
	(void)data;

	for (int i = 0; i < dl->dlpi_phnum; i++) {
		const ElfW(Phdr) *p = &dl->dlpi_phdr[i];
		if (p->p_type == PT_GNU_EH_FRAME)
			eh = p;
		if (p->p_type == PT_LOAD && (!first || p->p_vaddr < first->p_vaddr))
			first = p;
	}
	if (!first)
		return 0;
	int index = nobjects++;
	const char *slash = strrchr(dl->dlpi_name, '/');
	snprintf(name, sizeof name, "object %d (%s)", index,
		 slash ? slash + 1 : dl->dlpi_name[0] ? dl->dlpi_name :
		 index == 0 ? "main program" : "vdso");
	uint64_t start = (dl->dlpi_addr + first->p_vaddr) & ~(uint64_t)4095;
	int rc = uw_elfmem_scan(&ops, NULL, start, &info, &scan_scratch);
	char what[256];
	snprintf(what, sizeof what, "%s: scan ok (%s)", name, uw_elfmem_status_name(rc));
	check(rc == UW_ELFMEM_OK && eh != NULL, what);
	if (rc != UW_ELFMEM_OK || !eh)
		return 0;
	snprintf(what, sizeof what, "%s: bias is dlpi_addr %#lx", name, (unsigned long)dl->dlpi_addr);
	check(info.tables.bias == (uint64_t)dl->dlpi_addr, what);
	snprintf(what, sizeof what, "%s: eh_frame_hdr is PT_GNU_EH_FRAME", name);
	check(info.tables.eh_frame_hdr.addr == eh->p_vaddr &&
	      info.tables.eh_frame_hdr.size == eh->p_memsz && !info.tables.eh_frame_hdr.data, what);
	snprintf(what, sizeof what, "%s: arch", name);
	check(info.arch == (sizeof(void *) == 8 ? UW_ARCH_X86_64 : UW_ARCH_I386), what);
	/* .eh_frame starts with a CIE: length, then CIE id 0. */
	unsigned char cie[8];
	snprintf(what, sizeof what, "%s: .eh_frame located, starts with a CIE", name);
	check(info.tables.eh_frame.size >= 8 &&
	      test_read(NULL, info.tables.eh_frame.addr + info.tables.bias, cie, 8) == 0 &&
	      memcmp(cie + 4, "\0\0\0\0", 4) == 0, what);
	snprintf(what, sizeof what, "%s: text extent inside the load extent", name);
	check(info.text_start < info.text_end && info.load_start <= info.text_start &&
	      info.text_end <= info.load_end, what);
	if (dl->dlpi_name[0] == '/')
		check_file_scan(name, dl->dlpi_name, &info);
	else if (index == 0)
		check_file_scan(name, "/proc/self/exe", &info);
	if (nobjects == 1) {
		check(uw_elfmem_covers(&info, (uint64_t)(uintptr_t)&per_object) &&
		      !uw_elfmem_covers(&info, (uint64_t)(uintptr_t)&fake[0]),
		      "main program: covers its own function, not its data");
		check(info.build_id_len == 20, "main program: 20-byte GNU build-id");
	}
	return 0;
}

/* Set a little-endian field of the fake header. */
static void put(unsigned off, uint64_t v, unsigned size)
{
	for (unsigned i = 0; i < size; i++)
		fake[off + i] = (unsigned char)(v >> (8 * i));
}

static void fake_reset(void)
{
	/* The program's own ELF header and program headers. */
	uint64_t self = getauxval(AT_PHDR) & ~(uint64_t)4095;
	memset(fake, 0, sizeof fake);
	test_read(NULL, self, fake, 4096);
	hole_lo = hole_hi = 0;
}

static void expect(int want, const char *name)
{
	struct uw_elfmem_info info;
	int rc = uw_elfmem_scan(&ops, NULL, FAKE_BASE, &info, &scan_scratch);
	char what[200];
	snprintf(what, sizeof what, "corrupt: %s -> %s (got %s)", name, uw_elfmem_status_name(want),
		 uw_elfmem_status_name(rc));
	check(rc == want, what);
	fake_reset();
}

int main(void)
{
	const int is64 = sizeof(void *) == 8;
	const unsigned phoff_at = is64 ? 32 : 28, phentsize_at = is64 ? 54 : 42,
		       phnum_at = is64 ? 56 : 44, phent = is64 ? 56 : 32;

	dl_iterate_phdr(per_object, NULL);
	check(nobjects >= 3, "dl_iterate_phdr saw the program, libc and the vdso");
	uint64_t vdso = getauxval(AT_SYSINFO_EHDR);
	if (vdso) {
		struct uw_elfmem_info info;
		check(uw_elfmem_scan(&ops, NULL, vdso, &info, &scan_scratch) == UW_ELFMEM_OK &&
		      info.tables.bias == vdso && info.tables.eh_frame_hdr.size > 0,
		      "vdso from AT_SYSINFO_EHDR: scanned, linked at 0");
	}

	/* The unmodified copy is fine only if its phdrs' addresses are not
	 * needed (they are link-time; reads at FAKE_BASE + vaddr fail past
	 * the copied page): so expect no crash and some status. */
	fake_reset();
	{
		struct uw_elfmem_info info;
		uint64_t self = getauxval(AT_PHDR) & ~(uint64_t)4095;
		int rc = uw_elfmem_scan(&ops, NULL, FAKE_BASE, &info, &scan_scratch);
		check(rc == UW_ELFMEM_OK || rc == UW_ELFMEM_UNREADABLE ||
		      rc == UW_ELFMEM_BAD_HEADERS, "copy of own headers: no crash");
		(void)self;
	}

	fake[0] = 0x7e;
	expect(UW_ELFMEM_NOT_ELF, "bad magic");
	fake[4] = 3;
	expect(UW_ELFMEM_UNSUPPORTED, "class 3");
	fake[5] = 2;
	expect(UW_ELFMEM_UNSUPPORTED, "big-endian");
	put(18, 40 /* EM_ARM */, 2);
	expect(UW_ELFMEM_UNSUPPORTED, "machine ARM");
	put(16, 4 /* ET_CORE */, 2);
	expect(UW_ELFMEM_UNSUPPORTED, "ET_CORE");
	put(phentsize_at, phent + 8, 2);
	expect(UW_ELFMEM_UNSUPPORTED, "e_phentsize");
	put(phnum_at, UW_ELFMEM_MAX_PHNUM + 1, 2);
	expect(UW_ELFMEM_UNSUPPORTED, "e_phnum above the bound");
	put(phnum_at, 0xffff, 2);
	expect(UW_ELFMEM_UNSUPPORTED, "e_phnum PN_XNUM");
	put(phoff_at, 0x7fffffff, is64 ? 8 : 4);
	expect(UW_ELFMEM_UNSUPPORTED, "e_phoff far away");
	put(phoff_at, sizeof fake - 16, is64 ? 8 : 4);
	expect(UW_ELFMEM_UNREADABLE, "phdrs running past the readable bytes");
	hole_lo = FAKE_BASE + 8;
	hole_hi = FAKE_BASE + 9;
	{
		struct uw_elfmem_info info;
		int rc = uw_elfmem_scan(&ops, NULL, FAKE_BASE, &info, &scan_scratch);
		check(rc == UW_ELFMEM_UNREADABLE && info.fail_addr == FAKE_BASE,
		      "unreadable ELF header: UNREADABLE at the header's address");
		check(uw_elfmem_stop_reason(rc) == UW_STOP_MEMORY_UNREADABLE,
		      "UNREADABLE stands for UW_STOP_MEMORY_UNREADABLE");
		struct uw_tables t;
		check(uw_elfmem_fail_tables(&t, rc, &info) == -1 && t.unreadable == FAKE_BASE,
		      "fail_tables passes the address on");
		fake_reset();
	}
	/* Remove PT_GNU_EH_FRAME (turn it into PT_NULL) and every PT_LOAD. */
	{
		unsigned phoff = (unsigned)(is64 ? *(uint64_t *)(fake + 32) : *(uint32_t *)(fake + 28));
		unsigned phnum = *(uint16_t *)(fake + phnum_at);
		for (unsigned i = 0; i < phnum; i++)
			if (*(uint32_t *)(fake + phoff + i * phent) == PT_LOAD)
				put(phoff + i * phent, PT_NULL, 4);
		expect(UW_ELFMEM_BAD_HEADERS, "no PT_LOAD");
		for (unsigned i = 0; i < phnum; i++)
			if (*(uint32_t *)(fake + phoff + i * phent) == PT_GNU_EH_FRAME)
				put(phoff + i * phent, PT_NULL, 4);
		/* The program's other headers point to its real link-time
		 * addresses, unreadable here but for the first page: notes and
		 * PT_DYNAMIC may fail first, so accept either. */
		struct uw_elfmem_info info;
		int rc = uw_elfmem_scan(&ops, NULL, FAKE_BASE, &info, &scan_scratch);
		check(rc == UW_ELFMEM_NO_EH_FRAME || rc == UW_ELFMEM_UNREADABLE ||
		      rc == UW_ELFMEM_BAD_HEADERS, "no PT_GNU_EH_FRAME: a failure, no crash");
		fake_reset();
	}
	/* The cache: hit on the same key, miss on another ident, forget. */
	{
		static struct uw_elfmem_cache cache;
		static struct uw_elfmem_info result;
		const struct uw_elfmem_info *info;
		uint64_t self = getauxval(AT_PHDR) & ~(uint64_t)4095;
		uw_elfmem_cache_init(&cache);
		int a = uw_elfmem_lookup(&cache, &ops, NULL, self, 1, &result, &info);
		int b = uw_elfmem_lookup(&cache, &ops, NULL, self, 1, &result, &info);
		int c = uw_elfmem_lookup(&cache, &ops, NULL, self, 2, &result, &info);
		uw_elfmem_cache_forget(&cache, self);
		int d = uw_elfmem_lookup(&cache, &ops, NULL, self, 1, &result, &info);
		check(a == 0 && b == 0 && c == 0 && d == 0 && cache.hits == 1 && cache.misses == 3,
		      "cache: hit on (start, ident), miss on another ident and after forget");
		hole_lo = self;
		hole_hi = self + 1;
		int e = uw_elfmem_lookup(&cache, &ops, NULL, self, 1, &result, &info);
		int f = uw_elfmem_lookup(&cache, &ops, NULL, self, 3, &result, &info);
		check(e == 0 && f == UW_ELFMEM_UNREADABLE && info == &result &&
		      result.fail_addr == self, "cache: failures are not kept, and say where");
	}
	return failures ? 1 : 0;
}
