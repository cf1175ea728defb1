/* symbolize/filter.c: the filter (filter.h). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "filter.h"

#define US "\037"
#define MAX_BUILD_ID	64
#define NAME_MAX_LEN	8192		/* one printed name */

/* A growing string. */
struct buf {
	char *s;
	size_t n, cap;
};

static void die_oom(void)
{
	fputs("stap-unwind-symbolize: out of memory\n", stderr);
	exit(1);
}

static void buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->n + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;

		while (cap < b->n + n + 1)	/* bound: doubling up to the size */
			cap *= 2;
		b->s = realloc(b->s, cap);
		if (!b->s)
			die_oom();
		b->cap = cap;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}

static void buf_str(struct buf *b, const char *s)
{
	buf_add(b, s, strlen(s));
}

/* b's string, which the caller frees; b is empty again. */
static char *buf_take(struct buf *b)
{
	char *s = b->s ? b->s : strdup("");

	if (!s)
		die_oom();
	b->s = NULL;
	b->n = b->cap = 0;
	return s;
}

/* One item of a section: a text and its count. */
struct item {
	uint64_t count;
	char *text;
	size_t order;		/* first seen: ties print in that order */
};

struct section {
	struct item *items;
	size_t n, cap;
};

/* Output that waits: a text (which may refer to numbered texts) or a
 * section. */
struct chunk {
	char *text;
	struct section *sec;
	struct chunk *next;
};

/* A numbered text. */
struct text {
	uint64_t id;
	char *s;		/* NULL: an empty slot */
	bool open;		/* its lines still come ("US d ID US") */
};

struct filter {
	struct names *nm;
	struct perf_maps *pm;
	struct filter_opts o;
	const char *prog;
	bool in_stack;		/* the last line was a frame line */
	int pid;		/* the record's process; 0: none */
	struct text *texts;	/* open addressing, a power of two */
	size_t ntexts, tcap;
	bool in_def;
	uint64_t def_id;
	struct buf def;
	struct section *sec;	/* the section being read */
	struct chunk *head, **tail;
	unsigned undefined;	/* references never resolved */
};

struct filter *filter_new(struct names *nm, struct perf_maps *pm,
			  const struct filter_opts *opts, const char *prog)
{
	struct filter *f = calloc(1, sizeof(*f));

	if (!f)
		die_oom();
	f->nm = nm;
	f->pm = pm;
	f->o = *opts;
	f->prog = prog;
	f->tail = &f->head;
	return f;
}

/* ------------------------------------------------------------------ */
/* Numbered texts                                                      */

static struct text *text_slot(struct filter *f, uint64_t id)
{
	size_t mask = f->tcap - 1;
	size_t i = (size_t)((id * 0x9e3779b97f4a7c15ULL) >> 20) & mask;

	while (f->texts[i].s && f->texts[i].id != id)	/* bound: tcap, under half full */
		i = (i + 1) & mask;
	return &f->texts[i];
}

static void text_put(struct filter *f, uint64_t id, char *s)
{
	struct text *t;

	if (2 * (f->ntexts + 1) > f->tcap) {
		struct text *old = f->texts;
		size_t n = f->tcap;

		f->tcap = f->tcap ? f->tcap * 2 : 1024;
		f->texts = calloc(f->tcap, sizeof(*f->texts));
		if (!f->texts)
			die_oom();
		for (size_t i = 0; i < n; i++)	/* bound: the old table */
			if (old[i].s)
				*text_slot(f, old[i].id) = old[i];
		free(old);
	}
	t = text_slot(f, id);
	if (t->s)
		free(t->s);	/* defined again: the newer one */
	else
		f->ntexts++;
	t->id = id;
	t->s = s;
	t->open = false;
}

