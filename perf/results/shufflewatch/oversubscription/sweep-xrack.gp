$line0 << EOD
1 "1" 1.0000
5 "5" 1.0000
10 "10" 1.0000
20 "20" 1.0000
EOD
$line1 << EOD
1 "1" 1.0015
5 "5" 0.9998
10 "10" 1.0015
20 "20" 0.9987
EOD
$line2 << EOD
1 "1" 0.9865
5 "5" 0.9858
10 "10" 0.9860
20 "20" 0.9830
EOD
$line3 << EOD
1 "1" 0.9894
5 "5" 0.9877
10 "10" 0.9878
20 "20" 0.9845
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
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
