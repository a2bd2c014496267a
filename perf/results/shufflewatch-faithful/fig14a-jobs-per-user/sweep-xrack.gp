$line0 << EOD
1 "1" 1.0000
9 "9" 1.0000
12 "12" 1.0000
18 "18" 1.0000
EOD
$line1 << EOD
1 "1" 1.0000
9 "9" 1.0000
12 "12" 1.0000
18 "18" 1.0000
EOD
$line2 << EOD
1 "1" 1.0000
9 "9" 1.0000
12 "12" 1.0000
18 "18" 1.0000
EOD
$line3 << EOD
1 "1" 1.0000
9 "9" 1.0000
12 "12" 1.0000
18 "18" 1.0000
EOD
$line4 << EOD
1 "1" 1.0000
9 "9" 1.0000
12 "12" 1.0000
18 "18" 1.0000
EOD
$line5 << EOD
1 "1" 0.9991
9 "9" 1.0016
12 "12" 0.9994
18 "18" 0.9989
EOD
$line6 << EOD
1 "1" 1.0011
9 "9" 0.9993
12 "12" 1.0025
18 "18" 1.0027
EOD
$line7 << EOD
1 "1" 1.0005
9 "9" 1.0020
12 "12" 0.9987
18 "18" 0.9995
EOD
$line8 << EOD
1 "1" 1.0003
9 "9" 0.9990
12 "12" 0.9976
18 "18" 1.0004
EOD
$line9 << EOD
1 "1" 1.0009
9 "9" 0.9998
12 "12" 1.0007
18 "18" 1.0003
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
set xlabel 'jobs-per-user'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair seed=1', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fair seed=2', \
     $line2 using 1:3 with linespoints lw 1.5 title 'fair seed=3', \
     $line3 using 1:3 with linespoints lw 1.5 title 'fair seed=4', \
     $line4 using 1:3 with linespoints lw 1.5 title 'fair seed=5', \
     $line5 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=1', \
     $line6 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=2', \
     $line7 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=3', \
     $line8 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=4', \
     $line9 using 1:3 with linespoints lw 1.5 title 'sw-fair seed=5'
