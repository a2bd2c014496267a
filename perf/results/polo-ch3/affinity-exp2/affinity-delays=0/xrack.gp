# Renders xrack.png from uplink-*.csv: gnuplot xrack.gp
set terminal pngcairo size 1200,520 font ',10'
set output 'xrack.png'
set datafile separator ','
set multiplot layout 2,1 title 'Cross-rack traffic, all uplinks, perf/mixes/polo-ch3-affinity.jsonl (capacity 60.0 Gbit/s)'
set yrange [0:63.00]
set ylabel 'Gbit/s'
set key outside right top
set xlabel 'time (h)'
set title 'delay against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*60.0000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-delay.csv' using ($1/3600):($2*60.0000) every ::1 with lines lc rgb '#c03000' title 'delay'
set title 'adaptive against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*60.0000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-adaptive.csv' using ($1/3600):($2*60.0000) every ::1 with lines lc rgb '#c03000' title 'adaptive'
unset multiplot
