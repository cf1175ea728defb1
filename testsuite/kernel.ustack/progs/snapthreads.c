/* snapthreads: a process with many threads parked in known call chains,
 * so that a kernel-side snapshot of every thread's user stack can be
 * checked against what the program knows.
 *
 *   snapthreads run NTHREADS NSPIN FIFO [leader-exits]
 *   snapthreads now
 *
 * `run` starts NTHREADS worker threads (64 KiB stacks, so that 2,000 fit
 * in a small VM).  NSPIN of them spin in user code; the others are dealt
 * round-robin over the blocking chains.  Each chain is two or three
 * functions that exist only for it, the innermost making the blocking
 * call (never as a tail call); the outermost is the thread's start
 * routine, so that below it there is only libc's start_thread:
 *
 *   0 futex       cond_a -> cond_b -> pthread_cond_wait, never signalled
 *   1 mutex       mutex_a -> mutex_b -> pthread_mutex_lock, held by main
 *   2 read        read_a -> read_b -> read of a pipe never written
 *   3 nanosleep   sleep_a -> sleep_b -> nanosleep(1000 s), again and again
 *   4 epoll       epoll_a -> epoll_b -> epoll_wait, no fd registered
 *   5 poll        poll_a -> poll_b -> poll(NULL, 0, -1)
 *   6 sighandler  sig_a -> sig_b -> pthread_kill(self, SIGUSR1), whose
 *                 handler is on_usr1 -> handler_b -> pause, so that the
 *                 stack crosses the signal frame and libc's pthread_kill
 *   7 spin        spin_a -> spin_b -> a user-mode loop counting
 *   8 control     main -> control_loop -> read (open while no writer) of
 *                 FIFO: the main thread itself
 *   9 control-thread  control_thread -> control_loop -> the same, in a
 *                 thread of its own: with `leader-exits` only, where the
 *                 main thread, once it has printed the truth, ends with
 *                 pthread_exit (the process lives on: a thread group
 *                 whose leader has exited, as /proc shows it: Z)
 *
 * When every worker is parked (has recorded its tid just before its
 * blocking call or its loop) and every blocking one sleeps in the kernel
 * (its /proc state is S: its user stack is final), it prints the truth to
 * stdout:
 *
 *   chain K NAME FN_INNER ... FN_OUTER   one per chain, its own functions
 *   thread TID K                         one per thread, the main one too
 *                                        (unless it exits)
 *   exited TID                           with leader-exits: the main one
 *   ready PID
 *
 * and reads lines from FIFO.  `quit` stops the spinners and prints
 *
 *   stall TID START_NS LEN_NS   a spinner saw more than 100 us between
 *                               two clock readings 1024 counts apart
 *   stalls-dropped N            only if the stall table overflowed
 *   spins TID COUNT             per spinner, its count
 *   done
 *
 * and exits, which ends the blocked threads.  The stalls measure how long
 * a snapshot held the spinning threads off their CPU.  Times are
 * CLOCK_MONOTONIC in nanoseconds; `now` prints that clock once, so that a
 * script can bracket another tool's run on the same time line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "chain.h"

#define MAX_THREADS	100000
#define STACK_SIZE	(64 * 1024)
#define MAX_STALLS	65536
#define STALL_NS	100000		/* a gap longer than this is a stall */
#define SPIN_CHECK	1024		/* counts between clock readings */
#define PARK_WAIT_NS	(60LL * 1000000000)
#define QUIT_WAIT_NS	(10LL * 1000000000)

enum {
	CH_FUTEX, CH_MUTEX, CH_READ, CH_NANOSLEEP, CH_EPOLL, CH_POLL,
	CH_SIGHANDLER, CH_SPIN, CH_CONTROL, CH_CONTROL_THREAD, NCHAINS
};
#define NBLOCKING	(CH_SIGHANDLER + 1)	/* chains 0..6 take the blockers */

struct spinner {
	volatile uint64_t count;	/* written by its thread only */
	atomic_int done;		/* its thread has stopped counting */
} __attribute__((aligned(64)));	/* one cache line each */

struct worker {
	int chain;
	pid_t tid;			/* set when parked */
	struct spinner *spin;		/* the spin chain's only */
};

