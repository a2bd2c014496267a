$line0 << EOD
0.5 "0.5" 1.0000
2 "2" 1.0000
EOD
$line1 << EOD
0.5 "0.5" 1.0000
2 "2" 1.0000
EOD
$line2 << EOD
0.5 "0.5" 1.0000
2 "2" 1.0000
EOD
$line3 << EOD
0.5 "0.5" 1.0000
2 "2" 1.0000
EOD
$line4 << EOD
0.5 "0.5" 1.0000
2 "2" 1.0000
EOD
$line5 << EOD
0.5 "0.5" 0.9965
2 "2" 0.9930
EOD
$line6 << EOD
0.5 "0.5" 0.9966
2 "2" 1.0000
EOD
$line7 << EOD
0.5 "0.5" 1.0000
2 "2" 1.0000
EOD
$line8 << EOD
0.5 "0.5" 1.0033
2 "2" 0.9935
EOD
$line9 << EOD
0.5 "0.5" 1.0000
2 "2" 1.0000
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'compute-scale'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair seed=1', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fair seed=2', \
     $line2 using 1:3 with linespoints lw 1.5 title 'fair seed=3', \
     $line3 using 1:3 with linespoints lw 1.5 title 'fair seed=4', \
     $line4 using 1:3 with linespoints lw 1.5 title 'fair seed=5', \
     $line5 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=1', \
     $line6 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=2', \
     $line7 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=3', \
     $line8 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=4', \
     $line9 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=5'
