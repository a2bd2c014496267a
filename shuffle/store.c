/* SPDX-License-Identifier: MIT */
/*
 * Map-output store. Partitions live in one registered arena until memory passes spill_at; then
 * the oldest unpinned ones move to their job's spill file until usage is below resume_below.
 * If pinned partitions (being fetched) keep usage above pause_at, writers get -EAGAIN until it
 * drops below resume_below: Celeborn's three watermarks, with the writer doing the spilling
 * itself so that no background thread is needed.
 *
 * Spill files are O_TMPFILE files (unnamed): a crash leaves nothing behind and closing the fd is
 * all removal takes. A durable store instead writes every partition to a named file with an
 * index (durable.c) before the put returns, and reopens them when created again. Appends go at the
 * job's committed length; a failed write truncates back to it, so the index only ever points at
 * bytes that were fully written.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>

#include "arena.h"
#include "durable.h"
#include "proto.h"
#include "shuffle_int.h"

#define NO_MEM ((size_t)-1)

struct job;

struct part {
	uint64_t job;
	uint32_t map, idx;
	uint64_t len;
	size_t mem_off; /* NO_MEM when in the spill file or empty */
	size_t mem_len;
	uint64_t file_off;
	uint32_t *crcs; /* CRC32C of each SPILL_BLOCK, from put time; NULL when empty */
	/* the answer tag's digest of each SPILL_BLOCK (auth.c), from put time; NULL when empty or
	 * reopened from disk (then the server takes them from the bytes it reads) */
	uint8_t *digests;
	size_t meta;  /* bytes of this struct, its CRCs and digests, counted in stats.meta_used */
	bool on_file; /* its bytes are in the job's file at file_off (maybe in memory too) */
	unsigned pins;
	struct job *owner;
	struct part *hnext;         /* hash chain */
	struct part *jnext;         /* job's partitions */
	struct part *older, *newer; /* in-memory partitions, spill order */
};

struct job {
	uint64_t id;
	uint8_t secret[SW_SHUFFLE_SECRET_MAX];
	size_t secret_len;
	uint8_t pkey[PROTO_PIECE_KEY_LEN]; /* the key of its digests, from the secret */
	int fd;            /* spill file, -1 until the first spill (durable: the data file) */
	int idx_fd;        /* durable: the index file, else -1 */
	uint64_t file_len; /* committed bytes of the spill file */
	struct part *parts;
	unsigned pins;
	bool removed; /* out of the index; freed when the last fetch unpins */
	struct job *next;
};

struct sw_shuffle_store {
	pthread_mutex_t lock;
	pthread_cond_t resumed;
	uint8_t *mem;
	size_t budget, spill_mark, pause_mark, resume_mark;
	struct arena arena;
	char *spill_dir;
	bool durable;
	struct part **buckets;
	size_t nbuckets, nparts;
	struct job *jobs;
	struct part *oldest, *newest;
	struct sw_shuffle_store_stats stats;
	struct sw_shuffle_log log;
};

/* Spilled data is checked against CRCs taken when it was put, per block of this size: 4 bytes
 * of metadata per 64 KiB, and a read re-reads at most one block on either side. */
#define SPILL_BLOCK (64u << 10)
_Static_assert(SPILL_BLOCK == PROTO_PIECE, "put-time digests are of the tag's pieces");

static size_t nblocks(uint64_t len)
{
	return (size_t)((len + SPILL_BLOCK - 1) / SPILL_BLOCK);
}

static size_t block_len(uint64_t len, size_t i)
{
	uint64_t off = (uint64_t)i * SPILL_BLOCK;
	return len - off < SPILL_BLOCK ? (size_t)(len - off) : SPILL_BLOCK;
}

static uint32_t *block_crcs(const uint8_t *data, uint64_t len)
{
	uint32_t *c = malloc(nblocks(len) * sizeof(*c) + 1);
	for (size_t i = 0; c != NULL && i < nblocks(len); i++)
		c[i] = sw_shuffle_proto_crc32c(data + (uint64_t)i * SPILL_BLOCK, block_len(len, i));
	return c;
}