struct stall {
	pid_t tid;
	int64_t start, len;
};

/* Loops that must never end test this, so that the compiler cannot find
 * their functions noreturn: a call to a noreturn function may be the last
 * instruction of its caller, and its return address then points into the
 * next function, which would spoil the chains' truth. */
static volatile int forever = 1;

static struct worker *workers;		/* NTHREADS, then main's */
static struct spinner *spinners;
static int nthreads, nspin;
static int leader_exits;		/* main ends; a thread reads FIFO */
static atomic_int parked;
static atomic_int quitting;

static struct stall stalls[MAX_STALLS];
static atomic_uint nstalls;		/* may pass MAX_STALLS by a few */
static atomic_uint stalls_dropped;

static pthread_mutex_t held = PTHREAD_MUTEX_INITIALIZER;	/* by main */
static pthread_mutex_t cond_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t never_signalled = PTHREAD_COND_INITIALIZER;
static int pipe_rd, pipe_wr;		/* the write end stays open, unused */
static int epfd;

static __attribute__((noreturn)) void die(const char *what, int err)
{
	if (err)
		fprintf(stderr, "snapthreads: %s: %s\n", what, strerror(err));
	else
		fprintf(stderr, "snapthreads: %s\n", what);
	exit(1);
}

/* For the signal handler, where stdio is not safe. */
static __attribute__((noreturn)) void die_in_handler(const char *what)
{
	ssize_t r;

	r = write(2, what, strlen(what));
	(void)r;			/* exiting with an error anyway */
	_exit(1);
}

