$line0 << EOD
103.74 "103.74" 1.0000
51.87 "51.87" 1.0000
34.58 "34.58" 1.0000
25.94 "25.94" 1.0000
EOD
$line1 << EOD
103.74 "103.74" 1.0000
51.87 "51.87" 0.9965
34.58 "34.58" 1.0153
25.94 "25.94" 1.0234
EOD
$line2 << EOD
103.74 "103.74" 1.0000
51.87 "51.87" 1.0035
34.58 "34.58" 1.0026
25.94 "25.94" 1.0064
EOD
$line3 << EOD
103.74 "103.74" 1.0000
51.87 "51.87" 0.9965
34.58 "34.58" 1.0077
25.94 "25.94" 1.0297
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
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'sw-fair', \
     $line2 using 1:3 with linespoints lw 1.5 title 'delay', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-relaxed'