/* Append named text to text id, which is open until text_close(). */
static void text_append(struct filter *f, uint64_t id, const char *named)
{
	struct text *t = f->tcap ? text_slot(f, id) : NULL;
	size_t a, n = strlen(named);

	if (!t || !t->s || !t->open) {
		char *s = strdup("");

		if (!s)
			die_oom();
		text_put(f, id, s);	/* a new text, or defined again */
		t = text_slot(f, id);
		t->open = true;
	}
	a = strlen(t->s);
	t->s = realloc(t->s, a + n + 1);
	if (!t->s)
		die_oom();
	memcpy(t->s + a, named, n + 1);
}

static void text_close(struct filter *f, uint64_t id)
{
	struct text *t = f->tcap ? text_slot(f, id) : NULL;

	char *s;

	if (t && t->s) {
		t->open = false;
		return;
	}
	s = strdup("");		/* an empty text */
	if (!s)
		die_oom();
	text_put(f, id, s);
}

/* Text id, when it is whole. */
static const char *text_get(struct filter *f, uint64_t id)
{
	struct text *t = f->tcap ? text_slot(f, id) : NULL;

	return t && t->s && !t->open ? t->s : NULL;
}

/* ------------------------------------------------------------------ */
/* Naming                                                              */

/* Append name to b, with ';' as ':' in folded output. */
static void add_name(struct filter *f, struct buf *b, const char *name)
{
	if (!f->o.folded) {
		buf_str(b, name);
		return;
	}
	for (const char *p = name; *p; p++)	/* bound: the name */
		buf_add(b, *p == ';' ? ":" : p, 1);
}

/* "[PATH+0xFOFF]" at s, up to end (the ']' included): into ff. */
static bool parse_explicit(const char *s, const char *end, char *path,
			   size_t pathsz, struct file_frame *ff)
{
	const char *plus = NULL;
	char *e;

	if (end - s < 6 || s[0] != '[' || s[1] != '/' || end[-1] != ']')
		return false;
	for (const char *q = end - 1; q > s; q--)	/* bound: the token */
		if (q[0] == '+' && q[1] == '0' && q[2] == 'x') {
			plus = q;
			break;
		}
	if (!plus || (size_t)(plus - s - 1) >= pathsz)
		return false;
	errno = 0;
	ff->foff = strtoull(plus + 3, &e, 16);
	if (e != end - 1 || errno)
		return false;
	memcpy(path, s + 1, (size_t)(plus - s - 1));
	path[plus - s - 1] = '\0';
	ff->path = path;
	return true;
}

/* "NAME+0xOFF/0xSIZE [PATH]" at s (length n): the name alone, into out. */
static bool parse_named(const char *s, size_t n, char *out, size_t outsz)
{
	const char *open = NULL, *plus = NULL;

	if (n < 2 || s[n - 1] != ']')
		return false;
	for (size_t i = n - 1; i > 0; i--)	/* bound: the token */
		if (s[i] == '[' && s[i - 1] == ' ') {
			open = s + i - 1;
			break;
		}
	if (!open)
		return false;
	for (const char *q = open - 1; q > s; q--)	/* bound: the token */
		if (q[0] == '+' && q[1] == '0' && q[2] == 'x') {
			plus = q;
			break;
		}
	if (!plus || (size_t)(plus - s) >= outsz)
		return false;
	memcpy(out, s, (size_t)(plus - s));
	out[plus - s] = '\0';
	return true;
}

/* One user frame token's fields "PID EUID N 0xPC TEXT" (s, length n),
 * named into b. */
