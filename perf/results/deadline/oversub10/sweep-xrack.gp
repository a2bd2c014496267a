$line0 << EOD
56.94 "56.94" 1.0000
47.95 "47.95" 1.0000
43.38 "43.38" 1.0000
EOD
$line1 << EOD
56.94 "56.94" 1.0024
47.95 "47.95" 1.0006
43.38 "43.38" 1.0007
EOD
$line2 << EOD
56.94 "56.94" 1.0012
47.95 "47.95" 1.0015
43.38 "43.38" 0.9994
EOD
$line3 << EOD
56.94 "56.94" 1.0010
47.95 "47.95" 1.0016
43.38 "43.38" 0.9994
EOD
$line4 << EOD
56.94 "56.94" 0.9951
47.95 "47.95" 0.9975
43.38 "43.38" 0.9950
EOD
$line5 << EOD
56.94 "56.94" 1.0007
47.95 "47.95" 1.0014
43.38 "43.38" 0.9992
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
set xlabel 'interarrival'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'sw-fair', \
     $line2 using 1:3 with linespoints lw 1.5 title 'minedf', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-minedf', \
     $line4 using 1:3 with linespoints lw 1.5 title 'adaptive', \
     $line5 using 1:3 with linespoints lw 1.5 title 'sw-adaptive'
