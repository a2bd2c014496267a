# Renders xrack.png from uplink-*.csv: gnuplot xrack.gp
set terminal pngcairo size 1200,700 font ',10'
set output 'xrack.png'
set datafile separator ','
set multiplot layout 3,1 title 'Cross-rack traffic, all uplinks, mix2 (capacity 64.0 Gbit/s)'
set yrange [0:67.20]
set ylabel 'Gbit/s'
set key outside right top
set xlabel 'time (h)'
set title 'fifo against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*64.0000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-fifo.csv' using ($1/3600):($2*64.0000) every ::1 with lines lc rgb '#c03000' title 'fifo'
set title 'minedf against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*64.0000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-minedf.csv' using ($1/3600):($2*64.0000) every ::1 with lines lc rgb '#c03000' title 'minedf'
set title 'aria against fair'
plot 'uplink-fair.csv' using ($1/3600):($2*64.0000) every ::1 with lines lc rgb '#a0a0a0' title 'fair', \
     'uplink-aria.csv' using ($1/3600):($2*64.0000) every ::1 with lines lc rgb '#c03000' title 'aria'
unset multiplot