static void name_token(struct filter *f, struct buf *b, const char *s, size_t n)
{
	static char text[NAME_MAX_LEN], path[4096], out[NAME_MAX_LEN];
	int pid, frame, used = 0;
	long euid;
	uint64_t pc;
	struct file_frame ff = { .build_id = "" };
	struct frame_name fn;
	size_t tn;

	if (n >= sizeof(text) || sscanf(s, "%d %ld %d %" SCNx64 " %n", &pid, &euid,
					&frame, &pc, &used) != 4 || used == 0) {
		buf_add(b, s, n);	/* not a token: as it came */
		return;
	}
	tn = n - (size_t)used;
	memcpy(text, s + used, tn);
	text[tn] = '\0';
	fn.kind = FRAME_UNNAMED;
	if (parse_explicit(text, text + tn, path, sizeof(path), &ff)) {
		ff.pc = pc;
		ff.has_pc = true;
		ff.caller = frame > 0;
		names_file_frame(f->nm, &ff, true, &fn);
	} else if (text[0] == '0' && text[1] == 'x') {
		struct perf_map *m = perf_maps_pid(f->pm, pid, euid);

		if (m)
			(void)perf_map_lookup(m, pc, frame > 0, &fn);
	} else if (f->o.token_form == FORM_NAME && text[0] != '['
		   && parse_named(text, tn, out, sizeof(out))) {
		add_name(f, b, out);	/* named by the session: its name */
		return;
	}
	if (names_format(&fn, f->o.token_form, out, sizeof(out)))
		add_name(f, b, out);
	else
		add_name(f, b, text);	/* nothing names it better */
}

/* The tokens of s (length n), named, into b. */
static void name_tokens(struct filter *f, struct buf *b, const char *s, size_t n)
{
	const char *end = s + n;

	while (s < end) {	/* bound: the text */
		const char *t = memmem(s, (size_t)(end - s), US "u ", 3), *close;

		if (!t || !(close = memchr(t + 3, '\037', (size_t)(end - t - 3)))) {
			buf_add(b, s, (size_t)(end - s));
			return;
		}
		buf_add(b, s, (size_t)(t - s));
		name_token(f, b, t + 3, (size_t)(close - t - 3));
		s = close + 1;
	}
}

/* The raw fields of a frame, " {buildid=HEX bias=0xHEX}" at p (either
 * may be left out): into ff; the end of the braces, or p if there are
 * none or they are not that. */
static char *raw_fields(char *p, struct file_frame *ff, char *bid)
{
	char *q = p + 2, *e;

	if (strncmp(p, " {", 2))
		return p;
	/* bound: the two fields */
	for (int k = 0; k < 2 && *q != '}'; k++) {
		if (!strncmp(q, "buildid=", 8)) {
			size_t n = strspn(q + 8, "0123456789abcdef");

			if (n == 0 || n > 2 * MAX_BUILD_ID)
				return p;
			memcpy(bid, q + 8, n);
			bid[n] = '\0';
			q += 8 + n;
		} else if (!strncmp(q, "bias=0x", 7)) {
			errno = 0;
			ff->bias = strtoull(q + 7, &e, 16);
			if (errno || e == q + 7)
				return p;
			ff->has_bias = true;
			q = e;
		} else {
			return p;
		}
		if (*q == ' ')
			q++;
	}
	return *q == '}' ? q + 1 : p;
}

/* A frame "[PATH+0xFOFF]" in line, and its raw fields: its start, with
 * *end past it and ff filled; NULL if none. */
static char *find_frame(char *line, char **end, struct file_frame *ff,
			char *path, size_t pathsz, char *bid)
{
	char *p = line;

	while ((p = strchr(p, '[')) != NULL) {	/* bound: the line's length */
		char *close = strchr(p, ']');

		if (!close)
			return NULL;
		bid[0] = '\0';
		ff->has_bias = false;
		if (parse_explicit(p, close + 1, path, pathsz, ff)) {
			ff->build_id = bid;
			*end = raw_fields(close + 1, ff, bid);
			return p;
		}
		p = close + 1;
	}
	return NULL;
}

/* A frame line of a backtrace, " 0xPC : ..." or " 0xPC" alone: its pc;
 * *bare for the latter. */
static bool frame_line(const char *line, uint64_t *pc, bool *bare)
{
	char *e;

	if (strncmp(line, " 0x", 3))
		return false;
	errno = 0;
	*pc = strtoull(line + 3, &e, 16);
	if (e == line + 3 || errno)
		return false;
	*bare = *e == '\n' || *e == '\0';
	return *bare || !strncmp(e, " : ", 3);
}