static pid_t my_tid(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime", errno);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void sleep_ns(int64_t ns)
{
	struct timespec ts = { ns / 1000000000, ns % 1000000000 };

	/* bound: the time left shrinks; only signals (none expected) repeat */
	while (nanosleep(&ts, &ts))
		if (errno != EINTR)
			die("nanosleep", errno);
}

/* Called just before the blocking call (or the spin loop): the thread is
 * in its chain's innermost function from here on.  Async-signal-safe. */
static void park(struct worker *w)
{
	w->tid = my_tid();
	/* Release: main, seeing the count, sees the tid. */
	atomic_fetch_add_explicit(&parked, 1, memory_order_release);
}

/* The scheduler state of thread TID (/proc/self/task/TID/stat's third
 * field), or 0 if it cannot be read. */
static char thread_state(pid_t tid)
{
	char path[64], buf[512], *close_paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	/* "TID (COMM) STATE ...": COMM may hold spaces and parentheses. */
	close_paren = strrchr(buf, ')');
	if (!close_paren || close_paren[1] != ' ')
		return 0;
	return close_paren[2];
}

/* Wait until every blocking worker sleeps in its blocking call: parked
 * is only just before the call, and a thread still on its way there
 * (in libc's lock or wait code) has a stack that is not its chain's
 * final one.  Dies at DEADLINE. */
static void wait_blocked(int64_t deadline)
{
	for (int i = 0; i < nthreads; i++) {	/* bound: NTHREADS */
		if (workers[i].chain == CH_SPIN)
			continue;
		/* bound: DEADLINE in 10 ms steps */
		while (thread_state(workers[i].tid) != 'S') {
			if (now_ns() > deadline) {
				fprintf(stderr, "snapthreads: thread %d not "
					"asleep in its blocking call in 60 s\n",
					(int)workers[i].tid);
				exit(1);
			}
			sleep_ns(10000000);
		}
	}
}

/* ---- 0 futex ---- */

static NOINLINE void cond_b(struct worker *w)
{
	int rc = pthread_mutex_lock(&cond_lock);

	if (rc)
		die("pthread_mutex_lock (cond)", rc);
	park(w);
	while (forever) {	/* bound: none; never signalled, waits until exit */
		rc = pthread_cond_wait(&never_signalled, &cond_lock);
		NO_TAIL();
		if (rc)
			die("pthread_cond_wait", rc);
		/* A spurious wake-up: wait again, in the same chain. */
	}
}

static NOINLINE void *cond_a(void *arg)
{
	cond_b(arg);
	NO_TAIL();
	return NULL;
}

/* ---- 1 mutex ---- */

static NOINLINE void mutex_b(struct worker *w)
{
	int rc;

	park(w);
	rc = pthread_mutex_lock(&held);
	NO_TAIL();
	if (forever)		/* so that mutex_b may return: see forever */
		die(rc ? "pthread_mutex_lock (held)" :
		    "pthread_mutex_lock (held): got the mutex main holds", rc);
}

static NOINLINE void *mutex_a(void *arg)
{
	mutex_b(arg);
	NO_TAIL();
	return NULL;
}

/* ---- 2 read ---- */

static NOINLINE void read_b(struct worker *w)
{
	char c;
	ssize_t n;

	park(w);
	while (forever) {	/* bound: none; the pipe is never written */
		n = read(pipe_rd, &c, 1);
		NO_TAIL();
		if (n >= 0)
			die("read (pipe): data or end of file from a pipe "
			    "never written", 0);
		if (errno != EINTR)
			die("read (pipe)", errno);
	}
}

static NOINLINE void *read_a(void *arg)
{
	read_b(arg);
	NO_TAIL();
	return NULL;
}

/* ---- 3 nanosleep ---- */

static NOINLINE void sleep_b(struct worker *w)
{
	struct timespec ts;

	park(w);
	while (forever) {	/* bound: none; an early wake sleeps again */
		ts.tv_sec = 1000;
		ts.tv_nsec = 0;
		if (nanosleep(&ts, NULL) && errno != EINTR)
			die("nanosleep (1000 s)", errno);
		NO_TAIL();
	}
}

static NOINLINE void *sleep_a(void *arg)
{
	sleep_b(arg);
	NO_TAIL();
	return NULL;
}

/* ---- 4 epoll ---- */

static NOINLINE void epoll_b(struct worker *w)
{
	struct epoll_event ev;
	int n;

	park(w);
	while (forever) {	/* bound: none; nothing registered, never ready */
		n = epoll_wait(epfd, &ev, 1, -1);
		NO_TAIL();
		if (n >= 0)
			die("epoll_wait: returned with nothing registered", 0);
		if (errno != EINTR)
			die("epoll_wait", errno);
	}
}

static NOINLINE void *epoll_a(void *arg)
{
	epoll_b(arg);
	NO_TAIL();
	return NULL;
}

/* ---- 5 poll ---- */

static NOINLINE void poll_b(struct worker *w)
{
	int n;

	park(w);
	while (forever) {	/* bound: none; no fds, no timeout */
		n = poll(NULL, 0, -1);
		NO_TAIL();
		if (n >= 0)
			die("poll: returned with no fds and no timeout", 0);
		if (errno != EINTR)
			die("poll", errno);
	}
}

static NOINLINE void *poll_a(void *arg)
{
	poll_b(arg);
	NO_TAIL();
	return NULL;
}

/* ---- 6 sighandler ---- */

/* pthread_kill of itself leaves no way to pass the worker to the handler:
 * the thread says who it is here first. */
static __thread struct worker *self;

static NOINLINE void handler_b(void)
{
	park(self);
	while (forever) {	/* bound: none; no further signal comes */
		if (pause() >= 0 || errno != EINTR)
			die_in_handler("snapthreads: pause failed in the handler\n");
		NO_TAIL();
	}
}

static NOINLINE void on_usr1(int sig)
{
	(void)sig;
	handler_b();
	NO_TAIL();
}

static NOINLINE void sig_b(struct worker *w)
{
	sigset_t usr1;
	int rc;

	self = w;
	/* The mask is inherited across exec: a caller's block must not keep
	 * the signal pending, which would let pthread_kill return. */
	if (sigemptyset(&usr1) || sigaddset(&usr1, SIGUSR1))
		die("sigaddset", errno);
	rc = pthread_sigmask(SIG_UNBLOCK, &usr1, NULL);
	if (rc)
		die("pthread_sigmask", rc);
	rc = pthread_kill(pthread_self(), SIGUSR1);
	NO_TAIL();
	if (forever)		/* so that sig_b may return: see forever */
		die(rc ? "pthread_kill (SIGUSR1)" :
		    "pthread_kill (SIGUSR1): returned, the handler did not stay",
		    rc);
}

static NOINLINE void *sig_a(void *arg)
{
	sig_b(arg);
	NO_TAIL();
	return NULL;
}

/* ---- 7 spin ---- */

static void record_stall(pid_t tid, int64_t start, int64_t len)
{
	unsigned i;

	/* Test before adding, so that the index passes MAX_STALLS only by
	 * the few spinners that race past the test, and never wraps. */
	if (atomic_load_explicit(&nstalls, memory_order_relaxed) >= MAX_STALLS ||
	    (i = atomic_fetch_add_explicit(&nstalls, 1, memory_order_relaxed))
	    >= MAX_STALLS) {
		atomic_fetch_add_explicit(&stalls_dropped, 1, memory_order_relaxed);
		return;
	}
	/* Main reads the entry only after this thread's done (release). */
	stalls[i].tid = tid;
	stalls[i].start = start;
	stalls[i].len = len;
}

static NOINLINE void spin_b(struct worker *w)
{
	struct spinner *s = w->spin;
	int64_t prev, now;

	prev = now_ns();
	park(w);
	/* bound: until main sets quitting */
	while (!atomic_load_explicit(&quitting, memory_order_relaxed)) {
		for (int i = 0; i < SPIN_CHECK; i++)	/* bound: SPIN_CHECK */
			s->count++;
		now = now_ns();		/* the vDSO: no system call */
		if (now - prev > STALL_NS)
			record_stall(w->tid, prev, now - prev);
		prev = now;
	}
	/* Release: main, seeing done, sees the count and this thread's
	 * stalls whole. */
	atomic_store_explicit(&s->done, 1, memory_order_release);
	while (forever)		/* bound: none; main exits soon */
		pause();
	NO_TAIL();
}

static NOINLINE void *spin_a(void *arg)
{
	spin_b(arg);
	NO_TAIL();
	return NULL;
}

/* ---- 8 control: main -> control_loop; 9 control_thread -> control_loop ---- */

static atomic_int control_tid;		/* the control thread's, once it runs */
static NOINLINE void control_loop(const char *fifo);

static NOINLINE void *control_thread(void *fifo)
{
	atomic_store_explicit(&control_tid, my_tid(), memory_order_release);
	control_loop(fifo);
	NO_TAIL();
	return NULL;
}

static const struct {
	const char *name;
	void *(*start)(void *);
	const char *fns;		/* its own functions, innermost first */
} chains[NCHAINS] = {
	[CH_FUTEX]	= { "futex", cond_a, "cond_b cond_a" },
	[CH_MUTEX]	= { "mutex", mutex_a, "mutex_b mutex_a" },
	[CH_READ]	= { "read", read_a, "read_b read_a" },
	[CH_NANOSLEEP]	= { "nanosleep", sleep_a, "sleep_b sleep_a" },
	[CH_EPOLL]	= { "epoll", epoll_a, "epoll_b epoll_a" },
	[CH_POLL]	= { "poll", poll_a, "poll_b poll_a" },
	[CH_SIGHANDLER]	= { "sighandler", sig_a,
			    "handler_b on_usr1 sig_b sig_a" },
	[CH_SPIN]	= { "spin", spin_a, "spin_b spin_a" },
	[CH_CONTROL]	= { "control", NULL, "control_loop main" },
	[CH_CONTROL_THREAD] = { "control-thread", control_thread,
				"control_loop control_thread" },
};

static void flush_stdout(void)
{
	if (fflush(stdout) || ferror(stdout))
		die("writing stdout", errno);
}

static __attribute__((noreturn)) void finish(void)
{
	int64_t deadline = now_ns() + QUIT_WAIT_NS;
	unsigned n, dropped;

	/* Stop the spinners first, so that their counts and stalls are
	 * whole when printed (a 64-bit count is two stores on i386). */
	atomic_store_explicit(&quitting, 1, memory_order_relaxed);
	for (int i = 0; i < nspin; i++) {	/* bound: NSPIN */
		/* bound: QUIT_WAIT_NS in 1 ms steps */
		while (!atomic_load_explicit(&spinners[i].done,
					     memory_order_acquire)) {
			if (now_ns() > deadline)
				die("quit: a spinner did not stop in 10 s", 0);
			sleep_ns(1000000);
		}
	}
	n = atomic_load_explicit(&nstalls, memory_order_relaxed);
	if (n > MAX_STALLS)
		n = MAX_STALLS;
	for (unsigned i = 0; i < n; i++)	/* bound: MAX_STALLS */
		printf("stall %d %lld %lld\n", (int)stalls[i].tid,
		       (long long)stalls[i].start, (long long)stalls[i].len);
	dropped = atomic_load_explicit(&stalls_dropped, memory_order_relaxed);
	if (dropped)
		printf("stalls-dropped %u\n", dropped);
	for (int i = 0; i < nthreads; i++)	/* bound: NTHREADS */
		if (workers[i].chain == CH_SPIN)
			printf("spins %d %llu\n", (int)workers[i].tid,
			       (unsigned long long)workers[i].spin->count);
	printf("done\n");
	flush_stdout();
	_exit(0);
}

static void command(char *line, size_t len)
{
	line[len] = '\0';
	if (len && line[len - 1] == '\r')
		line[--len] = '\0';
	if (strcmp(line, "quit") == 0)
		finish();
	if (len)
		fprintf(stderr, "snapthreads: unknown command '%s'\n", line);
}

/* Reads lines from the FIFO.  open blocks until a writer opens it; at
 * end of file (the writer closed) it opens it again.  Ends at `quit`. */
static NOINLINE void control_loop(const char *fifo)
{
	char buf[256], line[256];
	size_t len = 0;
	int fd = -1, toolong = 0;
	ssize_t n;

	while (forever) {	/* bound: none; until `quit` */
		if (fd < 0) {
			fd = open(fifo, O_RDONLY | O_CLOEXEC);
			NO_TAIL();
			if (fd < 0) {
				if (errno == EINTR)
					continue;
				die(fifo, errno);
			}
		}
		n = read(fd, buf, sizeof(buf));
		NO_TAIL();
		if (n < 0) {
			if (errno == EINTR)
				continue;
			die("read (fifo)", errno);
		}
		if (n == 0) {
			if (close(fd))
				die("close (fifo)", errno);
			fd = -1;
			/* A last line without its newline still counts. */
			if (len && !toolong)
				command(line, len);
			len = 0;
			toolong = 0;
			continue;
		}
		for (ssize_t i = 0; i < n; i++) {	/* bound: n */
			if (buf[i] == '\n') {
				if (!toolong)
					command(line, len);
				len = 0;
				toolong = 0;
			} else if (len < sizeof(line) - 1) {
				line[len++] = buf[i];
			} else {
				toolong = 1;	/* dropped whole */
			}
		}
	}
}

static int parse_int(const char *s, const char *what, int lo, int hi)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || end == s || *end || v < lo || v > hi) {
		fprintf(stderr, "snapthreads: %s: '%s' is not a number in %d..%d\n",
			what, s, lo, hi);
		exit(1);
	}
	return (int)v;
}

