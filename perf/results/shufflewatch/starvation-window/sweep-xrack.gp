$line0 << EOD
0 "0" 1.0000
600 "600" 1.0000
3600 "3600" 1.0000
EOD
$line1 << EOD
0 "0" 1.0000
600 "600" 1.0000
3600 "3600" 1.0000
EOD
$line2 << EOD
0 "0" 1.0008
600 "600" 0.9998
3600 "3600" 1.0008
EOD
$line3 << EOD
0 "0" 0.9988
600 "600" 1.0015
3600 "3600" 1.0014
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
set xlabel 'starvation-window'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair size-scale=1', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fair size-scale=2', \
     $line2 using 1:3 with linespoints lw 1.5 title 'sw-fair size-scale=1', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-fair size-scale=2'
