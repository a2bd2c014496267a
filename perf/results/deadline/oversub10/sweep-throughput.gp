$line0 << EOD
56.94 "56.94" 1.0000
47.95 "47.95" 1.0000
43.38 "43.38" 1.0000
EOD
$line1 << EOD
56.94 "56.94" 0.9832
47.95 "47.95" 1.0000
43.38 "43.38" 1.0074
EOD
$line2 << EOD
56.94 "56.94" 1.0000
47.95 "47.95" 0.9695
43.38 "43.38" 0.9118
EOD
$line3 << EOD
56.94 "56.94" 0.9832
47.95 "47.95" 0.9695
43.38 "43.38" 0.9118
EOD
$line4 << EOD
56.94 "56.94" 0.8487
47.95 "47.95" 0.9237
43.38 "43.38" 0.8824
EOD
$line5 << EOD
56.94 "56.94" 1.0000
47.95 "47.95" 0.9771
43.38 "43.38" 0.7941
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'interarrival'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'sw-fair', \
     $line2 using 1:3 with linespoints lw 1.5 title 'minedf', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-minedf', \
     $line4 using 1:3 with linespoints lw 1.5 title 'adaptive', \
     $line5 using 1:3 with linespoints lw 1.5 title 'sw-adaptive'
