# Renders xrack.png from uplink-*.csv: gnuplot xrack.gp
set terminal pngcairo size 1200,340 font ',10'
set output 'xrack.png'
set datafile separator ','
set multiplot layout 1,1 title 'Cross-rack traffic, all uplinks, /work/wt-dpdk/perf/mixes/pace-heavy.jsonl (capacity 0.2 Gbit/s)'
set yrange [0:0.21]
set ylabel 'Gbit/s'
set key outside right top
set xlabel 'time (h)'
set title 'sw-fair against sw-fair'
plot 'uplink-sw-fair.csv' using ($1/3600):($2*0.2000) every ::1 with lines lc rgb '#a0a0a0' title 'sw-fair', \
     'uplink-sw-fair.csv' using ($1/3600):($2*0.2000) every ::1 with lines lc rgb '#c03000' title 'sw-fair'
unset multiplot