/* The answer tag's digests of data's blocks under key (NULL on failure). */
static uint8_t *block_digests(const uint8_t key[PROTO_PIECE_KEY_LEN], const uint8_t *data,
                              uint64_t len)
{
	struct proto_tag *g = sw_shuffle_proto_tag_new();
	uint8_t *d = malloc(nblocks(len) * PROTO_DIGEST_LEN + 1);
	if (g == NULL || d == NULL) {
		free(d);
		d = NULL;
	} else {
		sw_shuffle_proto_digests(g, key, data, len, d);
	}
	sw_shuffle_proto_tag_free(g);
	return d;
}

/* Heap bytes a partition of len bytes takes besides its data: counted against the budget, so
 * that a flood of tiny or empty partitions cannot grow the store past it either. */
static size_t part_meta(uint64_t len, bool digests)
{
	return sizeof(struct part) +
	       nblocks(len) * (sizeof(uint32_t) + (digests ? PROTO_DIGEST_LEN : 0));
}

/* Memory the budget's watermarks compare: arena bytes of partitions plus the metadata. */
static size_t used(const struct sw_shuffle_store *st)
{
	return st->stats.mem_used + st->stats.meta_used;
}

static void peak_update(struct sw_shuffle_store *st)
{
	if (used(st) > st->stats.mem_peak)
		st->stats.mem_peak = used(st);
}

static void part_free(struct sw_shuffle_store *st, struct part *p)
{
	st->stats.meta_used -= p->meta;
	free(p->crcs);
	free(p->digests);
	free(p);
}

