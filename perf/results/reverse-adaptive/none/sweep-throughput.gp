$line0 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0000
1 "1" 1.0000
EOD
$line1 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0000
1 "1" 1.0000
EOD
$line2 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0000
1 "1" 1.0000
EOD
$line3 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0000
1 "1" 1.0000
EOD
$line4 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0000
1 "1" 1.0000
EOD
$line5 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0000
1 "1" 1.0000
EOD
$line6 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0071
1 "1" 0.9893
EOD
$line7 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0045
1 "1" 0.9883
EOD
$line8 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0053
1 "1" 0.9903
EOD
$line9 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0018
1 "1" 0.9874
EOD
$line10 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0018
1 "1" 0.9942
EOD
$line11 << EOD
5 "5" 1.0000
2.5 "2.5" 1.0000
1.6667 "1.6667" 1.0000
1.25 "1.25" 1.0036
1 "1" 0.9990
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fifo at each point, all jobs'
set xlabel 'time-scale'
set ylabel 'ratio to fifo'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fifo deadline-factor=1.5:4', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fifo deadline-factor=1.5:8', \
     $line2 using 1:3 with linespoints lw 1.5 title 'fifo deadline-factor=1.5:12', \
     $line3 using 1:3 with linespoints lw 1.5 title 'adaptive deadline-factor=1.5:4', \
     $line4 using 1:3 with linespoints lw 1.5 title 'adaptive deadline-factor=1.5:8', \
     $line5 using 1:3 with linespoints lw 1.5 title 'adaptive deadline-factor=1.5:12', \
     $line6 using 1:3 with linespoints lw 1.5 title 'ras deadline-factor=1.5:4', \
     $line7 using 1:3 with linespoints lw 1.5 title 'ras deadline-factor=1.5:8', \
     $line8 using 1:3 with linespoints lw 1.5 title 'ras deadline-factor=1.5:12', \
     $line9 using 1:3 with linespoints lw 1.5 title 'reverse-adaptive deadline-factor=1.5:4', \
     $line10 using 1:3 with linespoints lw 1.5 title 'reverse-adaptive deadline-factor=1.5:8', \
     $line11 using 1:3 with linespoints lw 1.5 title 'reverse-adaptive deadline-factor=1.5:12'
