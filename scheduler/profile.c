/* SPDX-License-Identifier: MIT */
/*
 * ARIA job profiles: built from the task records of one run (the notes' section 1.2), and
 * kept in a bounded table keyed by (user, job name), ARIA's Profile DB without the MySQL.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sw_sched_aria.h"

/* Mean and maximum of a series of durations. */
struct series {
	double sum, max;
	uint32_t n;
};

static void series_add(struct series *s, double v)
{
	s->sum += v;
	s->max = s->n ? fmax(s->max, v) : v;
	s->n++;
}

static double series_avg(const struct series *s)
{
	return s->n ? s->sum / s->n : 0;
}

static bool record_ok(const struct sw_task_record *r)
{
	if ((unsigned)r->kind >= SW_KINDS || !isfinite(r->start) || !isfinite(r->end) ||
	    r->end < r->start)
		return false;
	return r->kind == SW_MAP ||
	       (isfinite(r->shuffle_end) && r->shuffle_end >= r->start && r->shuffle_end <= r->end);
}

int sw_sched_profile_build(const struct sw_task_record *recs, size_t n, struct sw_job_profile *out)
{
	struct series map = {0}, first = {0}, typical = {0}, reduce = {0};
	double map_end = -INFINITY, map_min = INFINITY;
	uint64_t map_in = 0, map_out = 0, red_in = 0, red_out = 0;

	if (!recs || !out)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const struct sw_task_record *r = &recs[i];

		if (!record_ok(r))
			return -EINVAL;
		if (r->kind != SW_MAP)
			continue;
		series_add(&map, r->end - r->start);
		map_min = fmin(map_min, r->end - r->start);
		map_end = fmax(map_end, r->end);
		map_in += r->bytes_in;
		map_out += r->bytes_out;
	}
	if (map.n == 0)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const struct sw_task_record *r = &recs[i];

		if (r->kind != SW_REDUCE)
			continue;
		/* The first wave started before the maps ended: only its shuffle after them counts.
		 */
		if (r->start < map_end)
			series_add(&first, fmax(0, r->shuffle_end - map_end));
		else
			series_add(&typical, r->shuffle_end - r->start);
		series_add(&reduce, r->end - r->shuffle_end);
		red_in += r->bytes_in;
		red_out += r->bytes_out;
	}
	/* One reduce wave has no typical shuffle to measure: the first wave's stands in. */
	if (typical.n == 0)
		typical = first;
	*out = (struct sw_job_profile){
	        .map_min = map_min,
	        .map_avg = series_avg(&map),
	        .map_max = map.max,
	        .shuffle_first_avg = series_avg(&first),
	        .shuffle_first_max = first.max,
	        .shuffle_avg = series_avg(&typical),
	        .shuffle_max = typical.max,
	        .reduce_avg = series_avg(&reduce),
	        .reduce_max = reduce.max,
	        .shuffle_input_ratio = map_in ? (double)map_out / map_in : 0,
	        .map_input_avg = (double)map_in / map.n,
	        .reduce_selectivity = red_in ? (double)red_out / red_in : 0,
	};
	return 0;
}

struct profile_entry {
	struct profile_entry *next;
	uint32_t user;
	struct sw_job_profile profile;
	char name[]; /* NUL-terminated */
};

struct sw_sched_profile_db {
	struct profile_entry **buckets;
	uint32_t n_buckets, count, max;
};

struct sw_sched_profile_db *sw_sched_profile_db_create(uint32_t max_entries)
{
	struct sw_sched_profile_db *db;
	uint32_t n = 16;

	if (max_entries == 0) {
		errno = EINVAL;
		return NULL;
	}
	/* Sized once for the most entries it may hold: a put never rehashes. */
	while (n < max_entries && n < (1u << 24))
		n *= 2;
	db = calloc(1, sizeof(*db));
	if (db)
		db->buckets = calloc(n, sizeof(*db->buckets));
	if (!db || !db->buckets) {
		free(db);
		errno = ENOMEM;
		return NULL;
	}
	db->n_buckets = n;
	db->max = max_entries;
	return db;
}

void sw_sched_profile_db_destroy(struct sw_sched_profile_db *db)
{
	if (!db)
		return;
	for (uint32_t b = 0; b < db->n_buckets; b++) {
		while (db->buckets[b]) {
			struct profile_entry *e = db->buckets[b];

			db->buckets[b] = e->next;
			free(e);
		}
	}
	free(db->buckets);
	free(db);
}

/* FNV-1a over the user and the name. */
static uint32_t key_hash(uint32_t user, const char *name)
{
	uint32_t h = 2166136261u;

	for (int i = 0; i < 4; i++)
		h = (h ^ ((user >> (8 * i)) & 0xff)) * 16777619u;
	for (; *name; name++)
		h = (h ^ (unsigned char)*name) * 16777619u;
	return h;
}

static struct profile_entry **lookup(const struct sw_sched_profile_db *db, uint32_t user,
                                     const char *name)
{
	struct profile_entry **e = &db->buckets[key_hash(user, name) & (db->n_buckets - 1)];

	while (*e && ((*e)->user != user || strcmp((*e)->name, name) != 0))
		e = &(*e)->next;
	return e;
}

static bool name_ok(const char *name)
{
	return name && name[0] && strnlen(name, SW_PROFILE_NAME_MAX + 1) <= SW_PROFILE_NAME_MAX;
}

int sw_sched_profile_db_put(struct sw_sched_profile_db *db, uint32_t user, const char *name,
                            const struct sw_job_profile *p)
{
	struct profile_entry **slot, *e;
	size_t len;

	if (!db || !p || !name_ok(name))
		return -EINVAL;
	slot = lookup(db, user, name);
	if (*slot) {
		(*slot)->profile = *p;
		return 0;
	}
	if (db->count >= db->max)
		return -ENOSPC;
	len = strlen(name);
	e = malloc(sizeof(*e) + len + 1);
	if (!e)
		return -ENOMEM;
	e->next = NULL;
	e->user = user;
	e->profile = *p;
	memcpy(e->name, name, len + 1);
	*slot = e;
	db->count++;
	return 0;
}

int sw_sched_profile_db_get(const struct sw_sched_profile_db *db, uint32_t user, const char *name,
                            struct sw_job_profile *out)
{
	struct profile_entry *e;

	if (!db || !out || !name_ok(name))
		return -EINVAL;
	e = *lookup(db, user, name);
	if (!e)
		return -ENOENT;
	*out = e->profile;
	return 0;
}
