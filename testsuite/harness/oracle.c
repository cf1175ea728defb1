/* libdwfl on the live process: dwfl_linux_proc_report for the modules,
   dwfl_linux_proc_attach(..., true) because the thread is already stopped by
   our ptrace, dwfl_getthread_frames for the frames.  */
#define _GNU_SOURCE
#include "oracle.h"

#include <elfutils/libdwfl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

struct uw_oracle {
	pid_t pid;
	Dwfl *dwfl;
	char *maps_text; /* maps the modules were reported for */
};

static const Dwfl_Callbacks proc_callbacks = {
	.find_elf = dwfl_linux_proc_find_elf,
	.find_debuginfo = dwfl_standard_find_debuginfo,
};

struct uw_oracle *uw_oracle_new(pid_t pid)
{
	struct uw_oracle *o = calloc(1, sizeof *o);
	o->pid = pid;
	return o;
}

void uw_oracle_free(struct uw_oracle *o)
{
	if (!o)
		return;
	if (o->dwfl)
		dwfl_end(o->dwfl);
	free(o->maps_text);
	free(o);
}

/* Module reporting costs milliseconds; do it again only when the process
   mapped or unmapped something.  */
int uw_oracle_report(struct uw_oracle *o, const char *maps_text)
{
	if (o->dwfl && o->maps_text && strcmp(o->maps_text, maps_text) == 0)
		return 0;
	if (o->dwfl)
		dwfl_end(o->dwfl);
	free(o->maps_text);
	o->maps_text = strdup(maps_text);
	o->dwfl = dwfl_begin(&proc_callbacks);
	if (!o->dwfl)
		return -1;
	dwfl_report_begin(o->dwfl);
	if (dwfl_linux_proc_report(o->dwfl, o->pid) != 0)
		return -1;
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (dwfl_linux_proc_attach(o->dwfl, o->pid, true) != 0)
		return -1;
	return 0;
}

struct collect {
	struct uw_frame *out;
	int max, n;
	unsigned sp_regno;
};

static int collect_frame(Dwfl_Frame *state, void *arg)
{
	struct collect *c = arg;
	Dwarf_Addr pc;
	bool activation;
	if (c->n == c->max)
		return DWARF_CB_ABORT;
	if (!dwfl_frame_pc(state, &pc, &activation))
		return -1;
	struct uw_frame *f = &c->out[c->n++];
	Dwarf_Word sp;
	f->pc = pc;
	f->activation = activation;
	f->has_sp = dwfl_frame_reg(state, c->sp_regno, &sp) == 0;
	f->sp = f->has_sp ? sp : 0;
	return DWARF_CB_OK;
}

int uw_oracle_unwind(struct uw_oracle *o, const struct uw_snapshot *s,
		     struct uw_frame *out, int max, const char **err)
{
	*err = NULL;
	if (uw_oracle_report(o, s->maps_text) != 0) {
		*err = dwfl_errmsg(-1);
		return 0;
	}
	/* DWARF register numbers of the stack pointer: rsp 7, esp 4.  */
	struct collect c = { out, max, 0, s->arch == 64 ? 7 : 4 };
	int rc = dwfl_getthread_frames(o->dwfl, o->pid, collect_frame, &c);
	if (rc == -1)
		*err = dwfl_errmsg(-1);
	if (s->arch == 32)
		for (int i = 0; i < c.n; i++)
			out[i].sp &= 0xffffffffu;
	return c.n;
}

void uw_oracle_describe(struct uw_oracle *o, uint64_t pc, bool activation, char *buf, size_t len)
{
	uint64_t lookup = activation ? pc : pc - 1;
	Dwfl_Module *mod = o->dwfl ? dwfl_addrmodule(o->dwfl, lookup) : NULL;
	if (!mod) {
		snprintf(buf, len, "?");
		return;
	}
	GElf_Off off;
	GElf_Sym sym;
	const char *name = dwfl_module_addrinfo(mod, lookup, &off, &sym, NULL, NULL, NULL);
	if (name) {
		snprintf(buf, len, "%s+%#" PRIx64, name, (uint64_t)(off + (lookup != pc)));
	} else {
		Dwarf_Addr start;
		const char *mname = dwfl_module_info(mod, NULL, &start, NULL, NULL, NULL, NULL, NULL);
		const char *base = mname ? strrchr(mname, '/') : NULL;
		snprintf(buf, len, "%s+%#" PRIx64, base ? base + 1 : mname ? mname : "?", pc - start);
	}
}

struct sym_search {
	const char *module_path;
	const char *name;
	uint64_t addr;
};

static int search_module(Dwfl_Module *mod, void **userdata, const char *mname, Dwarf_Addr start,
			 void *arg)
{
	(void)userdata;
	(void)start;
	struct sym_search *ss = arg;
	if (!mname || strcmp(mname, ss->module_path) != 0)
		return DWARF_CB_OK;
	int n = dwfl_module_getsymtab(mod);
	for (int i = 0; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		const char *name = dwfl_module_getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
		if (name && strcmp(name, ss->name) == 0 && GELF_ST_TYPE(sym.st_info) == STT_FUNC) {
			ss->addr = addr;
			return DWARF_CB_ABORT;
		}
	}
	return DWARF_CB_OK;
}

uint64_t uw_oracle_lookup_symbol(struct uw_oracle *o, const char *exe_path, const char *name)
{
	if (!o->dwfl)
		return 0;
	struct sym_search ss = { exe_path, name, 0 };
	dwfl_getmodules(o->dwfl, search_module, &ss, 0);
	return ss.addr;
}
