/* soak: one process of kernel.ustack/soak.exp's churn.
 *
 *   soak SECONDS LIB [CHILD]
 *
 * Until SECONDS have passed, picks at random: a thread that calls getppid
 * at the end of a call chain and exits; dlopen(LIB), a getppid through it,
 * dlclose; LIB mapped executable from its file, mprotect'ed, mremap'ed
 * (moved) and unmapped; a child that execs this program again for a
 * second (not a CHILD itself: the churn does not grow); getppid at the
 * end of a chain of random depth; a short sleep; the unmap race: a thread
 * runs in LIB's text while this one unmaps the segment that holds LIB's
 * unwind tables and maps it again, twenty times.  Every process, thread
 * and mapping it makes is gone when it returns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *lib;

__attribute__((noinline)) static int chain(int depth)
{
	if (depth <= 0)
		return (int)getppid();
	return chain(depth - 1) + 1;
}

static void *thread_main(void *arg)
{
	for (int i = 0; i < 3; i++)	/* bound: 3 */
		chain((int)(long)arg + i);
	return NULL;
}

static void with_thread(void)
{
	pthread_t t;

	if (pthread_create(&t, NULL, thread_main, (void *)(long)(rand() % 8)) == 0)
		pthread_join(t, NULL);
}

static void with_library(void)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	int (*call)(int);

	if (!h) {
		fprintf(stderr, "soak: %s\n", dlerror());
		exit(1);
	}
	call = (int (*)(int))dlsym(h, "soaklib_call");
	if (call)
		call(rand() % 6);
	dlclose(h);
}

static void with_mappings(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int fd = open(lib, O_RDONLY | O_CLOEXEC);
	void *p, *q;

	if (fd < 0)
		return;
	p = mmap(NULL, 2 * page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return;
	mprotect(p, 2 * page, PROT_READ);
	mprotect(p, 2 * page, PROT_READ | PROT_EXEC);
	q = mremap(p, 2 * page, 4 * page, MREMAP_MAYMOVE);
	munmap(q == MAP_FAILED ? p : q, q == MAP_FAILED ? 2 * page : 4 * page);
}

/* The page-aligned extent and file offset of the loaded LIB's segment that
 * holds PT_GNU_EH_FRAME, if it holds no code. */
struct tables_segment {
	uintptr_t start, len;
	off_t offset;
	int found;
};

static int find_tables_segment(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct tables_segment *t = arg;
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE), hdr = 0;
	int i;

	(void)size;
	if (!info->dlpi_name || strcmp(info->dlpi_name, lib) != 0)
		return 0;
	for (i = 0; i < info->dlpi_phnum; i++)	/* bound: phnum */
		if (info->dlpi_phdr[i].p_type == PT_GNU_EH_FRAME)
			hdr = info->dlpi_phdr[i].p_vaddr;
	for (i = 0; i < info->dlpi_phnum && hdr; i++) {	/* bound: phnum */
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD || hdr < ph->p_vaddr ||
		    hdr >= ph->p_vaddr + ph->p_memsz || (ph->p_flags & PF_X) ||
		    ph->p_filesz != ph->p_memsz)
			continue;
		t->start = (info->dlpi_addr + ph->p_vaddr) & ~(page - 1);
		t->len = ((info->dlpi_addr + ph->p_vaddr + ph->p_memsz + page - 1) &
			  ~(page - 1)) - t->start;
		t->offset = (off_t)(ph->p_offset & ~(page - 1));
		t->found = 1;
	}
	return 1;
}

static void *spin_main(void *arg)
{
	int (*spin)(int) = (int (*)(int))arg;

	spin(200);
	return NULL;
}

static void with_unmap_race(void)
{
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	struct tables_segment t = { 0, 0, 0, 0 };
	pthread_t th;
	void *spin;
	int fd;

	if (!h)
		return;
	spin = dlsym(h, "soaklib_spin");
	dl_iterate_phdr(find_tables_segment, &t);
	fd = open(lib, O_RDONLY | O_CLOEXEC);
	if (spin && t.found && fd >= 0 &&
	    pthread_create(&th, NULL, spin_main, spin) == 0) {
		for (int i = 0; i < 20; i++) {	/* bound: 20 */
			munmap((void *)t.start, t.len);
			usleep(2000);
			if (mmap((void *)t.start, t.len, PROT_READ, MAP_PRIVATE | MAP_FIXED,
				 fd, t.offset) == MAP_FAILED) {
				perror("soak: mmap back");
				exit(1);
			}
			usleep(2000);
		}
		pthread_join(th, NULL);
	}
	if (fd >= 0)
		close(fd);
	dlclose(h);
}

static void with_exec(const char *self)
{
	pid_t pid = fork();

	if (pid == 0) {
		execl(self, self, "1", lib, "child", (char *)NULL);
		_exit(127);
	}
	if (pid > 0)
		waitpid(pid, NULL, 0);
}

int main(int argc, char **argv)
{
	int child = argc > 3;
	time_t end;

	if (argc < 3) {
		fprintf(stderr, "usage: soak SECONDS LIB [child]\n");
		return 2;
	}
	lib = argv[2];
	end = time(NULL) + atoi(argv[1]);
	srand((unsigned)getpid());
	while (time(NULL) < end) {	/* bound: SECONDS */
		switch (rand() % 7) {
		case 0: with_thread(); break;
		case 1: with_library(); break;
		case 2: with_mappings(); break;
		case 3: if (!child && rand() % 4 == 0) with_exec(argv[0]); break;
		case 4: chain(rand() % 24); break;
		case 5: if (rand() % 3 == 0) with_unmap_race(); break;
		default: usleep(20000); break;
		}
		usleep(5000);
	}
	return 0;
}
