# Renders xrack.png from uplink-*.csv: gnuplot xrack.gp
set terminal pngcairo size 1200,700 font ',10'
set output 'xrack.png'
set datafile separator ','
set multiplot layout 3,1 title 'Cross-rack traffic, all uplinks, mix2 (capacity 5.0 Gbit/s)'
set yrange [0:5.25]
set ylabel 'Gbit/s'
set key outside right top
set xlabel 'time (h)'
set title 'sw-fair against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*5.0000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-sw-fair.csv' using ($1/3600):($2*5.0000) every ::1 with lines lc rgb '#c03000' title 'sw-fair'
set title 'delay against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*5.0000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-delay.csv' using ($1/3600):($2*5.0000) every ::1 with lines lc rgb '#c03000' title 'delay'
set title 'sw-relaxed against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*5.0000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-sw-relaxed.csv' using ($1/3600):($2*5.0000) every ::1 with lines lc rgb '#c03000' title 'sw-relaxed'
unset multiplot
