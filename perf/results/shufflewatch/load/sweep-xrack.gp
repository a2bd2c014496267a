$line0 << EOD
0.5 "0.5" 1.0000
1 "1" 1.0000
1.5 "1.5" 1.0000
2 "2" 1.0000
3 "3" 1.0000
EOD
$line1 << EOD
0.5 "0.5" 1.0020
1 "1" 0.9998
1.5 "1.5" 1.0015
2 "2" 1.0015
3 "3" 1.0010
EOD
$line2 << EOD
0.5 "0.5" 0.9754
1 "1" 0.9858
1.5 "1.5" 0.9893
2 "2" 0.9880
3 "3" 0.9874
EOD
$line3 << EOD
0.5 "0.5" 0.9779
1 "1" 0.9877
1.5 "1.5" 0.9903
2 "2" 0.9880
3 "3" 0.9875
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
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