/* The process of a record's header line, "<thread TID of COMM[PID] ...>"
 * or "<N thread(s) of COMM[PID]: ...>", or 0. */
static int record_pid(const char *line)
{
	const char *of, *p;
	int pid = 0;

	if (strncmp(line, "<thread ", 8) && !(line[0] == '<' && line[1] >= '0'
					       && line[1] <= '9'))
		return 0;
	if (!(of = strstr(line, " of ")))
		return 0;
	/* COMM may hold '[': the last "[PID]" before the end of the header. */
	for (p = of + 4; (p = strchr(p, '[')) != NULL; p++) {	/* bound: the line */
		int n, used = 0;

		if (sscanf(p, "[%d]%n", &n, &used) == 1 && used > 0
		    && (p[used] == ' ' || p[used] == ':' || p[used] == '>'))
			pid = n;
	}
	return pid;
}

/* Name the frames of one line (with its newline) into b. */
static void name_line(struct filter *f, struct buf *b, char *line)
{
	static char path[4096], bid[2 * MAX_BUILD_ID + 1], named[NAME_MAX_LEN];
	struct file_frame ff = { 0 };
	struct frame_name fn;
	bool after_frame = f->in_stack, bare = false;
	char *start, *end;
	uint64_t pc = 0;
	int pid = record_pid(line);

	if (pid)
		f->pid = pid;
	/* The tools' frames carry all a frame is named by. */
	if (f->o.stream && strchr(line, '\037')) {
		f->in_stack = false;
		name_tokens(f, b, line, strlen(line));
		return;
	}
	f->in_stack = frame_line(line, &pc, &bare);
	if (f->in_stack && bare) {
		struct perf_map *m = f->o.stream
			? (f->pid ? perf_maps_pid(f->pm, f->pid, -1) : NULL) : f->o.map;

		if (m && perf_map_lookup(m, pc, after_frame, &fn)
		    && names_format(&fn, FORM_DATA, named, sizeof(named))) {
			buf_add(b, line, strcspn(line, "\n"));
			buf_str(b, " : ");
			buf_str(b, named);
			buf_str(b, "\n");
			return;
		}
	}
	/* In the stream, only frame lines (pstack's records): a tool's -X
	 * prints "[PATH+0xFOFF]" to be named later. */
	start = f->o.stream && !f->in_stack ? NULL
		: find_frame(line, &end, &ff, path, sizeof(path), bid);
	if (!start) {
		buf_str(b, line);
		return;
	}
	ff.has_pc = f->in_stack;
	ff.pc = pc;
	ff.caller = f->in_stack && after_frame;
	names_file_frame(f->nm, &ff, f->o.stream, &fn);
	if (names_format(&fn, FORM_FULL, named, sizeof(named))) {
		buf_add(b, line, (size_t)(start - line));
		buf_str(b, named);
		buf_str(b, end);
	} else if (f->o.stream) {
		buf_str(b, line);	/* nothing names it: as it came */
	} else {
		buf_add(b, line, strcspn(line, "\n"));
		buf_str(b, " (not symbolized: ");
		buf_str(b, fn.why);
		buf_str(b, ")\n");
	}
}

/* ------------------------------------------------------------------ */
/* Output, in order, when its texts are defined                         */

/* s with every "US ref ID US" replaced by text ID, into b; false if one
 * is not defined (then, with force, "[text ID not defined]"). */
static bool expand(struct filter *f, struct buf *b, const char *s, bool force)
{
	bool ok = true;

	for (;;) {	/* bound: the text's references */
		const char *r = strstr(s, US "ref "), *close;
		const char *t;
		uint64_t id;
		char *e;

		if (!r || !(close = strchr(r + 5, '\037'))) {
			buf_str(b, s);
			return ok;
		}
		buf_add(b, s, (size_t)(r - s));
		id = strtoull(r + 5, &e, 10);
		if (e != close) {
			buf_add(b, r, (size_t)(close + 1 - r));	/* not a reference */
		} else if ((t = text_get(f, id)) != NULL) {
			buf_str(b, t);
		} else if (force) {
			char msg[64];

			snprintf(msg, sizeof(msg), "[text %" PRIu64 " not defined]", id);
			buf_str(b, msg);
			f->undefined++;
			ok = false;
		} else {
			return false;
		}
		s = close + 1;
	}
}

