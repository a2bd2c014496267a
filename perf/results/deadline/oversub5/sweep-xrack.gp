$line0 << EOD
52.21 "52.21" 1.0000
43.97 "43.97" 1.0000
39.78 "39.78" 1.0000
EOD
$line1 << EOD
52.21 "52.21" 0.9981
43.97 "43.97" 1.0013
39.78 "39.78" 1.0000
EOD
$line2 << EOD
52.21 "52.21" 0.9962
43.97 "43.97" 0.9992
39.78 "39.78" 0.9992
EOD
$line3 << EOD
52.21 "52.21" 0.9986
43.97 "43.97" 1.0006
39.78 "39.78" 0.9991
EOD
$line4 << EOD
52.21 "52.21" 0.9937
43.97 "43.97" 0.9960
39.78 "39.78" 0.9961
EOD
$line5 << EOD
52.21 "52.21" 0.9986
43.97 "43.97" 1.0008
39.78 "39.78" 0.9988
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
