$line0 << EOD
1 "1" 1.0000
2 "2" 1.0000
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0000
EOD
$line1 << EOD
1 "1" 1.0013
2 "2" 1.0013
3 "3" 1.0005
4 "4" 1.0002
5 "5" 1.0007
EOD
$line2 << EOD
1 "1" 0.9859
2 "2" 0.9833
3 "3" 0.9846
4 "4" 0.9857
5 "5" 0.9873
EOD
$line3 << EOD
1 "1" 0.9883
2 "2" 0.9852
3 "3" 0.9848
4 "4" 0.9860
5 "5" 0.9882
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
set xlabel 'seed'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair', \
     $line1 using 1:3 with linespoints lw 1.5 title 'sw-fair', \
     $line2 using 1:3 with linespoints lw 1.5 title 'delay', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-relaxed'
