$line0 << EOD
0.85 "0.85" 1.0018
0.9 "0.9" 0.9902
0.95 "0.95" 1.0024
1 "1" 1.0040
1.05 "1.05" 1.0030
EOD
$line1 << EOD
0.85 "0.85" 1.0000
0.9 "0.9" 1.0000
0.95 "0.95" 1.0000
1 "1" 1.0000
1.05 "1.05" 1.0000
EOD
$line2 << EOD
0.85 "0.85" 1.0028
0.9 "0.9" 0.9902
0.95 "0.95" 1.0001
1 "1" 1.0037
1.05 "1.05" 0.9946
EOD
$line3 << EOD
0.85 "0.85" 1.0028
0.9 "0.9" 0.9895
0.95 "0.95" 0.9998
1 "1" 1.0034
1.05 "1.05" 1.0019
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
