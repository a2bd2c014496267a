$line0 << EOD
0.85 "0.85" 0.8750
0.9 "0.9" 0.8750
0.95 "0.95" 0.8750
1 "1" 0.8750
1.05 "1.05" 0.8750
EOD
$line1 << EOD
0.85 "0.85" 1.0000
0.9 "0.9" 1.0000
0.95 "0.95" 1.0000
1 "1" 1.0000
1.05 "1.05" 1.0000
EOD
$line2 << EOD
0.85 "0.85" 1.0000
0.9 "0.9" 1.0000
0.95 "0.95" 1.0000
1 "1" 1.0000
1.05 "1.05" 1.0000
EOD
$line3 << EOD
0.85 "0.85" 1.0000
0.9 "0.9" 1.0000
0.95 "0.95" 1.0000
1 "1" 1.0000
1.05 "1.05" 1.0000
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
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
