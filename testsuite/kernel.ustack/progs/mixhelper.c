/* Helper of kernel.ustack/profile.exp, run in the guest; not sampled.
 *
 *   mixhelper lines            endless pseudo-random text lines on stdout
 *                              (input for sort and gzip)
 *   mixhelper snap PID OUTDIR  copy /proc/PID/maps to OUTDIR/PID.maps and
 *                              the process's vdso pages to OUTDIR/PID.vdso,
 *                              while the process is still alive, for the
 *                              oracle (testsuite/oracle/profile-oracle.c)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int lines(void)
{
	static const char *words[] = { "alpha", "bravo", "charlie", "delta", "echo",
				       "foxtrot", "golf", "hotel", "india", "juliet",
				       "kilo", "lima", "mike", "november", "oscar" };
	unsigned long s = 88172645463325252ul;
	char buf[65536];
	for (;;) {
		size_t n = 0;
		while (n < sizeof buf - 200) {
			s ^= s << 13;
			s ^= s >> 7;
			s ^= s << 17;
			n += (size_t)snprintf(buf + n, 200, "%s %lu %s %s\n", words[s % 15],
					      (s >> 8) % 100000, words[(s >> 20) % 15],
					      words[(s >> 30) % 15]);
		}
		if (fwrite(buf, 1, n, stdout) != n)
			return 0;
	}
}

static int snap(const char *pid, const char *dir)
{
	char path[512], out[512];
	snprintf(path, sizeof path, "/proc/%s/maps", pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	snprintf(out, sizeof out, "%s/%s.maps", dir, pid);
	FILE *o = fopen(out, "w");
	if (!o)
		return 1;
	char line[4096];
	uint64_t vlo = 0, vhi = 0;
	while (fgets(line, sizeof line, f)) {
		fputs(line, o);
		if (strstr(line, "[vdso]"))
			sscanf(line, "%" SCNx64 "-%" SCNx64, &vlo, &vhi);
	}
	fclose(f);
	fclose(o);
	if (!vhi)
		return 0;
	snprintf(path, sizeof path, "/proc/%s/mem", pid);
	int fd = open(path, O_RDONLY);
	if (fd < 0)
		return 1;
	size_t len = (size_t)(vhi - vlo);
	char *buf = malloc(len);
	if (!buf || pread(fd, buf, len, (off_t)vlo) != (ssize_t)len)
		return 1;
	close(fd);
	snprintf(out, sizeof out, "%s/%s.vdso", dir, pid);
	FILE *v = fopen(out, "w");
	if (!v || fwrite(buf, 1, len, v) != len)
		return 1;
	fclose(v);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "lines") == 0)
		return lines();
	if (argc == 4 && strcmp(argv[1], "snap") == 0)
		return snap(argv[2], argv[3]);
	fprintf(stderr, "usage: mixhelper lines | mixhelper snap PID OUTDIR\n");
	return 2;
}
