/* stap-unwind: the VMA tracking's object records: one per mapped file
 * (device, inode, ctime), shared by every process that maps it, with what
 * is read once from the file itself: its path, build-id, load-bias delta,
 * the extent of its unwind tables' segment, the index of an .eh_frame
 * that no .eh_frame_hdr searches and its tables compiled (vma_map.c's top
 * comment: "Objects", "Index", "Compiled tables").  Process context; the last reference's put frees the record
 * after a grace period.
 */
#ifndef STP_UW_VMA_OBJECT_C
#define STP_UW_VMA_OBJECT_C

#include "stap-unwind/vma_records.h"
#include "stap-unwind/usym_elf.h"

/* If no .eh_frame_hdr of the file f searches its .eh_frame (none with a
 * table, one the lookup cannot use, a malformed one: a hostile object can
 * force a probe to scan 65,000 FDEs), index that .eh_frame once, here, so
 * that probe handlers only ever binary-search (uw_tables.index).  .eh_frame
 * is read from where the header says it starts to the end of its PT_LOAD's
 * file bytes (at most STP_UW_VMA_INDEX_MAX); its terminator ends the
 * parse.  Nothing is indexed when the budget refuses, the file cannot be
 * read, or the CFI is malformed: probes then scan within their work budget,
 * as they would anyway.  Process context, rescan mutex held. */
static void stp_uw_obj_index(struct stp_uw_obj *o, struct file *f,
			     const struct uw_elf_hdr *h,
			     const struct uw_elf_phdrs *p)
{
	const struct uw_elf_seg *seg;
	struct uw_section hdr = { NULL, p->eh_frame.vaddr, p->eh_frame.filesz };
	struct uw_tables t = { 0 };
	struct uw_index_entry *all = NULL;
	struct stp_uw_eh_index *idx;
	uint8_t *buf;
	uint64_t eh_at, len, max;
	size_t bytes;
	int n;

	if (!p->eh_frame.type || !hdr.size || hdr.size > STP_UW_VMA_INDEX_MAX)
		return;
	buf = kvmalloc(hdr.size, GFP_KERNEL);
	if (!buf || stp_uw_file_read(f, p->eh_frame.offset, buf, hdr.size))
		goto out;
	hdr.data = buf;
	if (uw_hdr_searchable(&stp_uw_obj_scratch, h->arch, &hdr, &eh_at) || !eh_at)
		goto out;
	kvfree(buf);
	buf = NULL;
	seg = uw_elf_load_of(p, eh_at, 1);
	if (!seg)
		goto out;
	len = min_t(uint64_t, seg->vaddr + seg->filesz - eh_at, STP_UW_VMA_INDEX_MAX);
	max = min_t(uint64_t, len / 8 + 1, UW_MAX_SCAN_ENTRIES);
	buf = kvmalloc(len, GFP_KERNEL);
	all = kvmalloc_array(max, sizeof(*all), GFP_KERNEL);
	if (!buf || !all
	    || stp_uw_file_read(f, seg->offset + (eh_at - seg->vaddr), buf, len))
		goto out;
	t.eh_frame = (struct uw_section){ buf, eh_at, len };
	n = uw_index_build(&stp_uw_obj_scratch, h->arch, &t, all, max);
	if (n <= 0)
		goto out;
	bytes = sizeof(*idx) + n * sizeof(*all);
	idx = stp_uw_vma_alloc(bytes, true);
	if (!idx)
		goto out;
	memcpy(idx + 1, all, n * sizeof(*all));
	idx->entries = (const struct uw_index_entry *)(idx + 1);
	idx->count = n;
	idx->eh_frame = eh_at;
	idx->eh_frame_size = len;
	o->index = idx;
	o->charged += bytes;
out:
	kvfree(all);
	kvfree(buf);
}

/* How many bytes from its ELF header on a probe reads of an image of the
 * file (the core's ELF scan, stock/unwind.c: stp_uw_mapped_elf): the
 * header and program headers, and the notes where the build-id is, when
 * they are in the first segment (elsewhere they share the tables'
 * segment or are not read from the first one).  At most
 * UW_ELFMEM_MAX_PHDR_END. */
static unsigned long stp_uw_obj_head_size(const struct uw_elf_hdr *h,
					  const struct uw_elf_phdrs *p)
{
	uint64_t end = h->phoff + (uint64_t)h->phnum * h->phentsize;
	unsigned i;

	for (i = 0; i < p->nnotes; i++) {	/* bound: UW_ELFMEM_MAX_NOTE_SEGS */
		uint64_t at = p->note[i].vaddr - p->link0;

		if (at < UW_ELFMEM_MAX_PHDR_END)
			end = max_t(uint64_t, end, at + p->note[i].filesz);
	}
	return min_t(uint64_t, end, UW_ELFMEM_MAX_PHDR_END);
}

/* Build-id, bias delta and the extent of the unwind tables' segment of
 * the ELF file f, from the file itself, through the core's ELF reader
 * (stap-unwind/usym_elf.h's file source); an index of tables no header
 * searches (stp_uw_obj_index). */
