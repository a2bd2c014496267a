$line0 << EOD
0 "0" 1.0000
600 "600" 1.0000
3600 "3600" 1.0000
EOD
$line1 << EOD
0 "0" 1.0000
600 "600" 1.0000
3600 "3600" 1.0000
EOD
$line2 << EOD
0 "0" 1.0172
600 "600" 1.0229
3600 "3600" 1.0172
EOD
$line3 << EOD
0 "0" 1.0734
600 "600" 0.9755
3600 "3600" 0.9825
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'starvation-window'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair size-scale=1', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fair size-scale=2', \
     $line2 using 1:3 with linespoints lw 1.5 title 'sw-fair size-scale=1', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-fair size-scale=2'
