/* symbolize/perfmap.h: perf maps, which JITs and interpreters write to
 * name the code they put in anonymous memory: CPython's -X perf, Node's
 * --perf-basic-prof, the JVM's perf-map-agent, .NET's
 * DOTNET_PerfMapEnabled, LuaJIT.  A process's map is /tmp/perf-PID.map,
 * one line per piece of code:
 *
 *   START SIZE NAME        START and SIZE in hexadecimal, without "0x"
 *
 * as perf reads it.  Anyone can write a file into /tmp, so a map is never
 * trusted blindly; one is refused, with one line on stderr, once:
 *   - by pid, a map that is not a regular file (a link is not followed),
 *     or whose owner is neither the process's effective uid nor root (the
 *     rule of stapusr: a user names only its own processes), or of a
 *     process that is gone when its owner must be read from /proc;
 *   - a map with a line not of that form (START + SIZE beyond 2^64, a
 *     control character or nothing in NAME, a line longer than
 *     PERF_MAP_MAX_LINE bytes): the line's number and what is wrong;
 *   - a map of more than PERF_MAP_MAX_ENTRIES entries: how many.
 * A last line without its newline is being written: it is read with the
 * rest, later.  A map is read once, and again (what was appended) only
 * when a lookup misses and the file has grown.  An address is named by
 * the latest of the entries that contain it (a JIT may reuse memory),
 * among the PERF_MAP_LOOKBACK that start nearest below it.
 */
#ifndef STAP_UNWIND_PERFMAP_H
#define STAP_UNWIND_PERFMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "names.h"

#define PERF_MAP_MAX_ENTRIES	1000000
#define PERF_MAP_MAX_LINE	4096
#define PERF_MAP_LOOKBACK	64

struct perf_maps;
struct perf_map;

/* The maps of a run; prog names the command in its messages. */
struct perf_maps *perf_maps_new(const char *prog);
void perf_maps_free(struct perf_maps *pm);

/* The map in the file at path, which the user gave: no owner rule.  NULL
 * if it is refused (said on stderr) or cannot be opened. */
struct perf_map *perf_maps_file(struct perf_maps *pm, const char *path);

/* /tmp/perf-PID.map of process pid, whose effective uid is euid, or -1
 * to read it from /proc/PID/status.  NULL if the process has no map, or
 * it is refused (said on stderr, once). */
struct perf_map *perf_maps_pid(struct perf_maps *pm, int pid, long euid);

/* Name pc (caller: a return address, whose call is looked up) from map.
 * false if no entry contains it. */
bool perf_map_lookup(struct perf_map *m, uint64_t pc, bool caller,
		     struct frame_name *out);

#endif /* STAP_UNWIND_PERFMAP_H */
