#!/bin/sh
# Draws a job mix for the live replay (JSON Lines, tools/sim/README.md): a paper mix scaled to
# minutes on a namespace cluster. Benchmarks by Table 1's shares within each class, classes by
# the mix's shares (mix1 20/20/60, mix2 40/20/40 light/medium/heavy, as tools/sim does); inputs
# 4..MAXMAPS blocks of 8 MiB, 2..MAXRED reduces, exponential interarrivals of mean SEC over
# SPAN seconds, users uniform over 6. Deterministic for a seed (awk's srand).
# usage: perf/mixes/draw-live-mix.sh mix1|mix2 SEED SPAN SEC MAXMAPS MAXRED >FILE
set -eu
case $1 in
mix1) light=20 medium=20 heavy=60 ;;
mix2) light=40 medium=20 heavy=40 ;;
*) echo "draw-live-mix.sh: mix1 or mix2, not '$1'" >&2; exit 2 ;;
esac
awk -v seed="$2" -v span="$3" -v mean="$4" -v maxmaps="$5" -v maxred="$6" \
	-v light="$light" -v medium="$medium" -v heavy="$heavy" 'BEGIN {
	srand(seed)
	# Table 1: benchmark, class, share within the paper mix
	n = split("terasort heavy 5 ranked-inverted-index heavy 10 selfjoin heavy 10 " \
		"word-sequence-count heavy 10 adjacency-list heavy 5 inverted-index medium 10 " \
		"term-vector medium 10 grep light 15 wordcount light 10 classification light 5 " \
		"histogram-movies light 5 histogram-ratings light 5", t, " ")
	total["heavy"] = 40; total["medium"] = 20; total["light"] = 40
	want["heavy"] = heavy; want["medium"] = medium; want["light"] = light
	for (i = 1; i <= n; i += 3) {
		b[++nb] = t[i]
		w[nb] = t[i + 2] / total[t[i + 1]] * want[t[i + 1]]
		sum += w[nb]
	}
	printf "{\"mix\": {\"users\": 6, \"block_bytes\": 8388608, \"seed\": %d}}\n", seed
	for (id = 0; at < span; id++) {
		r = rand() * sum
		for (k = 1; k < nb && r >= w[k]; k++)
			r -= w[k]
		maps = 4 + int(rand() * (maxmaps - 3))
		printf "{\"job\": {\"id\": %d, \"arrival\": %.1f, \"user\": %d, \"bench\": \"%s\", " \
			"\"input_bytes\": %d, \"reduces\": %d}}\n", id, at, int(rand() * 6), b[k],
			maps * 8388608, 2 + int(rand() * (maxred - 1))
		at += -mean * log(1 - rand())
	}
}'