static void stp_uw_obj_read_elf(struct stp_uw_obj *o, struct file *f)
{
	struct uw_elf_src src;
	struct uw_elf_hdr h;
	struct uw_elf_phdrs *p = kmalloc(sizeof(*p), GFP_KERNEL);
	const struct uw_elf_seg *ehf;
	uint32_t len;

	uw_elf_src_file(&src, stp_uw_file_read, f);
	if (!p || uw_elf_read_header(&src, &h) || uw_elf_read_phdrs(&src, &h, p))
		goto out;
	o->delta = p->link0;
	o->elf = 1;
	o->head_size = stp_uw_obj_head_size(&h, p);
	if (uw_elf_build_id(&src, p, o->build_id, STP_UW_BUILD_ID_MAX, &len) == 1)
		o->build_id_len = len;
	ehf = p->eh_frame.type ? uw_elf_load_of(p, p->eh_frame.vaddr, 1) : NULL;
	if (ehf) {
		o->ehf_lo = ehf->vaddr;
		o->ehf_hi = ehf->vaddr + ehf->filesz;
	}
	stp_uw_obj_index(o, f, &h, p);
	stp_uw_obj_compile(o, f);
out:
	kfree(p);
}

static int stp_uw_obj_match(const struct stp_uw_obj *o, const struct inode *ino)
{
	struct timespec64 ct = inode_get_ctime(ino);

	return o->dev == ino->i_sb->s_dev && o->ino == ino->i_ino
		&& o->ctime_sec == ct.tv_sec && o->ctime_nsec == ct.tv_nsec;
}

/* The object record of file f, referenced (refs + 1); NULL if the budget
 * is exhausted or allocation fails.  Process context; the rescan mutex
 * is held, so no other writer creates objects concurrently. */
static struct stp_uw_obj *stp_uw_obj_get(struct file *f, char *pathbuf)
{
	struct inode *ino = file_inode(f);
	unsigned h = stp_uw_vma_hash(ino->i_ino ^ ((unsigned long)ino->i_sb->s_dev << 20));
	struct stp_uw_obj *o;
	struct timespec64 ct;
	unsigned long flags;
	char *path;
	size_t len, size;

	spin_lock_irqsave(&stp_uw_vma_lock, flags);
	/* bound: one hash chain */
	hlist_for_each_entry(o, &stp_uw_obj_hash[h], hnode) {
		if (stp_uw_obj_match(o, ino)) {
			o->refs++;
			spin_unlock_irqrestore(&stp_uw_vma_lock, flags);
			return o;
		}
	}
	spin_unlock_irqrestore(&stp_uw_vma_lock, flags);

	path = d_path(&f->f_path, pathbuf, PATH_MAX);
	if (IS_ERR(path))
		path = "(unknown)";
	len = strlen(path);
	size = sizeof(*o) + len + 1;
	o = stp_uw_vma_alloc(size, false);
	if (!o)
		return NULL;
	o->charged = size;
	if (stp_uw_vma_charge(STP_UW_OBJ_STEPS_BYTES) == 0) {
		o->steps = alloc_percpu(struct uw_step_counts);
		if (o->steps)
			o->charged += STP_UW_OBJ_STEPS_BYTES;
		else
			stp_uw_vma_uncharge(STP_UW_OBJ_STEPS_BYTES);
	}
	memcpy(o->path, path, len + 1);
	o->dev = ino->i_sb->s_dev;
	o->ino = ino->i_ino;
	ct = inode_get_ctime(ino);
	o->ctime_sec = ct.tv_sec;
	o->ctime_nsec = ct.tv_nsec;
	stp_uw_obj_read_elf(o, f);
	o->refs = 1;
	spin_lock_irqsave(&stp_uw_vma_lock, flags);
	hlist_add_head(&o->hnode, &stp_uw_obj_hash[h]);
	spin_unlock_irqrestore(&stp_uw_vma_lock, flags);
	atomic_inc(&stp_uw_vma_nobjs);
	return o;
}

static void stp_uw_obj_free_rcu(struct rcu_head *head)
{
	struct stp_uw_obj *o = container_of(head, struct stp_uw_obj, rcu);

	kvfree(o->index);
	kvfree(o->compiled);
	free_percpu(o->steps);
	kfree(o);
}

/* Drop a reference to o; the last one frees it after a grace period
 * (readers may still hold its path or index).  stp_uw_vma_lock held. */
static void stp_uw_obj_put_locked(struct stp_uw_obj *o)
{
	if (--o->refs != 0)
		return;
	hlist_del(&o->hnode);
	atomic_dec(&stp_uw_vma_nobjs);
	if (o->compiled)
		stp_uw_compiled_count(o->compiled, -1);
	stp_uw_vma_uncharge(o->charged);
	call_rcu(&o->rcu, stp_uw_obj_free_rcu);
}

#endif /* STP_UW_VMA_OBJECT_C */
