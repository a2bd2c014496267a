$line0 << EOD
0 "none" 0.8333
1 "reduce" 0.8000
EOD
$line1 << EOD
0 "none" 1.0000
1 "reduce" 1.0000
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'copy-memory'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3:xtic(2) with linespoints lw 1.5 title 'ras', \
     $line1 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair'
