$line0 << EOD
0 "0" 1.0000
1 "1" 1.0000
3 "3" 1.0000
EOD
$line1 << EOD
0 "0" 1.0086
1 "1" 1.0086
3 "3" 1.0086
EOD
$line2 << EOD
0 "0" 0.9947
1 "1" 1.0048
3 "3" 1.0047
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'affinity-delays'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'delay', \
     $line2 using 1:3 with linespoints lw 1.5 title 'adaptive'
