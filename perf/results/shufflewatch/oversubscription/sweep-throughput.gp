$line0 << EOD
1 "1" 1.0000
5 "5" 1.0000
10 "10" 1.0000
20 "20" 1.0000
EOD
$line1 << EOD
1 "1" 0.9973
5 "5" 1.0229
10 "10" 0.9895
20 "20" 1.0000
EOD
$line2 << EOD
1 "1" 0.9973
5 "5" 1.0029
10 "10" 0.9860
20 "20" 0.9087
EOD
$line3 << EOD
1 "1" 0.9973
5 "5" 1.0201
10 "10" 0.9860
20 "20" 0.9834
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'oversub'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'sw-fair', \
     $line2 using 1:3 with linespoints lw 1.5 title 'delay', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-relaxed'
