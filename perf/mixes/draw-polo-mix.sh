#!/bin/sh
# Draws a job mix shaped like Polo's Reverse-Adaptive simulations (thesis 5.3.5, Table 5.6;
# notes-polo-adaptive-ras.md 4.3) in JSON Lines (tools/sim/README.md): 100 nodes of one map
# slot (10 racks of 10), map-only jobs of lognormal(mean 62, sd 15.5) tasks, every task of a
# job the same length (the thesis: "regular task lengths"), Poisson arrivals at load 1.0 of
# the cluster's map slots over DAYS days; other loads are --time-scale 1/LOAD of this one.
# A task computes TASK seconds (grep at 30 MB/s over a block of 30e6 x TASK bytes; run with
# --map-input live, so maps read nothing over the network, and jobs write nothing).
# Deadlines are not in the file: swctl --deadline-factor 1.5:X draws them from the job's time
# alone on the cluster (its isolation time). Deterministic for a seed (awk's srand).
# usage: perf/mixes/draw-polo-mix.sh SEED DAYS TASK >FILE
set -eu
awk -v seed="$1" -v days="$2" -v task="$3" 'BEGIN {
	srand(seed)
	nodes = 100
	mean = 62; sd = 15.5
	s2 = log(1 + (sd / mean) ^ 2)
	mu = log(mean) - s2 / 2
	block = 30000000 * task
	rate = nodes / (mean * task)       # jobs per second that fill every slot
	printf "{\"topology\": {\"racks\": 10, \"nodes_per_rack\": 10, \"map_slots\": 1, \"reduce_slots\": 1}}\n"
	printf "{\"mix\": {\"users\": 20, \"block_bytes\": %.0f, \"seed\": %d}}\n", block, seed
	for (id = 0; ; id++) {
		at += -log(1 - rand()) / rate
		if (at >= days * 86400)
			break
		z = sqrt(-2 * log(1 - rand())) * cos(6.283185307179586 * rand())
		n = int(exp(mu + sqrt(s2) * z) + 0.5)
		if (n < 1)
			n = 1
		printf "{\"job\": {\"id\": %d, \"arrival\": %.3f, \"user\": %d, \"bench\": \"grep\", \"input_bytes\": %.0f, \"shuffle_bytes\": 0, \"output_bytes\": 0}}\n", id, at, id % 20, n * block
	}
}'
