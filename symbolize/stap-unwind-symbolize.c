/* stap-unwind-symbolize: name user frames in user space, from the
 * objects' symbols and debug files and from perf maps.
 *
 *   stap-unwind-symbolize [--debug-dir DIR]... [--perf-map FILE | --pid PID]
 *                         [FILE...]
 *   stap-unwind-symbolize --stream [--offsets] [--folded] [--name NAME]
 *                         [--debug-dir DIR]...
 *
 * The first form names, afterwards, the frames a script printed as an
 * object and a file offset, "[PATH+0xFOFF]" (usym_explicit(1), pstack's
 * -r, stackcount's -X), and with a perf map, the frames printed as bare
 * addresses (code in anonymous memory: a JIT's).  The second is the
 * stap-unwind tools' namer: they pipe their session's output through it,
 * which names their user frames as they print them.  How each names:
 * filter.h; where names come from: names.h, perfmap.h.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

#define MAX_DEBUG_DIRS	16

static const char *prog = "stap-unwind-symbolize";

static void usage(int status)
{
	fprintf(status ? stderr : stdout,
		"usage: stap-unwind-symbolize [--debug-dir DIR]... [--perf-map FILE | --pid PID] [FILE...]\n"
		"       stap-unwind-symbolize --stream [--offsets] [--folded] [--name NAME] [--debug-dir DIR]...\n"
		"  --debug-dir DIR  separate debug files by build-id, DIR/.build-id/NN/REST.debug\n"
		"                   (and /usr/lib/debug; DEBUGINFOD_URLS: debuginfod servers)\n"
		"  --perf-map FILE  name frames printed as bare addresses (anonymous memory) from\n"
		"                   this perf map (START SIZE NAME lines, as /tmp/perf-PID.map)\n"
		"  --pid PID        the same from /tmp/perf-PID.map, if process PID owns it\n"
		"  --stream         the stap-unwind tools' output, as they print it\n"
		"  --offsets        --stream: their user frames as NAME+0xOFF/0xSIZE [OBJECT]\n"
		"  --folded         --stream: folded lines (a name's ';' printed as ':')\n"
		"  --name NAME      the command named in messages\n");
	exit(status);
}

int main(int argc, char **argv)
{
	const char *dirs[MAX_DEBUG_DIRS], *map = NULL;
	struct filter_opts o = { .token_form = FORM_NAME };
	struct names *nm;
	struct perf_maps *pm;
	struct filter *f;
	unsigned ndirs = 0;
	long pid = 0;
	int i, rc;

	for (i = 1; i < argc && !strncmp(argv[i], "--", 2); i++) {	/* bound: argc */
		const char *a = argv[i];
		bool more = i + 1 < argc;

		if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (!strcmp(a, "--debug-dir") && more && ndirs < MAX_DEBUG_DIRS) {
			dirs[ndirs++] = argv[++i];
		} else if (!strcmp(a, "--perf-map") && more && !pid) {
			map = argv[++i];
		} else if (!strcmp(a, "--pid") && more && !map) {
			char *e;

			errno = 0;
			pid = strtol(argv[++i], &e, 10);
			if (errno || *e || pid <= 0 || pid > 0x3fffffff)
				usage(2);
		} else if (!strcmp(a, "--stream")) {
			o.stream = true;
		} else if (!strcmp(a, "--offsets")) {
			o.token_form = FORM_DATA;
		} else if (!strcmp(a, "--folded")) {
			o.folded = true;
		} else if (!strcmp(a, "--name") && more) {
			prog = argv[++i];
		} else if (!strcmp(a, "--help")) {
			usage(0);
		} else {
			usage(2);
		}
	}
	if (o.stream && (i < argc || map || pid))
		usage(2);
	nm = names_new(dirs, ndirs);
	pm = perf_maps_new(prog);
	if (!nm || !pm) {
		fprintf(stderr, "%s: out of memory\n", prog);
		return 1;
	}
	if (map)
		o.map = perf_maps_file(pm, map);
	else if (pid)
		o.map = perf_maps_pid(pm, (int)pid, -1);
	/* A tool's Ctrl-C ends its session, which then prints what it has:
	 * this filter goes on to the end of that. */
	if (o.stream)
		signal(SIGINT, SIG_IGN);
	f = filter_new(nm, pm, &o, prog);
	if (i == argc)
		filter_file(f, stdin);
	for (; i < argc; i++) {	/* bound: argc */
		FILE *in = fopen(argv[i], "r");

		if (!in) {
			fprintf(stderr, "%s: %s: %s\n", prog, argv[i], strerror(errno));
			return 1;
		}
		filter_file(f, in);
		fclose(in);
	}
	rc = filter_end(f);
	perf_maps_free(pm);
	names_free(nm);
	if (ferror(stdout)) {
		fprintf(stderr, "%s: writing the output failed\n", prog);
		return 1;
	}
	return rc;
}
