$line0 << EOD
1 "1" 1.0000
9 "9" 1.0000
12 "12" 1.0000
18 "18" 1.0000
EOD
$line1 << EOD
1 "1" 0.9991
9 "9" 1.0016
12 "12" 0.9994
18 "18" 0.9989
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
set xlabel 'jobs-per-user'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'sw-fair'
