/* stap-unwind-pprof: folded stacks (stap-unwind-stackcount -f,
 * stap-unwind-profile -f, stap-unwind-pstack -f) to pprof's profile.proto,
 * which pprof, Pyroscope and Parca import.
 *
 *   stap-unwind-pprof [-t TYPE] [-u UNIT] [-p PERIOD] [-o OUT] [IN]
 *
 * Each input line is "outer;...;inner COUNT"; each distinct frame name is
 * one function and one location (folded stacks carry names, not
 * addresses), and each line one sample whose locations are its frames,
 * the innermost first, with the value COUNT.  The sample type is TYPE/UNIT
 * (default samples/count); -p gives the period of one sample in
 * nanoseconds of CPU time (stap-unwind-profile -F HZ: 1e9 / HZ), written
 * with the period type cpu/nanoseconds.  A line that is not of that form
 * is an error, with its number; nothing is skipped in silence.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__ValueType ValueType;

static const char *prog = "stap-unwind-pprof";

static void die(const char *what)
{
	fprintf(stderr, "%s: %s\n", prog, what);
	exit(1);
}

static void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		die("out of memory");
	return p;
}

static char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		die("out of memory");
	return d;
}

/* Grow *v (of *cap elements of size sz) to hold n. */
static void grow(void *v, size_t *cap, size_t n, size_t sz)
{
	void **p = v;

	if (n <= *cap)
		return;
	*cap = *cap ? *cap * 2 : 64;
	while (*cap < n)	/* bound: doubling up to n */
		*cap *= 2;
	*p = xrealloc(*p, *cap * sz);
}

/* The string table, with a hash from string to index. */
static struct {
	char **str;
	size_t n, cap;
	size_t *slot;		/* index + 1; 0: empty */
	size_t nslot;		/* a power of two, over twice n */
} strs;

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)		/* bound: the string */
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}


static void str_rehash(void)
{
	size_t i, j;

	strs.nslot = strs.nslot ? strs.nslot * 2 : 1024;
	free(strs.slot);
	strs.slot = calloc(strs.nslot, sizeof(*strs.slot));
	if (!strs.slot)
		die("out of memory");
	for (i = 0; i < strs.n; i++) {		/* bound: strings */
		for (j = hash(strs.str[i]) & (strs.nslot - 1); strs.slot[j];
		     j = (j + 1) & (strs.nslot - 1))
			;	/* bound: nslot, over half empty */
		strs.slot[j] = i + 1;
	}
}

/* The index of s in the string table, added if new. */
static size_t str_index(const char *s)
{
	size_t j;

	if (2 * (strs.n + 1) >= strs.nslot)
		str_rehash();
	for (j = hash(s) & (strs.nslot - 1); strs.slot[j];
	     j = (j + 1) & (strs.nslot - 1)) {	/* bound: nslot */
		if (strcmp(strs.str[strs.slot[j] - 1], s) == 0)
			return strs.slot[j] - 1;
	}
	grow(&strs.str, &strs.cap, strs.n + 1, sizeof(*strs.str));
	strs.str[strs.n] = xstrdup(s);
	strs.slot[j] = strs.n + 1;
	return strs.n++;
}

/* Functions and locations, one each per frame name: id = name's string
 * index's order of first use.  fn_of[string index] is the id, or 0. */
static Function **fns;
static Location **locs;
static size_t nfns, fncap, loccap;
static uint64_t *fn_of;
static size_t fn_of_cap;

static uint64_t frame_id(const char *name)
{
	size_t si = str_index(name);
	size_t old = fn_of_cap;
	Function *f;
	Location *l;
	Line *ln;

	grow(&fn_of, &fn_of_cap, si + 1, sizeof(*fn_of));
	if (fn_of_cap > old)
		memset(fn_of + old, 0, (fn_of_cap - old) * sizeof(*fn_of));
	if (fn_of[si])
		return fn_of[si];
	f = xrealloc(NULL, sizeof(*f));
	perftools__profiles__function__init(f);
	f->id = nfns + 1;
	f->name = f->system_name = (int64_t)si;
	l = xrealloc(NULL, sizeof(*l));
	perftools__profiles__location__init(l);
	l->id = f->id;
	ln = xrealloc(NULL, sizeof(*ln));
	perftools__profiles__line__init(ln);
	ln->function_id = f->id;
	l->n_line = 1;
	l->line = xrealloc(NULL, sizeof(*l->line));
	l->line[0] = ln;
	grow(&fns, &fncap, nfns + 1, sizeof(*fns));
	grow(&locs, &loccap, nfns + 1, sizeof(*locs));
	fns[nfns] = f;
	locs[nfns] = l;
	fn_of[si] = f->id;
	return fns[nfns++]->id;
}

