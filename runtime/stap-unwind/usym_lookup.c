/* stap-unwind: what is known about one user address (probe context): its
 * object (VMA tracking, SystemTap's map, the vdso), file offset,
 * build-id, and the symbol naming it, from the -d tables (usym_dmod.c),
 * the name cache (usym_cache.c) or the object's own headers and .dynsym
 * in the process's memory (usym_elf.h).
 */
#ifndef STP_UW_USYM_LOOKUP_C
#define STP_UW_USYM_LOOKUP_C

#include "stap-unwind/usym_lookup.h"

static struct stp_uw_usym_scratch __percpu *stp_uw_usym_scratch;

/* The vdso of task, which SystemTap knows only where a vdso file of
 * /lib/modules matches it: [*start, *end) from the address space's own
 * record (a task whose address space is the current one).  0 if addr
 * is in it. */
static int stp_uw_vdso_range(struct task_struct *task, unsigned long addr,
			     unsigned long *start, unsigned long *end)
{
	const struct vdso_image *img;
	unsigned long base;

	if (!task->mm || task->mm != current->mm)
		return -ENOENT;
	base = (unsigned long)READ_ONCE(task->mm->context.vdso);
	img = READ_ONCE(task->mm->context.vdso_image);
	if (!base || !img || addr < base || addr - base >= img->size)
		return -ENOENT;
	*start = base;
	*end = base + img->size;
	return 0;
}

/* _stp_umod_lookup() for every object of the process: SystemTap's answer
 * (objects named with -d, and what its task finder tracks), else the VMA
 * tracking of every process (stap-unwind/vma_map.c: the object's path),
 * else the vdso, named "vdso" as SystemTap names it.  The -d module is
 * returned as SystemTap returns it; *name, *offset (the file offset mapped
 * at *vm_start) and the range are filled for the others too.  Every later
 * caller, umodname() included, goes through here (stap-unwind/overrides.h,
 * USYM). */
static struct _stp_module *stp_uw_umod_lookup(unsigned long addr,
					      struct task_struct *task,
					      const char **name,
					      unsigned long *offset,
					      unsigned long *vm_start,
					      unsigned long *vm_end)
{
	const char *n = NULL;
	unsigned long off = 0, start = 0, end = 0;
	struct _stp_module *m;
	struct stp_uw_mapping map;

	m = _stp_umod_lookup(addr, task, &n, &off, &start, &end);
	if (!n) {
		if (_stp_is_compat_task2(task))
			addr &= 0xffffffffUL;
		if (stp_uw_vma_find(task, addr, &map) == 0) {
			n = map.path;
			off = map.pgoff;
			start = map.start;
			end = map.end;
			/* A -d module SystemTap has not seen mapped in this
			 * process: its task finder reports a process's
			 * mappings when a thread of it next runs, and a
			 * snapshot reads threads that never do.  Its offset
			 * is then SystemTap's: the distance from the
			 * module's first mapping. */
			m = stp_uw_dmod_by_path(map.path, map.build_id,
						min_t(unsigned, map.build_id_len,
						      sizeof(map.build_id)));
			if (m)
				off = map.start - map.base;
		} else if (stp_uw_vdso_range(task, addr, &start, &end) == 0) {
			n = "vdso";
			off = 0;
		}
	}
	if (name)
		*name = n;
	if (offset)
		*offset = off;
	if (vm_start)
		*vm_start = start;
	if (vm_end)
		*vm_end = end;
	return m;
}

/* The rest of stp_uw_usym_lookup from the object's own headers in the
 * current process's memory: the file offset, the build-id (want has
 * STP_UW_USYM_BUILDID) and the name from its .dynsym (STP_UW_USYM_NAME),
 * with the CPU's scratch; STP_UW_USYM_COMPAT in want for a 32-bit
 * process.  Six arguments: a seventh would be passed on the stack, in
 * the caller's frame, which is on the naming's deepest chain
 * (runtime/README.md, "The kernel stack budget"). */
static void stp_uw_usym_from_elf(struct stp_uw_usym *u, unsigned long base,
				 unsigned long addr, unsigned long lookup,
				 int want, u64 bid)
{
	int compat = (want & STP_UW_USYM_COMPAT) != 0;
	struct stp_uw_usym_scratch *s = this_cpu_ptr(stp_uw_usym_scratch);
	struct stp_uw_uelf *o = &s->o;
	struct stp_uw_udynsym *ds = &s->ds;

	if (stp_uw_uelf_scan(o, base, compat) != 0)
		return;
	if (!u->have_foff && stp_uw_uelf_file_offset(o, addr, &u->foff) == 0)
		u->have_foff = 1;
	if ((want & STP_UW_USYM_BUILDID) && !u->build_id_len)
		u->build_id_len = stp_uw_uelf_build_id(o, u->build_id,
						       STP_UW_BUILD_ID_MAX);
	/* The object's own .dynsym, from memory. */
	if (!(want & STP_UW_USYM_NAME))
		return;
	if (stp_uw_udynsym_find(o, compat, ds, &s->dyn, &s->syms) != 0)
		return;		/* not read: nothing to remember */
	if (stp_uw_udynsym_lookup(o, compat, ds, lookup,
				  lookup != addr ? addr : 0, u->namebuf,
				  sizeof(u->namebuf), &u->sym_start,
				  &u->sym_size, &u->contains, &s->syms) == 0)
		u->name = u->namebuf;
	stp_uw_usym_cache_put(u, bid, base,
			      stp_uw_usym_ckey(base, addr, lookup));
}

