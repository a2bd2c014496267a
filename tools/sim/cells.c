/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim_cells.h"

#define NO_CELL UINT32_MAX

int sw_sim_cells_init(struct sim_cells *m, uint32_t n_lines)
{
	memset(m, 0, sizeof(*m));
	m->free_head = NO_CELL;
	m->n_lines = n_lines;
	m->rows = calloc(n_lines, sizeof(*m->rows));
	m->cols = calloc(n_lines, sizeof(*m->cols));
	if (!m->rows || !m->cols) {
		sw_sim_cells_fini(m);
		return -ENOMEM;
	}
	return 0;
}

void sw_sim_cells_fini(struct sim_cells *m)
{
	uint32_t i;

	for (i = 0; m->rows && i < m->n_lines; i++)
		free(m->rows[i].cells);
	for (i = 0; m->cols && i < m->n_lines; i++)
		free(m->cols[i].cells);
	free(m->rows);
	free(m->cols);
	free(m->cell);
	free(m->slot);
	memset(m, 0, sizeof(*m));
}

static uint32_t hash(const struct sim_cells *m, uint32_t row, uint32_t col)
{
	uint64_t h = ((uint64_t)row << 32 | col) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 32) & m->mask;
}

static void slot_insert(struct sim_cells *m, uint32_t id)
{
	uint32_t i = hash(m, m->cell[id].row, m->cell[id].col);

	while (m->slot[i] != NO_CELL)
		i = (i + 1) & m->mask;
	m->slot[i] = id;
}

/* Empties the slot of @p id and shifts back the cells that probed past it, so that no
 * tombstones accumulate. */
static void slot_delete(struct sim_cells *m, uint32_t id)
{
	uint32_t i = hash(m, m->cell[id].row, m->cell[id].col), j;

	while (m->slot[i] != id)
		i = (i + 1) & m->mask;
	for (j = (i + 1) & m->mask; m->slot[j] != NO_CELL; j = (j + 1) & m->mask) {
		const struct sim_cell *c = &m->cell[m->slot[j]];
		uint32_t home = hash(m, c->row, c->col);

		/* The cell at j may fill the hole at i unless its home lies cyclically in (i, j].
		 */
		if (((j - home) & m->mask) >= ((j - i) & m->mask)) {
			m->slot[i] = m->slot[j];
			i = j;
		}
	}
	m->slot[i] = NO_CELL;
}

int sw_sim_cells_reserve(struct sim_cells *m, uint32_t n_cells)
{
	uint32_t cap = m->cell_cap ? m->cell_cap : 64, n_slots = 1, i;
	struct sim_cell *nc;
	uint32_t *ns;

	if (n_cells <= m->cell_cap)
		return 0;
	while (cap < n_cells)
		cap *= 2;
	while (n_slots < 2 * cap)
		n_slots *= 2;
	nc = realloc(m->cell, (size_t)cap * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	m->cell = nc;
	ns = malloc((size_t)n_slots * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	memset(nc + m->cell_cap, 0, (size_t)(cap - m->cell_cap) * sizeof(*nc));
	for (i = cap; i-- > m->cell_cap;) {
		nc[i].rpos = m->free_head;
		m->free_head = i;
	}
	free(m->slot);
	m->slot = ns;
	m->mask = n_slots - 1;
	memset(ns, 0xff, (size_t)n_slots * sizeof(*ns));
	for (i = 0; i < m->cell_cap; i++)
		if (nc[i].count)
			slot_insert(m, i);
	m->cell_cap = cap;
	return 0;
}

static int line_reserve(struct sim_line *l, uint32_t n)
{
	uint32_t cap = l->cap ? l->cap : 4;
	uint32_t *nc;

	if (n <= l->cap)
		return 0;
	while (cap < n)
		cap *= 2;
	nc = realloc(l->cells, (size_t)cap * sizeof(*nc));
	if (!nc)
		return -ENOMEM;
	l->cells = nc;
	l->cap = cap;
	return 0;
}

int sw_sim_cells_reserve_line(struct sim_cells *m, uint32_t line, uint32_t n_row, uint32_t n_col)
{
	if (line_reserve(&m->rows[line], n_row) || line_reserve(&m->cols[line], n_col))
		return -ENOMEM;
	return 0;
}

uint32_t sw_sim_cells_inc(struct sim_cells *m, uint32_t row, uint32_t col)
{
	uint32_t i = hash(m, row, col), id;
	struct sim_cell *c;

	for (; (id = m->slot[i]) != NO_CELL; i = (i + 1) & m->mask) {
		if (m->cell[id].row == row && m->cell[id].col == col) {
			m->cell[id].count++;
			return id;
		}
	}
	id = m->free_head;
	c = &m->cell[id];
	m->free_head = c->rpos;
	c->row = row;
	c->col = col;
	c->count = 1;
	c->rpos = m->rows[row].n;
	m->rows[row].cells[m->rows[row].n++] = id;
	c->cpos = m->cols[col].n;
	m->cols[col].cells[m->cols[col].n++] = id;
	m->slot[i] = id;
	return id;
}

void sw_sim_cells_dec(struct sim_cells *m, uint32_t id)
{
	struct sim_cell *c = &m->cell[id];
	struct sim_line *r, *k;
	uint32_t moved;

	if (--c->count)
		return;
	slot_delete(m, id);
	r = &m->rows[c->row];
	moved = r->cells[--r->n];
	r->cells[c->rpos] = moved;
	m->cell[moved].rpos = c->rpos;
	k = &m->cols[c->col];
	moved = k->cells[--k->n];
	k->cells[c->cpos] = moved;
	m->cell[moved].cpos = c->cpos;
	c->rpos = m->free_head;
	m->free_head = id;
}
