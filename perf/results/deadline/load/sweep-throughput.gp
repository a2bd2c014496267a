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
13 "13" 0.9916
11 "11" 1.0948
10 "10" 0.9812
EOD
$line3 << EOD
13 "13" 1.1392
11 "11" 1.0100
10 "10" 1.0404
EOD
$line4 << EOD
13 "13" 0.7950
11 "11" 0.8483
10 "10" 0.8779
EOD
$line5 << EOD
13 "13" 0.6443
11 "11" 0.6350
10 "10" 0.6616
EOD
$line6 << EOD
13 "13" 0.7950
11 "11" 0.8483
10 "10" 0.8779
EOD
$line7 << EOD
13 "13" 0.6443
11 "11" 0.6350
10 "10" 0.6616
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
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
