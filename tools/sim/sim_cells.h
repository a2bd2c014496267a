/* SPDX-License-Identifier: MIT */
/**
 * @file
 * Sparse matrix of counts with its rows and columns listed (private to tools/sim).
 *
 * Cell (row, col) holds a count; only cells above 0 exist. Every row and every column lists
 * its cells, so a whole row or column is walked in its own size, and a cell is found from
 * (row, col) through a hash. The network keeps here, for each link (row) and bottleneck
 * group (column, named by the link that bottlenecks it), how many flows of the group cross
 * the link.
 *
 * Space is reserved ahead (sw_sim_cells_reserve(), sw_sim_cells_reserve_line()), so that
 * counting up and down cannot fail. Return codes: 0 on success, -ENOMEM.
 */
#ifndef SIM_CELLS_H
#define SIM_CELLS_H

#include <stdint.h>

struct sim_cell {
	uint32_t row, col, count;
	uint32_t rpos, cpos; /* index in its row's and its column's list */
};

struct sim_line {
	uint32_t *cells;
	uint32_t n, cap;
};

struct sim_cells {
	struct sim_cell *cell; /* free cells are chained through rpos */
	uint32_t cell_cap, free_head;
	uint32_t *slot, mask; /* open addressing, linear probing: (row, col) -> cell id */
	struct sim_line *rows, *cols;
	uint32_t n_lines;
};

/** An empty matrix of @p n_lines rows and as many columns. */
int sw_sim_cells_init(struct sim_cells *m, uint32_t n_lines);
void sw_sim_cells_fini(struct sim_cells *m);
/** Makes room for @p n_cells cells in all. */
int sw_sim_cells_reserve(struct sim_cells *m, uint32_t n_cells);
/** Makes room for @p n_row cells in row @p line and @p n_col in column @p line. */
int sw_sim_cells_reserve_line(struct sim_cells *m, uint32_t line, uint32_t n_row, uint32_t n_col);
/** Adds 1 to cell (@p row, @p col), creating it; room must be reserved. @return its id. */
uint32_t sw_sim_cells_inc(struct sim_cells *m, uint32_t row, uint32_t col);
/** Takes 1 from cell @p id, which goes when it reaches 0. */
void sw_sim_cells_dec(struct sim_cells *m, uint32_t id);

#endif /* SIM_CELLS_H */
