$line0 << EOD
1 "1" 1.0000
2 "2" 1.0000
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0000
EOD
$line1 << EOD
1 "1" 1.0114
2 "2" 1.0051
3 "3" 1.0000
4 "4" 1.0051
5 "5" 0.9881
EOD
$line2 << EOD
1 "1" 1.0029
2 "2" 1.0051
3 "3" 1.0064
4 "4" 0.9949
5 "5" 1.0000
EOD
$line3 << EOD
1 "1" 1.0057
2 "2" 1.0026
3 "3" 1.0000
4 "4" 1.0077
5 "5" 0.9881
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'seed'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'sw-fair', \
     $line2 using 1:3 with linespoints lw 1.5 title 'delay', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-relaxed'