static void usage(void)
{
	fprintf(stderr, "usage: snapthreads run NTHREADS NSPIN FIFO [leader-exits]\n"
			"       snapthreads now\n");
	exit(1);
}

static void start_workers(void)
{
	pthread_attr_t attr;
	pthread_t t;
	int rc;

	rc = pthread_attr_init(&attr);
	if (rc)
		die("pthread_attr_init", rc);
	rc = pthread_attr_setstacksize(&attr, STACK_SIZE);
	if (rc)
		die("pthread_attr_setstacksize (64 KiB)", rc);
	for (int i = 0; i < nthreads; i++) {	/* bound: NTHREADS */
		struct worker *w = &workers[i];

		if (i < nspin) {
			w->chain = CH_SPIN;
			w->spin = &spinners[i];
		} else {
			w->chain = (i - nspin) % NBLOCKING;
		}
		rc = pthread_create(&t, &attr, chains[w->chain].start, w);
		if (rc) {
			fprintf(stderr, "snapthreads: pthread_create (thread %d "
				"of %d): %s\n", i + 1, nthreads, strerror(rc));
			exit(1);
		}
	}
	rc = pthread_attr_destroy(&attr);
	if (rc)
		die("pthread_attr_destroy", rc);
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	struct stat st;
	const char *fifo;
	int64_t deadline;
	int p[2], rc;

	if (argc == 2 && strcmp(argv[1], "now") == 0) {
		printf("%lld\n", (long long)now_ns());
		flush_stdout();
		return 0;
	}
	if (argc < 5 || argc > 6 || strcmp(argv[1], "run") != 0)
		usage();
	leader_exits = argc == 6;
	if (leader_exits && strcmp(argv[5], "leader-exits") != 0)
		usage();
	nthreads = parse_int(argv[2], "NTHREADS", 1, MAX_THREADS);
	nspin = parse_int(argv[3], "NSPIN", 0, nthreads);
	fifo = argv[4];
	/* Found wrong now, not after starting the threads. */
	if (stat(fifo, &st))
		die(fifo, errno);
	if (!S_ISFIFO(st.st_mode))
		die("FIFO is not a named pipe", 0);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	if (sigemptyset(&sa.sa_mask) || sigaction(SIGUSR1, &sa, NULL))
		die("sigaction (SIGUSR1)", errno);
	rc = pthread_mutex_lock(&held);		/* for ever */
	if (rc)
		die("pthread_mutex_lock (held)", rc);
	if (pipe2(p, O_CLOEXEC))
		die("pipe2", errno);
	pipe_rd = p[0];
	pipe_wr = p[1];
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd < 0)
		die("epoll_create1", errno);

	workers = calloc((size_t)nthreads + 1, sizeof(*workers));
	if (!workers)
		die("calloc (workers)", errno);
	if (nspin) {
		rc = posix_memalign((void **)&spinners, 64,
				    (size_t)nspin * sizeof(*spinners));
		if (rc)
			die("posix_memalign (spinners)", rc);
		memset(spinners, 0, (size_t)nspin * sizeof(*spinners));
	}
	workers[nthreads].chain = leader_exits ? CH_CONTROL_THREAD : CH_CONTROL;
	workers[nthreads].tid = my_tid();

	start_workers();
	if (leader_exits) {
		pthread_t t;

		rc = pthread_create(&t, NULL, control_thread, (void *)fifo);
		if (rc)
			die("pthread_create (control thread)", rc);
	}

	deadline = now_ns() + PARK_WAIT_NS;
	/* bound: PARK_WAIT_NS in 10 ms steps */
	while (atomic_load_explicit(&parked, memory_order_acquire) < nthreads) {
		if (now_ns() > deadline) {
			fprintf(stderr, "snapthreads: only %d of %d threads "
				"parked in 60 s\n",
				atomic_load(&parked), nthreads);
			exit(1);
		}
		sleep_ns(10000000);
	}
	wait_blocked(deadline);
	if (leader_exits) {
		/* bound: PARK_WAIT_NS in 10 ms steps */
		while (!atomic_load_explicit(&control_tid, memory_order_acquire)) {
			if (now_ns() > deadline)
				die("the control thread did not start in 60 s", 0);
			sleep_ns(10000000);
		}
		workers[nthreads].tid = atomic_load(&control_tid);
	}

	for (int k = 0; k < NCHAINS; k++) {	/* bound: NCHAINS */
		/* only the control chain that a thread runs */
		if (k == (leader_exits ? CH_CONTROL : CH_CONTROL_THREAD))
			continue;
		printf("chain %d %s %s\n", k, chains[k].name, chains[k].fns);
	}
	/* The control thread first: without leader-exits, main (tid = pid). */
	printf("thread %d %d\n", (int)workers[nthreads].tid,
	       workers[nthreads].chain);
	if (leader_exits)
		printf("exited %d\n", (int)getpid());
	for (int i = 0; i < nthreads; i++)	/* bound: NTHREADS */
		printf("thread %d %d\n", (int)workers[i].tid, workers[i].chain);
	printf("ready %d\n", (int)getpid());
	flush_stdout();

	if (leader_exits)
		pthread_exit(NULL);
	control_loop(fifo);
	NO_TAIL();
	return 0;
}
