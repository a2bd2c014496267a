$line0 << EOD
1 "1" 1.0000
2 "2" 1.0000
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0000
EOD
$line1 << EOD
1 "1" 0.9983
2 "2" 0.9996
3 "3" 0.9998
4 "4" 0.9966
5 "5" 0.9986
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
set xlabel 'seed'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'sw-fair'
