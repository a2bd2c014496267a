$line0 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0000
1.7857 "1.7857" 1.0000
EOD
$line1 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0000
1.7857 "1.7857" 1.0000
EOD
$line2 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0000
1.7857 "1.7857" 1.0000
EOD
$line3 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0055
1.7857 "1.7857" 1.0016
EOD
$line4 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0117
1.7857 "1.7857" 0.9951
EOD
$line5 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0133
1.7857 "1.7857" 0.9935
EOD
$line6 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0180
1.7857 "1.7857" 1.0113
EOD
$line7 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0211
1.7857 "1.7857" 1.0146
EOD
$line8 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0180
1.7857 "1.7857" 1.0146
EOD
$line9 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0086
1.7857 "1.7857" 1.0073
EOD
$line10 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0070
1.7857 "1.7857" 1.0097
EOD
$line11 << EOD
7.1429 "7.1429" 1.0000
3.5714 "3.5714" 1.0000
2.381 "2.381" 1.0016
1.7857 "1.7857" 1.0073
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
