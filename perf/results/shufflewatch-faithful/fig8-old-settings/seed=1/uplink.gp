# Renders uplink.png from uplink-*.csv: gnuplot uplink.gp
set terminal pngcairo size 1200,880 font ',10'
set output 'uplink.png'
set datafile separator ','
set multiplot layout 4,1 title 'Cross-rack uplink utilisation (outbound), mix2'
set yrange [0:105.00]
set ylabel '%'
set key outside right top
set xlabel 'time (h)'
set title 'fair'
plot 'uplink-fair.csv' using ($1/3600):($3*100) every ::1 with lines lc rgb '#c0c0e0' title 'busiest rack', \
     '' using ($1/3600):($2*100) every ::1 with lines lc rgb '#0030a0' lw 1.5 title 'mean over racks'
set title 'sw-fair'
plot 'uplink-sw-fair.csv' using ($1/3600):($3*100) every ::1 with lines lc rgb '#c0c0e0' title 'busiest rack', \
     '' using ($1/3600):($2*100) every ::1 with lines lc rgb '#0030a0' lw 1.5 title 'mean over racks'
set title 'delay'
plot 'uplink-delay.csv' using ($1/3600):($3*100) every ::1 with lines lc rgb '#c0c0e0' title 'busiest rack', \
     '' using ($1/3600):($2*100) every ::1 with lines lc rgb '#0030a0' lw 1.5 title 'mean over racks'
set title 'sw-relaxed'
plot 'uplink-sw-relaxed.csv' using ($1/3600):($3*100) every ::1 with lines lc rgb '#c0c0e0' title 'busiest rack', \
     '' using ($1/3600):($2*100) every ::1 with lines lc rgb '#0030a0' lw 1.5 title 'mean over racks'
unset multiplot