static uint64_t key_hash(uint64_t job, uint32_t map, uint32_t idx)
{
	/* splitmix64 finaliser over the packed key: cheap and mixes all bits */
	uint64_t x = job * 0x9e3779b97f4a7c15ull ^ ((uint64_t)map << 32 | idx);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static struct part **bucket(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t idx)
{
	return &st->buckets[key_hash(job, map, idx) & (st->nbuckets - 1)];
}

static struct part *lookup(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t idx)
{
	for (struct part *p = *bucket(st, job, map, idx); p != NULL; p = p->hnext)
		if (p->job == job && p->map == map && p->idx == idx)
			return p;
	return NULL;
}

static void hash_unlink(struct sw_shuffle_store *st, struct part *p)
{
	struct part **pp = bucket(st, p->job, p->map, p->idx);
	while (*pp != p)
		pp = &(*pp)->hnext;
	*pp = p->hnext;
	st->nparts--;
}

static int hash_grow(struct sw_shuffle_store *st)
{
	size_t n = st->nbuckets * 2;
	struct part **b = calloc(n, sizeof(*b));
	if (b == NULL)
		return -ENOMEM;
	for (size_t i = 0; i < st->nbuckets; i++) {
		struct part *p = st->buckets[i], *next;
		for (; p != NULL; p = next) {
			next = p->hnext;
			struct part **head = &b[key_hash(p->job, p->map, p->idx) & (n - 1)];
			p->hnext = *head;
			*head = p;
		}
	}
	free(st->buckets);
	st->buckets = b;
	st->stats.meta_used += (n - st->nbuckets) * sizeof(*b);
	st->nbuckets = n;
	peak_update(st);
	return 0;
}

static struct job *job_find(struct sw_shuffle_store *st, uint64_t id)
{
	for (struct job *j = st->jobs; j != NULL; j = j->next)
		if (j->id == id)
			return j;
	return NULL;
}

static void fifo_unlink(struct sw_shuffle_store *st, struct part *p)
{
	if (p->older != NULL)
		p->older->newer = p->newer;
	else
		st->oldest = p->newer;
	if (p->newer != NULL)
		p->newer->older = p->older;
	else
		st->newest = p->older;
	p->older = p->newer = NULL;
}

static void fifo_push(struct sw_shuffle_store *st, struct part *p)
{
	p->older = st->newest;
	p->newer = NULL;
	if (st->newest != NULL)
		st->newest->newer = p;
	else
		st->oldest = p;
	st->newest = p;
}

static void mem_release(struct sw_shuffle_store *st, struct part *p)
{
	if (p->mem_off == NO_MEM)
		return;
	fifo_unlink(st, p);
	if (sw_shuffle_arena_free(&st->arena, p->mem_off, p->mem_len) < 0)
		sw_shuffle_logf(&st->log, "store: lost %zu arena bytes (free list full)",
		                p->mem_len);
	st->stats.mem_used -= p->mem_len;
	st->stats.parts_mem--;
	p->mem_off = NO_MEM;
}

static int open_spill(struct sw_shuffle_store *st, struct job *j)
{
	if (j->fd >= 0)
		return 0;
	j->fd = open(st->spill_dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	if (j->fd >= 0)
		return 0;
	if (errno == EOPNOTSUPP || errno == EISDIR) { /* filesystems without O_TMPFILE */
		size_t n = strlen(st->spill_dir) + 32;
		char *path = malloc(n);
		if (path == NULL)
			return -ENOMEM;
		snprintf(path, n, "%s/sw-spill-XXXXXX", st->spill_dir);
		j->fd = mkostemp(path, O_CLOEXEC);
		if (j->fd >= 0)
			unlink(path);
		free(path);
		if (j->fd >= 0)
			return 0;
	}
	int err = -errno;
	sw_shuffle_logf(&st->log, "store: cannot create a spill file in %s: %s", st->spill_dir,
	                strerror(errno));
	return err;
}

/* Appends len bytes at the job's committed length; on failure truncates back to it. */
static int spill_append(struct sw_shuffle_store *st, struct job *j, const void *data, size_t len,
                        uint64_t *off)
{
	int err = open_spill(st, j);
	if (err < 0)
		return err;
	const uint8_t *b = data;
	size_t done = 0;
	while (done < len) {
		ssize_t n = pwrite(j->fd, b + done, len - done, (off_t)(j->file_len + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			err = n < 0 ? -errno : -EIO;
			sw_shuffle_logf(&st->log,
			                "store: spill write for job %llu failed at byte %llu: %s",
			                (unsigned long long)j->id,
			                (unsigned long long)(j->file_len + done), strerror(-err));
			if (ftruncate(j->fd, (off_t)j->file_len) < 0)
				sw_shuffle_logf(&st->log,
				                "store: truncating the spill file failed: %s",
				                strerror(errno));
			st->stats.spill_errors++;
			return err;
		}
		done += (size_t)n;
	}
	*off = j->file_len;
	j->file_len += len;
	st->stats.spilled_bytes += len;
	return 0;
}

static int spill_one(struct sw_shuffle_store *st, struct part *p)
{
	int err = p->on_file
	                  ? 0
	                  : spill_append(st, p->owner, st->mem + p->mem_off, p->len, &p->file_off);
	if (err < 0)
		return err;
	p->on_file = true;
	mem_release(st, p);
	st->stats.parts_disk++;
	return 0;
}

static struct part *oldest_unpinned(struct sw_shuffle_store *st)
{
	struct part *p = st->oldest;
	while (p != NULL && p->pins > 0)
		p = p->newer;
	return p;
}

/* Spills oldest unpinned partitions until used(st) + need <= target. */
static int spill_until(struct sw_shuffle_store *st, size_t need, size_t target)
{
	struct part *p;
	while (used(st) + need > target && (p = oldest_unpinned(st)) != NULL) {
		int err = spill_one(st, p);
		if (err < 0)
			return err;
	}
	return 0;
}

static void update_resume(struct sw_shuffle_store *st)
{
	if (st->stats.paused && used(st) < st->resume_mark) {
		st->stats.paused = false;
		pthread_cond_broadcast(&st->resumed);
	}
}

/* Places p's data (already sized) in the arena: 0, 1 when even spilling every unpinned
 * partition leaves no hole large enough (fragmentation), or a spill error. */
static int arena_place(struct sw_shuffle_store *st, struct part *p, const void *data, size_t need)
{
	size_t off;
	int err;
	while ((off = sw_shuffle_arena_alloc(&st->arena, need)) == NO_MEM) {
		struct part *victim = oldest_unpinned(st);
		if (victim == NULL)
			return 1;
		if ((err = spill_one(st, victim)) < 0)
			return err;
	}
	memcpy(st->mem + off, data, p->len);
	p->mem_off = off;
	p->mem_len = need;
	st->stats.mem_used += need;
	st->stats.parts_mem++;
	fifo_push(st, p);
	return 0;
}

/* Durable stores: writes every partition to its job's data file and its record to the index
 * before the put returns, so a new process finds it (the memory copy is only a cache). */
static int persist(struct sw_shuffle_store *st, struct part *p, const void *data)
{
	struct job *j = p->owner;
	uint64_t before = j->file_len;
	int err = p->len > 0 ? spill_append(st, j, data, p->len, &p->file_off) : 0;
	if (err < 0)
		return err;
	struct sw_shuffle_durable_part d = {.map = p->map,
	                                    .part = p->idx,
	                                    .len = p->len,
	                                    .file_off = p->file_off,
	                                    .nblocks = (uint32_t)nblocks(p->len),
	                                    .crcs = p->crcs};
	if ((err = sw_shuffle_durable_record(j->idx_fd, &d)) == 0) {
		p->on_file = p->len > 0;
		return 0;
	}
	sw_shuffle_logf(&st->log, "store: writing the index of job %llu failed: %s",
	                (unsigned long long)j->id, strerror(-err));
	j->file_len = before; /* the data appended is forgotten */
	if (ftruncate(j->fd, (off_t)before) < 0)
		sw_shuffle_logf(&st->log, "store: truncating the data file failed: %s",
		                strerror(errno));
	return err;
}

/* Places p's data (already sized, its metadata already counted) in memory or the spill file. */
static int place(struct sw_shuffle_store *st, struct part *p, const void *data)
{
	size_t need = arena_round(p->len);
	/* one that could never stay in memory goes straight to disk; an empty one takes only
	 * its metadata */
	bool in_mem = p->len > 0 && need < st->resume_mark;
	size_t want = in_mem ? need : 0;
	int err;

	if (in_mem && st->stats.paused) {
		err = spill_until(st, 0, st->resume_mark - 1);
		if (err < 0)
			return err;
		update_resume(st);
		if (st->stats.paused)
			return -EAGAIN;
	}
	if (used(st) + want > st->spill_mark) {
		err = spill_until(st, want, st->resume_mark);
		if (err < 0)
			return err;
	}
	if (used(st) + want > st->pause_mark) {
		if (!st->stats.paused) {
			st->stats.paused = true;
			st->stats.pauses++;
			sw_shuffle_logf(&st->log,
			                "store: pausing writers, %zu of %zu bytes held by fetches "
			                "and partition metadata",
			                used(st), st->budget);
		}
		return -EAGAIN;
	}
	if (st->durable && (err = persist(st, p, data)) < 0)
		return err;
	if (in_mem && (err = arena_place(st, p, data, need)) <= 0)
		return err;
	if (p->len == 0)
		return 0;
	if (!p->on_file && (err = spill_append(st, p->owner, data, p->len, &p->file_off)) < 0)
		return err;
	p->on_file = true;
	st->stats.parts_disk++;
	return 0;
}

/* Makes room in the hash table for one more partition. 0 or -ENOMEM. */
static int hash_room(struct sw_shuffle_store *st)
{
	/* at load factor 1 the table doubles, unless that would take the store past spill_at:
	 * longer chains then, not more memory */
	if (st->nparts >= st->nbuckets &&
	    used(st) + st->nbuckets * sizeof(*st->buckets) <= st->spill_mark)
		return hash_grow(st);
	return 0;
}

/* Enters a placed partition in the index and its job's list. */
static void index_part(struct sw_shuffle_store *st, struct part *p)
{
	struct part **head = bucket(st, p->job, p->map, p->idx);
	p->hnext = *head;
	*head = p;
	st->nparts++;
	p->jnext = p->owner->parts;
	p->owner->parts = p;
}

int sw_shuffle_put(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t idx,
                   const void *data, size_t len)
{
	int err = 0;
	uint8_t pkey[PROTO_PIECE_KEY_LEN];
	pthread_mutex_lock(&st->lock);
	struct job *j = job_find(st, job);
	if (j != NULL)
		memcpy(pkey, j->pkey, sizeof(pkey));
	pthread_mutex_unlock(&st->lock);
	if (j == NULL)
		return -ESRCH;
	/* outside the lock: a pass over the data for its CRCs, one for its digests */
	uint32_t *crcs = len > 0 ? block_crcs(data, len) : NULL;
	uint8_t *digests = len > 0 ? block_digests(pkey, data, len) : NULL;

	if (len > 0 && (crcs == NULL || digests == NULL)) {
		free(crcs);
		free(digests);
		return -ENOMEM;
	}
	pthread_mutex_lock(&st->lock);
	j = job_find(st, job);
	if (j == NULL || CRYPTO_memcmp(j->pkey, pkey, sizeof(pkey)) != 0) { /* removed meanwhile */
		err = -ESRCH;
		goto out;
	}
	if (lookup(st, job, map, idx) != NULL) {
		err = -EEXIST;
		goto out;
	}
	if ((err = hash_room(st)) < 0)
		goto out;
	struct part *p = calloc(1, sizeof(*p));
	if (p == NULL) {
		err = -ENOMEM;
		goto out;
	}
	*p = (struct part){.job = job,
	                   .map = map,
	                   .idx = idx,
	                   .len = len,
	                   .mem_off = NO_MEM,
	                   .owner = j,
	                   .crcs = crcs,
	                   .digests = digests,
	                   .meta = part_meta(len, true)};
	crcs = NULL;
	digests = NULL;
	st->stats.meta_used += p->meta;
	err = place(st, p, data);
	if (err < 0) {
		part_free(st, p);
		update_resume(st);
		goto out;
	}
	peak_update(st);
	index_part(st, p);
out:
	pthread_mutex_unlock(&st->lock);
	OPENSSL_cleanse(pkey, sizeof(pkey));
	free(crcs);
	free(digests);
	return err;
}

static void job_free(struct sw_shuffle_store *st, struct job *j)
{
	struct part *p = j->parts, *next;
	for (; p != NULL; p = next) {
		next = p->jnext;
		mem_release(st, p);
		part_free(st, p);
	}
	if (j->fd >= 0)
		close(j->fd);
	if (j->idx_fd >= 0)
		close(j->idx_fd);
	free(j);
}

int sw_shuffle_job_add(struct sw_shuffle_store *st, uint64_t job, const void *secret,
                       size_t secret_len)
{
	if (secret_len < SW_SHUFFLE_SECRET_MIN || secret_len > SW_SHUFFLE_SECRET_MAX)
		return -EINVAL;
	struct job *j = calloc(1, sizeof(*j));
	if (j == NULL)
		return -ENOMEM;
	j->id = job;
	j->fd = j->idx_fd = -1;
	memcpy(j->secret, secret, secret_len);
	j->secret_len = secret_len;
	if (sw_shuffle_proto_piece_key(secret, secret_len, j->pkey) < 0) {
		free(j);
		return -ENOMEM;
	}
	pthread_mutex_lock(&st->lock);
	const struct job *old = job_find(st, job);
	int err = old == NULL ? 0
	          : old->secret_len == secret_len &&
	                          CRYPTO_memcmp(old->secret, secret, secret_len) == 0
	                  ? -EEXIST
	                  : -EKEYREJECTED;
	if (err == 0 && st->durable &&
	    (err = sw_shuffle_durable_create(st->spill_dir, job, secret, secret_len, &j->fd,
	                                     &j->idx_fd)) < 0)
		sw_shuffle_logf(&st->log, "store: cannot create the files of job %llu in %s: %s",
		                (unsigned long long)job, st->spill_dir, strerror(-err));
	if (err < 0) {
		pthread_mutex_unlock(&st->lock);
		free(j);
		return err;
	}
	j->next = st->jobs;
	st->jobs = j;
	pthread_mutex_unlock(&st->lock);
	return 0;
}

int sw_shuffle_job_remove(struct sw_shuffle_store *st, uint64_t job)
{
	pthread_mutex_lock(&st->lock);
	struct job **jp = &st->jobs;
	while (*jp != NULL && (*jp)->id != job)
		jp = &(*jp)->next;
	struct job *j = *jp;
	if (j == NULL) {
		pthread_mutex_unlock(&st->lock);
		return -ESRCH;
	}
	*jp = j->next;
	if (st->durable) /* fetches still reading it keep the open files */
		sw_shuffle_durable_unlink(st->spill_dir, job);
	for (struct part *p = j->parts; p != NULL; p = p->jnext) {
		hash_unlink(st, p);
		if (p->mem_off == NO_MEM && p->len > 0)
			st->stats.parts_disk--;
		if (p->pins == 0)
			mem_release(st, p);
	}
	/* A fetch still holding one of its partitions frees the job when it unpins. */
	j->next = NULL;
	j->removed = true;
	if (j->pins == 0)
		job_free(st, j);
	update_resume(st);
	pthread_mutex_unlock(&st->lock);
	return 0;
}

int sw_shuffle_store_pin(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t idx,
                         struct sw_shuffle_view *v)
{
	int err = 0;
	pthread_mutex_lock(&st->lock);
	struct part *p = lookup(st, job, map, idx);
	if (p == NULL) {
		err = job_find(st, job) == NULL ? -ESRCH : -ENOENT;
		goto out;
	}
	p->pins++;
	p->owner->pins++;
	*v = (struct sw_shuffle_view){.p = p, .len = p->len};
	v->addr = p->mem_off == NO_MEM ? NULL : st->mem + p->mem_off;
out:
	pthread_mutex_unlock(&st->lock);
	return err;
}

/* Reads [off, off+len) of a file; 0 or -EIO (logged). */
static int pread_all(struct sw_shuffle_store *st, const struct part *p, uint64_t off, void *buf,
                     size_t len)
{
	size_t done = 0;
	while (done < len) {
		ssize_t n =
		        pread(p->owner->fd, (uint8_t *)buf + done, len - done, (off_t)(off + done));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			sw_shuffle_logf(&st->log,
			                "store: reading spilled job %llu map %u part %u: %s",
			                (unsigned long long)p->job, p->map, p->idx,
			                n < 0 ? strerror(errno) : "short file");
			return -EIO;
		}
		done += (size_t)n;
	}
	return 0;
}

int sw_shuffle_store_view_read(struct sw_shuffle_store *st, const struct sw_shuffle_view *v,
                               uint64_t off, void *buf, size_t len)
{
	if (v->addr != NULL || len == 0) {
		if (len > 0)
			memcpy(buf, v->addr + off, len);
		return 0;
	}
	/* Whole blocks are read and checked against their CRCs from put time, so bytes changed
	 * in the spill file are never served as good. The fd and file_off cannot change while
	 * the partition is pinned. */
	const struct part *p = v->p;
	size_t first = (size_t)(off / SPILL_BLOCK), last = (size_t)((off + len - 1) / SPILL_BLOCK);
	uint64_t start = (uint64_t)first * SPILL_BLOCK;
	size_t span = (size_t)((uint64_t)last * SPILL_BLOCK + block_len(p->len, last) - start);
	uint8_t *tmp = malloc(span);
	if (tmp == NULL)
		return -ENOMEM;
	int err = pread_all(st, p, p->file_off + start, tmp, span);
	for (size_t i = first; err == 0 && i <= last; i++)
		if (sw_shuffle_proto_crc32c(tmp + (uint64_t)(i - first) * SPILL_BLOCK,
		                            block_len(p->len, i)) != p->crcs[i]) {
			sw_shuffle_logf(
			        &st->log,
			        "store: spill file of job %llu changed on disk: map %u part %u "
			        "bytes "
			        "[%llu,+%zu) fail their CRC32C from put time",
			        (unsigned long long)p->job, p->map, p->idx,
			        (unsigned long long)i * SPILL_BLOCK, block_len(p->len, i));
			err = -EIO;
		}
	if (err == 0)
		memcpy(buf, tmp + (off - start), len);
	free(tmp);
	return err;
}

/* Whether [off, off+len) of p covers whole blocks: starts on one, ends on one or at the end. */
static bool whole_blocks(const struct part *p, uint64_t off, uint64_t len)
{
	return len == 0 ||
	       (off % SPILL_BLOCK == 0 && (len % SPILL_BLOCK == 0 || off + len == p->len));
}

int sw_shuffle_store_view_crc(const struct sw_shuffle_view *v, uint64_t off, uint64_t len,
                              uint32_t *crc)
{
	const struct part *p = v->p;
	uint32_t c = 0; /* the CRC32C of no bytes */
	if (!whole_blocks(p, off, len))
		return -EINVAL;
	for (size_t i = (size_t)(off / SPILL_BLOCK);
	     len > 0 && (uint64_t)i * SPILL_BLOCK < off + len; i++)
		c = sw_shuffle_proto_crc32c_combine(c, p->crcs[i], block_len(p->len, i));
	*crc = c;
	return 0;
}

int sw_shuffle_store_view_digests(const struct sw_shuffle_view *v, uint64_t off, uint64_t len,
                                  const uint8_t **digests, size_t *n)
{
	const struct part *p = v->p;
	if (!whole_blocks(p, off, len) || (len > 0 && p->digests == NULL))
		return -EINVAL;
	*digests = len > 0 ? p->digests + off / SPILL_BLOCK * PROTO_DIGEST_LEN : NULL;
	*n = nblocks(len);
	return 0;
}

void sw_shuffle_store_unpin(struct sw_shuffle_store *st, struct sw_shuffle_view *v)
{
	pthread_mutex_lock(&st->lock);
	struct part *p = v->p;
	struct job *j = p->owner;
	p->pins--;
	j->pins--;
	if (j->removed && p->pins == 0)
		mem_release(st, p);
	if (j->removed && j->pins == 0)
		job_free(st, j);
	else if (st->stats.paused && spill_until(st, 0, st->resume_mark - 1) < 0)
		sw_shuffle_logf(&st->log,
		                "store: spilling after a fetch failed; writers stay paused");
	update_resume(st);
	pthread_mutex_unlock(&st->lock);
	v->p = NULL;
}

void sw_shuffle_store_arena(struct sw_shuffle_store *st, void **addr, size_t *len)
{
	*addr = st->mem;
	*len = st->budget;
}

int sw_shuffle_store_job_secret(struct sw_shuffle_store *st, uint64_t job,
                                uint8_t secret[SW_SHUFFLE_SECRET_MAX])
{
	pthread_mutex_lock(&st->lock);
	struct job *j = job_find(st, job);
	int n = j == NULL ? -ESRCH : (int)j->secret_len;
	if (j != NULL)
		memcpy(secret, j->secret, j->secret_len);
	pthread_mutex_unlock(&st->lock);
	return n;
}

int sw_shuffle_part_len(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t idx,
                        uint64_t *len)
{
	struct sw_shuffle_view v;
	int err = sw_shuffle_store_pin(st, job, map, idx, &v);
	if (err < 0)
		return err;
	*len = v.len;
	sw_shuffle_store_unpin(st, &v);
	return 0;
}

int sw_shuffle_read(struct sw_shuffle_store *st, uint64_t job, uint32_t map, uint32_t idx,
                    uint64_t off, void *buf, size_t len)
{
	struct sw_shuffle_view v;
	int err = sw_shuffle_store_pin(st, job, map, idx, &v);
	if (err < 0)
		return err;
	if (off > v.len || len > v.len - off)
		err = -ERANGE;
	else
		err = sw_shuffle_store_view_read(st, &v, off, buf, len);
	sw_shuffle_store_unpin(st, &v);
	return err;
}

int sw_shuffle_store_wait_resume(struct sw_shuffle_store *st, int timeout_ms)
{
	struct timespec ts;
	int err = 0;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += timeout_ms / 1000;
	ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&st->lock);
	while (st->stats.paused && err == 0)
		err = pthread_cond_timedwait(&st->resumed, &st->lock, &ts);
	pthread_mutex_unlock(&st->lock);
	return err == ETIMEDOUT ? -ETIMEDOUT : 0;
}

void sw_shuffle_store_stats(struct sw_shuffle_store *st, struct sw_shuffle_store_stats *out)
{
	pthread_mutex_lock(&st->lock);
	*out = st->stats;
	pthread_mutex_unlock(&st->lock);
}

int sw_shuffle_store_each_part(struct sw_shuffle_store *st,
                               int (*fn)(void *arg, uint64_t job, uint32_t map, uint32_t part),
                               void *arg)
{
	int rc = 0;
	pthread_mutex_lock(&st->lock);
	for (const struct job *j = st->jobs; j != NULL && !rc; j = j->next)
		for (const struct part *p = j->parts; p != NULL && !rc; p = p->jnext)
			rc = fn(arg, p->job, p->map, p->idx);
	pthread_mutex_unlock(&st->lock);
	return rc;
}

/* Takes a job found on disk when a durable store opens: its partitions are on file only. */
static int adopt(void *arg, struct sw_shuffle_durable_job *d)
{
	struct sw_shuffle_store *st = arg;
	struct job *j = calloc(1, sizeof(*j));
	if (j == NULL)
		return -ENOMEM;
	*j = (struct job){.id = d->id,
	                  .secret_len = d->secret_len,
	                  .fd = d->data_fd,
	                  .idx_fd = d->idx_fd,
	                  .file_len = d->data_len,
	                  .next = st->jobs};
	memcpy(j->secret, d->secret, d->secret_len);
	if (sw_shuffle_proto_piece_key(j->secret, j->secret_len, j->pkey) < 0) {
		free(j);
		return -ENOMEM;
	}
	d->data_fd = d->idx_fd = -1;
	st->jobs = j;
	for (size_t i = 0; i < d->nparts; i++) {
		struct sw_shuffle_durable_part *dp = &d->parts[i];
		struct part *p = calloc(1, sizeof(*p));
		if (p == NULL || hash_room(st) < 0) {
			free(p);
			return -ENOMEM;
		}
		if (lookup(st, d->id, dp->map, dp->part) != NULL) { /* cannot be written twice */
			sw_shuffle_logf(&st->log,
			                "store: job %llu map %u part %u twice in its index",
			                (unsigned long long)d->id, dp->map, dp->part);
			free(p);
			continue;
		}
		*p = (struct part){.job = d->id,
		                   .map = dp->map,
		                   .idx = dp->part,
		                   .len = dp->len,
		                   .mem_off = NO_MEM,
		                   .file_off = dp->file_off,
		                   .crcs = dp->crcs,
		                   .meta = part_meta(dp->len, false),
		                   .on_file = dp->len > 0,
		                   .owner = j};
		dp->crcs = NULL;
		st->stats.meta_used += p->meta;
		if (p->len > 0)
			st->stats.parts_disk++;
		index_part(st, p);
	}
	peak_update(st);
	return 0;
}

static double frac_or(double v, double dflt)
{
	return v == 0 ? dflt : v;
}

int sw_shuffle_store_create(const struct sw_shuffle_store_conf *conf, struct sw_shuffle_store **out)
{
	double spill = frac_or(conf->spill_at, 0.85), pause = frac_or(conf->pause_at, 0.95);
	double resume = frac_or(conf->resume_below, 0.70);
	if (conf->spill_dir == NULL ||
	    !(resume > 0 && resume < spill && spill <= pause && pause <= 1))
		return -EINVAL;
	struct sw_shuffle_store *st = calloc(1, sizeof(*st));
	if (st == NULL)
		return -ENOMEM;
	st->budget = arena_round(conf->mem_budget ? conf->mem_budget : 64u << 20);
	st->spill_mark = (size_t)(spill * (double)st->budget);
	st->pause_mark = (size_t)(pause * (double)st->budget);
	st->resume_mark = (size_t)(resume * (double)st->budget);
	st->stats.mem_budget = st->budget;
	st->log = conf->log;
	st->nbuckets = 256;
	st->buckets = calloc(st->nbuckets, sizeof(*st->buckets));
	st->stats.meta_used = st->nbuckets * sizeof(*st->buckets);
	st->spill_dir = strdup(conf->spill_dir);
	st->mem =
	        mmap(NULL, st->budget, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (st->mem == MAP_FAILED)
		st->mem = NULL;
	if (st->buckets == NULL || st->spill_dir == NULL || st->mem == NULL ||
	    sw_shuffle_arena_init(&st->arena, st->budget) < 0)
		goto fail;
	pthread_mutex_init(&st->lock, NULL);
	pthread_cond_init(&st->resumed, NULL);
	st->durable = conf->durable;
	int err;
	if (st->durable &&
	    (err = sw_shuffle_durable_scan(st->spill_dir, &st->log, adopt, st)) < 0) {
		sw_shuffle_logf(&st->log, "store: cannot reopen the jobs in %s: %s", st->spill_dir,
		                strerror(-err));
		sw_shuffle_store_destroy(st);
		return err;
	}
	*out = st;
	return 0;
fail:
	sw_shuffle_arena_fini(&st->arena);
	if (st->mem != NULL)
		munmap(st->mem, st->budget);
	free(st->spill_dir);
	free(st->buckets);
	free(st);
	return -ENOMEM;
}

void sw_shuffle_store_destroy(struct sw_shuffle_store *st)
{
	if (st == NULL)
		return;
	while (st->jobs != NULL) {
		struct job *j = st->jobs;
		st->jobs = j->next;
		job_free(st, j);
	}
	munmap(st->mem, st->budget);
	sw_shuffle_arena_fini(&st->arena);
	pthread_mutex_destroy(&st->lock);
	pthread_cond_destroy(&st->resumed);
	free(st->spill_dir);
	free(st->buckets);
	free(st);
}
