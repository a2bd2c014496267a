$line0 << EOD
13 "13" 1.0000
11 "11" 1.0000
10 "10" 1.0000
EOD
$line1 << EOD
13 "13" 1.0000
11 "11" 1.0000
10 "10" 1.0000
EOD
$line2 << EOD
13 "13" 0.9995
11 "11" 1.0168
10 "10" 0.9974
EOD
$line3 << EOD
13 "13" 0.9827
11 "11" 0.9957
10 "10" 1.0041
EOD
$line4 << EOD
13 "13" 0.9780
11 "11" 0.9445
10 "10" 0.9257
EOD
$line5 << EOD
13 "13" 0.9223
11 "11" 0.9038
10 "10" 0.9191
EOD
$line6 << EOD
13 "13" 0.9780
11 "11" 0.9445
10 "10" 0.9257
EOD
$line7 << EOD
13 "13" 0.9223
11 "11" 0.9038
10 "10" 0.9191
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
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair oversub=5', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fair oversub=10', \
     $line2 using 1:3 with linespoints lw 1.5 title 'sw-fair oversub=5', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-fair oversub=10', \
     $line4 using 1:3 with linespoints lw 1.5 title 'minedf oversub=5', \
     $line5 using 1:3 with linespoints lw 1.5 title 'minedf oversub=10', \
     $line6 using 1:3 with linespoints lw 1.5 title 'sw-minedf oversub=5', \
     $line7 using 1:3 with linespoints lw 1.5 title 'sw-minedf oversub=10'
