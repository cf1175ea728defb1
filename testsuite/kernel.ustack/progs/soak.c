/* soak: one process of kernel.ustack/soak.exp's churn.
 *
 *   soak SECONDS LIB [CHILD]
 *
 * Until SECONDS have passed, picks at random: a thread that calls getppid
 * at the end of a call chain and exits; dlopen(LIB), a getppid through it,
 * dlclose; LIB mapped executable from its file, mprotect'ed, mremap'ed
 * (moved) and unmapped; a child that execs this program again for a
 * second (not a CHILD itself: the churn does not grow); getppid at the
 * end of a chain of random depth; a short sleep.  Every process, thread
 * and mapping it makes is gone when it returns.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
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
		switch (rand() % 6) {
		case 0: with_thread(); break;
		case 1: with_library(); break;
		case 2: with_mappings(); break;
		case 3: if (!child && rand() % 4 == 0) with_exec(argv[0]); break;
		case 4: chain(rand() % 24); break;
		default: usleep(20000); break;
		}
		usleep(5000);
	}
	return 0;
}
