# Renders xrack.png from uplink-*.csv: gnuplot xrack.gp
set terminal pngcairo size 1200,520 font ',10'
set output 'xrack.png'
set datafile separator ','
set multiplot layout 2,1 title 'Cross-rack traffic, all uplinks, perf/mixes/aria-w2-2.jsonl (capacity 640000.0 Gbit/s)'
set yrange [0:672000.00]
set ylabel 'Gbit/s'
set key outside right top
set xlabel 'time (h)'
set title 'aria against minedf'
plot 'uplink-minedf.csv' using ($1/3600):($2*640000.0000) every ::1 with lines lc rgb '#a0a0a0' title 'minedf', \
     'uplink-aria.csv' using ($1/3600):($2*640000.0000) every ::1 with lines lc rgb '#c03000' title 'aria'
set title 'fifo against minedf'
plot 'uplink-minedf.csv' using ($1/3600):($2*640000.0000) every ::1 with lines lc rgb '#a0a0a0' title 'minedf', \
     'uplink-fifo.csv' using ($1/3600):($2*640000.0000) every ::1 with lines lc rgb '#c03000' title 'fifo'
unset multiplot
