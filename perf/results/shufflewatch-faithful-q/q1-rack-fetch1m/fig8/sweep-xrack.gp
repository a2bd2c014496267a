$line0 << EOD
1 "1" 1.0000
2 "2" 1.0000
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0000
EOD
$line1 << EOD
1 "1" 0.9998
2 "2" 0.9994
3 "3" 1.0020
4 "4" 0.9988
5 "5" 1.0015
EOD
$line2 << EOD
1 "1" 0.9843
2 "2" 0.9818
3 "3" 0.9833
4 "4" 0.9851
5 "5" 0.9873
EOD
$line3 << EOD
1 "1" 0.9850
2 "2" 0.9826
3 "3" 0.9845
4 "4" 0.9859
5 "5" 0.9884
EOD
$line4 << EOD
1 "1" 1.0002
2 "2" 0.9988
3 "3" 1.0018
4 "4" 1.0009
5 "5" 1.0009
EOD
$line5 << EOD
1 "1" 0.9997
2 "2" 0.9989
3 "3" 1.0025
4 "4" 0.9991
5 "5" 1.0004
EOD
$line6 << EOD
1 "1" 0.9994
2 "2" 1.0004
3 "3" 1.0020
4 "4" 1.0009
5 "5" 1.0003
EOD
$line7 << EOD
1 "1" 0.9994
2 "2" 1.0004
3 "3" 1.0020
4 "4" 0.9992
5 "5" 1.0003
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
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-relaxed', \
     $line4 using 1:3 with linespoints lw 1.5 title 'drf', \
     $line5 using 1:3 with linespoints lw 1.5 title 'sw-drf', \
     $line6 using 1:3 with linespoints lw 1.5 title 'sw-nass', \
     $line7 using 1:3 with linespoints lw 1.5 title 'sw-nass-sarp'
