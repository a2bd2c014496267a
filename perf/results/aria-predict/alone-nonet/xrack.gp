# Renders xrack.png from uplink-*.csv: gnuplot xrack.gp
set terminal pngcairo size 1200,340 font ',10'
set output 'xrack.png'
set datafile separator ','
set multiplot layout 1,1 title 'Cross-rack traffic, all uplinks, perf/mixes/aria-alone.jsonl (capacity 640000.0 Gbit/s)'
set yrange [0:672000.00]
set ylabel 'Gbit/s'
set key outside right top
set xlabel 'time (h)'
set title 'fifo against fifo'
plot 'uplink-fifo.csv' using ($1/3600):($2*640000.0000) every ::1 with lines lc rgb '#a0a0a0' title 'fifo', \
     'uplink-fifo.csv' using ($1/3600):($2*640000.0000) every ::1 with lines lc rgb '#c03000' title 'fifo'
unset multiplot
