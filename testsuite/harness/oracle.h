/* The oracle: elfutils libdwfl unwinding a live, ptrace-stopped thread.  */
#ifndef UW_ORACLE_H
#define UW_ORACLE_H

#include "snapshot.h"

struct uw_oracle;

struct uw_oracle *uw_oracle_new(pid_t pid);
void uw_oracle_free(struct uw_oracle *o);

/* (Re-)report the modules of the process if MAPS_TEXT differs from the
   maps last reported.  0 or -1.  */
int uw_oracle_report(struct uw_oracle *o, const char *maps_text);

/* Unwind thread PID (stopped by us) whose state S was just captured.
   Re-reports the modules when the maps changed.  Returns the number of
   frames (>= 0); on an unwinding error after those frames, *ERR is set to
   libdwfl's message, otherwise to NULL.  */
int uw_oracle_unwind(struct uw_oracle *o, const struct uw_snapshot *s,
		     struct uw_frame *out, int max, const char **err);

/* "symbol+0xoff" or "module+0xoff" for PC (pc - 1 for return addresses).  */
void uw_oracle_describe(struct uw_oracle *o, uint64_t pc, bool activation, char *buf, size_t len);

/* Address of symbol NAME in the module that contains the main executable;
   0 if not found.  */
uint64_t uw_oracle_lookup_symbol(struct uw_oracle *o, const char *exe_path, const char *name);

#endif
