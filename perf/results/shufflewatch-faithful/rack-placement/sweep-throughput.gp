$line0 << EOD
1 "1" 1.0000
2 "2" 1.0000
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0000
EOD
$line1 << EOD
1 "1" 0.9930
2 "2" 0.9899
3 "3" 1.0039
4 "4" 1.0033
5 "5" 1.0038
EOD
$line2 << EOD
1 "1" 0.9965
2 "2" 1.0034
3 "3" 0.9961
4 "4" 1.0000
5 "5" 1.0076
EOD
$line3 << EOD
1 "1" 0.9895
2 "2" 1.0034
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0038
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
