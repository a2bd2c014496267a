#!/bin/sh
# Draws ARIA's W2 ("Yahoo!") workload (ICAC'11 section 5.5; notes-aria-workflows.md 5.5) as a
# JSON Lines mix: N jobs whose map counts are N(154, 558) and reduce counts N(19, 145), drawn
# again until at least 1 (the paper does not say how it truncates); maps of N(100, 20) s and
# reduces of N(300, 30) s (the mix's "spread" for grep: coefficients of variation MAP_CV and
# REDUCE_CV around one block's time, 0.2 and 0.1 by default; 0 0 gives every task of a job
# one length), grep's rates (30 MB/s each way: blocks of 3 GB, 9 GB of shuffle per reducer)
# and no output. Run it
# with --map-input live and a topology of fast NICs (ARIA's simulator models no network, and
# perf/mixes/aria-cluster-nonet.json has 10 Tbit/s ones: 9 GB in 7 ms) and --deadline-factor 1:3 (ARIA's
# U[T, 3T]). Arrivals one per SEC seconds only bound the load-threshold gate's submissions.
# Deterministic for a seed (awk's srand).
# usage: perf/mixes/draw-aria-w2.sh SEED N SEC [MAP_CV REDUCE_CV] >FILE
set -eu
awk -v seed="$1" -v n="$2" -v sec="$3" -v map_cv="${4:-0.2}" -v reduce_cv="${5:-0.1}" '
function normal(mu, sd) { return mu + sd * sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand()) }
function count(mu, sd,   c) { do c = int(normal(mu, sd) + 0.5); while (c < 1); return c }
BEGIN {
	srand(seed)
	block = 3000000000
	printf "{\"mix\": {\"users\": 30, \"block_bytes\": %.0f, \"seed\": %d, \"spread\": {\"grep\": {\"map\": %g, \"reduce\": %g}}}}\n", block, seed, map_cv, reduce_cv
	for (id = 0; id < n; id++) {
		m = count(154, 558)
		r = count(19, 145)
		printf "{\"job\": {\"id\": %d, \"arrival\": %.2f, \"user\": %d, \"bench\": \"grep\", \"input_bytes\": %.0f, \"shuffle_bytes\": %.0f, \"output_bytes\": 0, \"reduces\": %d}}\n", id, id * sec, id % 30, m * block, r * 9e9, r
	}
}'
