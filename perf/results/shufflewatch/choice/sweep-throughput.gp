$line0 << EOD
12 "12" 1.0000
36 "36" 1.0000
120 "120" 1.0000
360 "360" 1.0000
EOD
$line1 << EOD
12 "12" 1.0000
36 "36" 1.0000
120 "120" 1.0000
360 "360" 1.0000
EOD
$line2 << EOD
12 "12" 1.0172
36 "36" 1.0201
120 "120" 1.0475
360 "360" 1.0503
EOD
$line3 << EOD
12 "12" 1.0229
36 "36" 0.9943
120 "120" 1.0148
360 "360" 1.0030
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'jobs-per-user'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair starvation-window=0', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fair starvation-window=600', \
     $line2 using 1:3 with linespoints lw 1.5 title 'sw-fair starvation-window=0', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-fair starvation-window=600'
