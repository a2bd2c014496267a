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
12 "12" 1.0008
36 "36" 1.0010
120 "120" 0.9999
360 "360" 0.9992
EOD
$line3 << EOD
12 "12" 0.9998
36 "36" 1.0012
120 "120" 0.9996
360 "360" 1.0022
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
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair starvation-window=0', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fair starvation-window=600', \
     $line2 using 1:3 with linespoints lw 1.5 title 'sw-fair starvation-window=0', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-fair starvation-window=600'
