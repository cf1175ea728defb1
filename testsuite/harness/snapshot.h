/* A snapshot of a stopped user thread: enough state to unwind it again
   without the live process (registers, stack memory, the vdso image and the
   memory map), plus the frames the oracle (elfutils libdwfl) found for it.

   File format ("uwsnap", all integers little-endian, as written on x86_64):
     file    := "UWSNAP01" snapshot*
     snapshot:= u32 'SNAP' (0x50414e53)  u32 arch (64 or 32)
                u32 nregions  u32 maps_len  u32 nframes  u32 label_len
                u64 regs[27]          x86_64 struct user_regs_struct, also
                                      for 32-bit threads (as PTRACE_GETREGS
                                      returns it to a 64-bit tracer)
                char label[label_len] what was stopped where (no NUL)
                char maps[maps_len]   /proc/PID/maps text at the stop
                region[nregions]:     u64 base  u64 len  u8 bytes[len]
                                      (stack from SP to its mapping's end,
                                      the main stack if SP was elsewhere,
                                      and the vdso)
                frame[nframes]:       u64 pc  u64 sp  u32 flags  u32 0
                                      flags bit0: activation (pc is exact,
                                      not a return address); bit1: sp valid
   Everything else (code, unwind tables) is read from the files named in the
   maps, so a snapshot file replays only on the machine that wrote it with
   the same binaries in place.  */
#ifndef UW_SNAPSHOT_H
#define UW_SNAPSHOT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <sys/user.h>

#define UW_MAX_FRAMES 256
#define UW_MAX_REGIONS 4
#define UW_STACK_CAP (256 * 1024)

struct uw_frame {
	uint64_t pc;      /* activation: exact pc; otherwise the return address */
	uint64_t sp;      /* sp on entry to this frame's pc (caller's CFA) */
	bool activation;
	bool has_sp;
	bool no_cfi_to_caller; /* ours only, not saved: no FDE covered this
				  frame's pc, so the step to its caller (if
				  any) was the frame-pointer fallback */
	uint64_t cfa;     /* ours only, not saved: the CFA the step to this
			     frame found (its callee's); 0 for the first */
};

struct uw_region {
	uint64_t base;
	uint64_t len;
	uint8_t *bytes;
};

struct uw_mapping {
	uint64_t start, end, offset;
	char perms[5];
	const char *path; /* points into the snapshot's maps text copy; "" if anon */
};

struct uw_snapshot {
	int arch; /* 64 or 32 */
	struct user_regs_struct regs;
	char *label;
	char *maps_text;
	size_t maps_len;
	int nregions;
	struct uw_region regions[UW_MAX_REGIONS];
	int nframes; /* the oracle's frames; -1 when the oracle was not run */
	struct uw_frame frames[UW_MAX_FRAMES];

	/* Derived from maps_text by uw_snapshot_parse_maps.  */
	int nmappings;
	struct uw_mapping *mappings;
	char *maps_storage;
};

/* Capture regs, stack, vdso and maps of stopped thread PID of arch ARCH.
   Returns 0 or -errno.  */
int uw_snapshot_capture(struct uw_snapshot *s, pid_t pid, int arch);
void uw_snapshot_free(struct uw_snapshot *s);

/* Parse maps_text into mappings (idempotent).  */
int uw_snapshot_parse_maps(struct uw_snapshot *s);
const struct uw_mapping *uw_snapshot_find_mapping(const struct uw_snapshot *s, uint64_t addr);

/* Copy LEN bytes at ADDR from the snapshot's regions.  true if all found. */
bool uw_snapshot_read(const struct uw_snapshot *s, uint64_t addr, void *out, size_t len);

uint64_t uw_snapshot_pc(const struct uw_snapshot *s);
uint64_t uw_snapshot_sp(const struct uw_snapshot *s);

int uw_snapshot_write_header(FILE *f);
int uw_snapshot_write(FILE *f, const struct uw_snapshot *s);
/* Returns 1 on a snapshot read, 0 at EOF, -1 on a malformed file.  */
int uw_snapshot_read_header(FILE *f);
int uw_snapshot_read_next(FILE *f, struct uw_snapshot *s);

/* Frames: "same" means same length, same pcs and same activation flags
   (see snapshot.c for signal trampolines), and the same sp wherever both
   sides give one.  ORACLE is libdwfl's list.  */
bool uw_frames_equal(const struct uw_frame *oracle, int na, const struct uw_frame *b, int nb);
/* Index of the first frame that differs; min(na, nb) if none does.  */
int uw_frames_first_difference(const struct uw_frame *oracle, int na, const struct uw_frame *b,
			       int nb);
void uw_frames_print(FILE *f, const char *who, const struct uw_frame *fr, int n,
		     const struct uw_snapshot *s);

#endif
