$line0 << EOD
103.74 "103.74" 1.0000
51.87 "51.87" 1.0000
34.58 "34.58" 1.0000
25.94 "25.94" 1.0000
EOD
$line1 << EOD
103.74 "103.74" 0.9983
51.87 "51.87" 0.9996
34.58 "34.58" 1.0010
25.94 "25.94" 1.0002
EOD
$line2 << EOD
103.74 "103.74" 0.9847
51.87 "51.87" 0.9851
34.58 "34.58" 0.9852
25.94 "25.94" 0.9851
EOD
$line3 << EOD
103.74 "103.74" 0.9856
51.87 "51.87" 0.9854
34.58 "34.58" 0.9853
25.94 "25.94" 0.9846
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
     $line2 using 1:3 with linespoints lw 1.5 title 'delay', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-relaxed'