static size_t str_hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL;	/* FNV-1a */

	for (; *s; s++)		/* bound: the string */
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return (size_t)(h ^ h >> 29);
}

static int item_cmp(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Print section s (its texts defined, or force): the items of the same
 * text summed, in increasing order of their sums; false if it must wait. */
static bool print_section(struct filter *f, struct section *s, bool force)
{
	struct item *merged = calloc(s->n + 1, sizeof(*merged));
	size_t nm = 0, nslot = 64, mask;
	size_t *slot;		/* merged index + 1 by text; 0: empty */

	while (nslot < 2 * (s->n + 1))	/* bound: doubling up to 2n */
		nslot *= 2;
	mask = nslot - 1;
	slot = calloc(nslot, sizeof(*slot));
	if (!merged || !slot)
		die_oom();
	for (size_t i = 0; i < s->n; i++) {	/* bound: the items */
		struct buf b = { 0 };
		size_t k;

		size_t h;

		if (!expand(f, &b, s->items[i].text, force) && !force) {
			free(b.s);
			for (k = 0; k < nm; k++)	/* bound: the merged items */
				free(merged[k].text);
			free(merged);
			free(slot);
			return false;
		}
		if (!b.s)
			buf_str(&b, "");
		for (h = str_hash(b.s) & mask; slot[h]; h = (h + 1) & mask)	/* bound: nslot, under half full */
			if (!strcmp(merged[slot[h] - 1].text, b.s))
				break;
		if (slot[h]) {
			merged[slot[h] - 1].count += s->items[i].count;
			free(b.s);
		} else {
			merged[nm].text = buf_take(&b);
			merged[nm].count = s->items[i].count;
			merged[nm].order = nm;
			slot[h] = ++nm;
		}
	}
	free(slot);
	qsort(merged, nm, sizeof(*merged), item_cmp);
	for (size_t k = 0; k < nm; k++) {	/* bound: the merged items */
		const char *p = merged[k].text, *c;

		while ((c = strstr(p, US "count" US)) != NULL) {	/* bound: the text */
			fwrite(p, 1, (size_t)(c - p), stdout);
			printf("%" PRIu64, merged[k].count);
			p = c + 7;
		}
		fputs(p, stdout);
		free(merged[k].text);
	}
	free(merged);
	return true;
}

/* Print what waits, in order, as far as its texts are defined (force:
 * all of it). */
static void flush(struct filter *f, bool force)
{
	bool printed = false;

	while (f->head) {	/* bound: the chunks waiting */
		struct chunk *c = f->head;

		if (c->sec) {
			if (!print_section(f, c->sec, force))
				break;
			for (size_t i = 0; i < c->sec->n; i++)	/* bound: the items */
				free(c->sec->items[i].text);
			free(c->sec->items);
			free(c->sec);
		} else {
			struct buf b = { 0 };

			if (!expand(f, &b, c->text, force) && !force) {
				free(b.s);
				break;
			}
			if (b.s)
				fputs(b.s, stdout);
			free(b.s);
			free(c->text);
		}
		printed = true;
		f->head = c->next;
		if (!f->head)
			f->tail = &f->head;
		free(c);
	}
	if (printed)
		fflush(stdout);
}

static void enqueue(struct filter *f, char *text, struct section *sec)
{
	struct chunk *c = calloc(1, sizeof(*c));

	if (!c)
		die_oom();
	c->text = text;
	c->sec = sec;
	*f->tail = c;
	f->tail = &c->next;
}

/* ------------------------------------------------------------------ */
/* The input                                                           */

static void item_add(struct section *s, uint64_t count)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->items = realloc(s->items, s->cap * sizeof(*s->items));
		if (!s->items)
			die_oom();
	}
	s->items[s->n].count = count;
	s->items[s->n].text = strdup("");
	if (!s->items[s->n].text)
		die_oom();
	s->n++;
}

