# Renders xrack.png from uplink-*.csv: gnuplot xrack.gp
set terminal pngcairo size 1200,1060 font ',10'
set output 'xrack.png'
set datafile separator ','
set multiplot layout 5,1 title 'Cross-rack traffic, all uplinks, mix2 (capacity 2.5 Gbit/s)'
set yrange [0:2.62]
set ylabel 'Gbit/s'
set key outside right top
set xlabel 'time (h)'
set title 'sw-fair against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-sw-fair.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#c03000' title 'sw-fair'
set title 'minedf against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-minedf.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#c03000' title 'minedf'
set title 'sw-minedf against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-sw-minedf.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#c03000' title 'sw-minedf'
set title 'adaptive against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-adaptive.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#c03000' title 'adaptive'
set title 'sw-adaptive against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-sw-adaptive.csv' using ($1/3600):($2*2.5000) every ::1 with lines lc rgb '#c03000' title 'sw-adaptive'
unset multiplot
