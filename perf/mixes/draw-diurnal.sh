#!/bin/sh
# Draws a transactional load's f(t) for swctl --transactional: "seconds,share" lines, one an
# hour over DAYS days, a day-long wave with its peak at PEAK o'clock (Polo's Twitter front-end
# trace peaks around hour 18) from LO at the trough to HI at the peak:
# share(h) = LO + (HI - LO) x (1 + cos(2 pi (h - PEAK) / 24)) / 2.
# usage: perf/mixes/draw-diurnal.sh DAYS LO HI PEAK >FILE
set -eu
awk -v days="$1" -v lo="$2" -v hi="$3" -v peak="$4" 'BEGIN {
	print "# seconds,share: the share of every node'"'"'s slots the transactional load holds"
	for (h = 0; h < days * 24; h++)
		printf "%d,%.4f\n", h * 3600, lo + (hi - lo) * (1 + cos(6.283185307179586 * (h - peak) / 24)) / 2
}'