/* Append named text to the section's last item. */
static void item_append(struct section *s, const char *named)
{
	struct item *it = &s->items[s->n - 1];
	size_t a = strlen(it->text), n = strlen(named);

	it->text = realloc(it->text, a + n + 1);
	if (!it->text)
		die_oom();
	memcpy(it->text + a, named, n + 1);
}

static void stream_line(struct filter *f, char *line)
{
	struct buf b = { 0 };
	char *e;

	/* A line of a text, or a piece of one, or its end: wherever it
	 * comes, since the session's CPUs print each line whole but may
	 * print a text's lines between another's. */
	if (line[0] == '\037' && strchr("dpe", line[1]) && line[2] == ' ') {
		uint64_t id = strtoull(line + 3, &e, 10);

		if (e > line + 3 && *e == '\037') {
			if (line[1] == 'e') {
				text_close(f, id);
				flush(f, false);
				return;
			}
			if (line[1] == 'p')
				e[strcspn(e, "\n")] = '\0';
			name_line(f, &b, e + 1);
			text_append(f, id, b.s ? b.s : "");
			free(b.s);
			return;
		}
	}
	if (f->in_def) {
		char *end = strstr(line, US "end" US);

		if (end)
			*end = '\0';
		name_line(f, &f->def, line);
		if (end) {
			text_put(f, f->def_id, buf_take(&f->def));
			f->in_def = false;
			flush(f, false);
		}
		return;
	}
	if (!strncmp(line, US "def ", 5)) {
		f->def_id = strtoull(line + 5, &e, 10);
		if (*e == '\037') {
			f->in_def = true;
			return;
		}
	}
	if (!strncmp(line, US "sum" US, 5) && !f->sec) {
		f->sec = calloc(1, sizeof(*f->sec));
		if (!f->sec)
			die_oom();
		return;
	}
	if (f->sec) {
		if (!strncmp(line, US "end" US, 5)) {
			enqueue(f, NULL, f->sec);
			f->sec = NULL;
			flush(f, false);
			return;
		}
		if (!strncmp(line, US "item ", 6)) {
			uint64_t count = strtoull(line + 6, &e, 10);

			if (*e == '\037') {
				item_add(f->sec, count);
				line = e + 1;
			}
		}
		if (f->sec->n == 0)
			item_add(f->sec, 0);	/* text before the first item */
		name_line(f, &b, line);
		item_append(f->sec, b.s ? b.s : "");
		free(b.s);
		return;
	}
	name_line(f, &b, line);
	enqueue(f, buf_take(&b), NULL);
	flush(f, false);
}

void filter_file(struct filter *f, FILE *in)
{
	char *line = NULL;
	size_t cap = 0;

	while (getline(&line, &cap, in) >= 0) {	/* bound: the input */
		if (f->o.stream) {
			stream_line(f, line);
		} else {
			struct buf b = { 0 };

			name_line(f, &b, line);
			if (b.s)
				fputs(b.s, stdout);
			free(b.s);
		}
	}
	free(line);
}

int filter_end(struct filter *f)
{
	int rc = 0;

	if (f->in_def)
		text_put(f, f->def_id, buf_take(&f->def));
	if (f->sec)
		enqueue(f, NULL, f->sec);
	f->sec = NULL;
	flush(f, true);
	if (f->undefined) {
		fprintf(stderr, "%s: %u references to texts never defined in the input\n",
			f->prog, f->undefined);
		rc = 1;
	}
	for (size_t i = 0; i < f->tcap; i++)	/* bound: the table */
		free(f->texts[i].s);
	free(f->texts);
	free(f);
	fflush(stdout);
	return rc;
}