/* What is known about user address addr of task; lookup is the address
 * the symbol must contain (addr, or addr - 1 for a return address).
 * Without a symbol, the file offset is always looked for.  The caller
 * holds the CPU's context and has checked stp_uw_usym_scratch. */
static void stp_uw_usym_lookup(struct task_struct *task, unsigned long addr,
			       unsigned long lookup, int want,
			       struct stp_uw_usym *u)
{
	struct stp_uw_mapping *const map = &this_cpu_ptr(stp_uw_usym_scratch)->map;
	struct _stp_module *m = NULL;
	const char *name = NULL;
	unsigned long offset = 0, vm_start = 0, vm_end = 0, base = 0;
	int compat = _stp_is_compat_task2(task), have_base = 0;
	/* The task's memory is the current address space: current, or
	 * a task whose mm the snapshot's worker took up. */
	int readable = task->mm && task->mm == current->mm, table_complete = 0;
	int name_done = 0;		/* the name came from the cache */
	u64 bid = 0;

	memset(u, 0, offsetof(struct stp_uw_usym, namebuf));
	u->namebuf[0] = '\0';
	if (compat) {
		addr &= 0xffffffffUL;
		lookup &= 0xffffffffUL;
	}

	if (stp_uw_vma_find(task, addr, map) == 0) {
		u->path = map->path;
		u->foff = addr - map->start + map->pgoff;
		u->have_foff = 1;
		base = map->base;
		have_base = 1;
		if (map->build_id_len) {
			u->build_id_len = min_t(unsigned, map->build_id_len,
						sizeof(map->build_id));
			memcpy(u->build_id, map->build_id, u->build_id_len);
		}
	}
	m = stp_uw_umod_lookup(addr, task, &name, &offset, &vm_start, &vm_end);
	if (m && !stp_uw_user_module_p(m))
		m = NULL;
	if (!u->path && name) {
		u->path = m ? m->path : name;
		if (vm_start >= offset) {
			base = vm_start - offset;
			have_base = 1;
		}
		/* SystemTap's map keeps the mmap file offset for objects it
		 * has no -d data for (for -d modules, offset is the distance
		 * from the module's first mapping instead). */
		if (!m && addr >= vm_start) {
			u->foff = addr - vm_start + offset;
			u->have_foff = 1;
		}
	}
	if (!u->path)
		return;
	u->mod = m;
	if (m && m->build_id_len > 0 && !u->build_id_len) {
		u->build_id_len = min_t(unsigned, m->build_id_len,
					STP_UW_BUILD_ID_MAX);
		memcpy(u->build_id, m->build_id_bits, u->build_id_len);
	}

	/* -d table with sizes from the file (it holds every symbol of the
	 * file's .symtab or .dynsym: no need to read .dynsym again). */
	if ((want & STP_UW_USYM_NAME) && m && vm_start >= offset) {
		int absolute = strcmp(m->sections[0].name, ".absolute") == 0;
		unsigned long rel_base = absolute ? 0 : vm_start - offset;

		table_complete = stp_uw_symsz_of(m) != NULL;
		if (lookup >= rel_base)
			(void)stp_uw_usym_table(u, m, lookup - rel_base, rel_base,
						lookup != addr);
	}

	if (!readable || !have_base)
		return;
	if ((want & STP_UW_USYM_NAME) && !u->name && !table_complete && u->build_id_len) {
		bid = stp_uw_bid_hash(u->build_id, u->build_id_len);
		if (stp_uw_usym_cache_get(u, bid, base,
					  stp_uw_usym_ckey(base, addr, lookup)))
			name_done = 1;
	}
	if (((want & STP_UW_USYM_NAME) && !u->name && !table_complete && !name_done)
	    || (!u->have_foff && (!u->name || !u->contains || (want & STP_UW_USYM_FOFF)))
	    || ((want & STP_UW_USYM_BUILDID) && !u->build_id_len))
		stp_uw_usym_from_elf(u, base, addr, lookup,
				     ((want & STP_UW_USYM_NAME) && !u->name
				      && !table_complete && !name_done
				      ? STP_UW_USYM_NAME : 0)
				     | (want & STP_UW_USYM_BUILDID)
				     | (compat ? STP_UW_USYM_COMPAT : 0), bid);
}

#endif /* STP_UW_USYM_LOOKUP_C */
