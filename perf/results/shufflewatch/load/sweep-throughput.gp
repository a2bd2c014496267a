$line0 << EOD
0.5 "0.5" 1.0000
1 "1" 1.0000
1.5 "1.5" 1.0000
2 "2" 1.0000
3 "3" 1.0000
EOD
$line1 << EOD
0.5 "0.5" 1.0000
1 "1" 1.0229
1.5 "1.5" 0.9970
2 "2" 0.9755
3 "3" 1.0122
EOD
$line2 << EOD
0.5 "0.5" 0.9973
1 "1" 1.0029
1.5 "1.5" 1.0030
2 "2" 0.9720
3 "3" 1.0122
EOD
$line3 << EOD
0.5 "0.5" 1.0000
1 "1" 1.0201
1.5 "1.5" 0.9882
2 "2" 0.9860
3 "3" 1.0163
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'size-scale'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'sw-fair', \
     $line2 using 1:3 with linespoints lw 1.5 title 'delay', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-relaxed'
