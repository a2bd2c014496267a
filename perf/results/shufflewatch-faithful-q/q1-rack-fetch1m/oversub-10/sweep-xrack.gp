$line0 << EOD
1 "1" 1.0000
2 "2" 1.0000
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0000
EOD
$line1 << EOD
1 "1" 1.0000
2 "2" 1.0007
3 "3" 0.9996
4 "4" 0.9998
5 "5" 0.9997
EOD
$line2 << EOD
1 "1" 0.9849
2 "2" 0.9825
3 "3" 0.9815
4 "4" 0.9854
5 "5" 0.9867
EOD
$line3 << EOD
1 "1" 0.9850
2 "2" 0.9831
3 "3" 0.9828
4 "4" 0.9850
5 "5" 0.9870
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