/* One folded line into a sample; 0, or -1 if it is not of the form. */
static int add_line(char *line, Sample ***samples, size_t *n, size_t *cap)
{
	char *sp = strrchr(line, ' '), *end, *f, *next;
	unsigned long long count;
	size_t nframes = 0, i;
	uint64_t *ids = NULL;
	Sample *s;

	if (!sp || sp == line)
		return -1;
	errno = 0;
	count = strtoull(sp + 1, &end, 10);
	if (errno || end == sp + 1 || *end || count > INT64_MAX)
		return -1;
	*sp = '\0';
	for (f = line; f; f = next) {		/* bound: the line's frames */
		next = strchr(f, ';');
		if (next)
			*next++ = '\0';
		if (!*f)
			return -1;	/* an empty frame name */
		ids = xrealloc(ids, (nframes + 1) * sizeof(*ids));
		ids[nframes++] = frame_id(f);
	}
	/* The leaf first: folded lines hold the outermost first. */
	for (i = 0; i < nframes / 2; i++) {	/* bound: frames */
		uint64_t t = ids[i];

		ids[i] = ids[nframes - 1 - i];
		ids[nframes - 1 - i] = t;
	}
	s = xrealloc(NULL, sizeof(*s));
	perftools__profiles__sample__init(s);
	s->n_location_id = nframes;
	s->location_id = ids;
	s->n_value = 1;
	s->value = xrealloc(NULL, sizeof(*s->value));
	s->value[0] = (int64_t)count;
	grow(samples, cap, *n + 1, sizeof(**samples));
	(*samples)[(*n)++] = s;
	return 0;
}

static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-t TYPE] [-u UNIT] [-p PERIOD_NS] [-o OUT] [IN]\n"
		"  IN   folded stacks, \"outer;...;inner COUNT\" (default: stdin)\n"
		"  OUT  profile.proto, uncompressed (default: stdout)\n"
		"  -t, -u  the sample type (default: samples, count)\n"
		"  -p   one sample's period, in nanoseconds of CPU time\n", prog);
	exit(2);
}

int main(int argc, char **argv)
{
	const char *type = "samples", *unit = "count", *in = NULL, *out = NULL;
	Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	ValueType st = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	ValueType pt = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;
	ValueType *stp = &st;
	Sample **samples = NULL;
	size_t nsamples = 0, scap = 0, lineno = 0, len;
	long long period = 0;
	char *line = NULL, *end;
	size_t linecap = 0;
	ssize_t got;
	uint8_t *buf;
	FILE *fin = stdin, *fout = stdout;
	struct timespec now;
	int c;

	while ((c = getopt(argc, argv, "t:u:p:o:h")) != -1) {	/* bound: argv */
		switch (c) {
		case 't': type = optarg; break;
		case 'u': unit = optarg; break;
		case 'o': out = optarg; break;
		case 'p':
			errno = 0;
			period = strtoll(optarg, &end, 10);
			if (errno || end == optarg || *end || period <= 0)
				die("-p: not a period in nanoseconds");
			break;
		default: usage();
		}
	}
	if (optind < argc - 1)
		usage();
	if (optind == argc - 1)
		in = argv[optind];
	if (in && !(fin = fopen(in, "r"))) {
		fprintf(stderr, "%s: %s: %s\n", prog, in, strerror(errno));
		return 1;
	}

	str_index("");		/* string_table[0] must be "" */
	st.type = (int64_t)str_index(type);
	st.unit = (int64_t)str_index(unit);
	if (period) {
		pt.type = (int64_t)str_index("cpu");
		pt.unit = (int64_t)str_index("nanoseconds");
		p.period_type = &pt;
		p.period = period;
	}
	while ((got = getline(&line, &linecap, fin)) != -1) {	/* bound: input */
		lineno++;
		if (got > 0 && line[got - 1] == '\n')
			line[got - 1] = '\0';
		if (!line[0])
			continue;
		if (add_line(line, &samples, &nsamples, &scap)) {
			fprintf(stderr, "%s: %s:%zu: not \"outer;...;inner COUNT\"\n",
				prog, in ? in : "stdin", lineno);
			return 1;
		}
	}
	if (ferror(fin))
		die("reading the input failed");

	p.n_sample_type = 1;
	p.sample_type = &stp;
	p.n_sample = nsamples;
	p.sample = samples;
	p.n_location = nfns;
	p.location = locs;
	p.n_function = nfns;
	p.function = fns;
	p.n_string_table = strs.n;
	p.string_table = strs.str;
	clock_gettime(CLOCK_REALTIME, &now);
	p.time_nanos = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;

	len = perftools__profiles__profile__get_packed_size(&p);
	buf = xrealloc(NULL, len);
	perftools__profiles__profile__pack(&p, buf);
	if (out && !(fout = fopen(out, "wb"))) {
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
		return 1;
	}
	if (fwrite(buf, 1, len, fout) != len || fflush(fout) != 0)
		die("writing the profile failed");
	if (out && fclose(fout) != 0)
		die("writing the profile failed");
	return 0;
}
