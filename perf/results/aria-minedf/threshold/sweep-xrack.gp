$line0 << EOD
0.85 "0.85" 1.0042
0.9 "0.9" 0.9996
0.95 "0.95" 1.0044
1 "1" 0.9998
1.05 "1.05" 1.0072
EOD
$line1 << EOD
0.85 "0.85" 1.0000
0.9 "0.9" 1.0000
0.95 "0.95" 1.0000
1 "1" 1.0000
1.05 "1.05" 1.0000
EOD
$line2 << EOD
0.85 "0.85" 1.0020
0.9 "0.9" 1.0000
0.95 "0.95" 1.0059
1 "1" 1.0008
1.05 "1.05" 1.0057
EOD
$line3 << EOD
0.85 "0.85" 0.9992
0.9 "0.9" 0.9877
0.95 "0.95" 1.0028
1 "1" 0.9967
1.05 "1.05" 0.9996
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
set xlabel 'load-threshold'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fifo', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line2 using 1:3 with linespoints lw 1.5 title 'minedf', \
     $line3 using 1:3 with linespoints lw 1.5 title 'aria'
