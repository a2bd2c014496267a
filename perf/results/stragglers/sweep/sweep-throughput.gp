$line0 << EOD
1 "1" 1.0000
2 "2" 1.0000
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0000
6 "6" 1.0000
7 "7" 1.0000
8 "8" 1.0000
EOD
$line1 << EOD
1 "1" 1.0000
2 "2" 1.0000
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0000
6 "6" 1.0000
7 "7" 1.0000
8 "8" 1.0000
EOD
$line2 << EOD
1 "1" 1.0000
2 "2" 1.0000
3 "3" 1.0000
4 "4" 1.0000
5 "5" 1.0000
6 "6" 1.0000
7 "7" 1.0000
8 "8" 1.0000
EOD
$line3 << EOD
1 "1" 1.0000
2 "2" 0.9925
3 "3" 1.0000
4 "4" 0.9922
5 "5" 1.0092
6 "6" 1.0083
7 "7" 1.0000
8 "8" 1.0000
EOD
$line4 << EOD
1 "1" 0.9925
2 "2" 1.0074
3 "3" 0.9843
4 "4" 1.0236
5 "5" 1.0000
6 "6" 1.0083
7 "7" 1.0000
8 "8" 1.0000
EOD
$line5 << EOD
1 "1" 0.9925
2 "2" 0.9779
3 "3" 1.0000
4 "4" 1.0079
5 "5" 1.0091
6 "6" 1.0000
7 "7" 1.0000
8 "8" 1.0081
EOD
$line6 << EOD
1 "1" 1.0229
2 "2" 0.9776
3 "3" 1.0078
4 "4" 0.9922
5 "5" 1.0000
6 "6" 1.0083
7 "7" 0.9778
8 "8" 1.0082
EOD
$line7 << EOD
1 "1" 0.9851
2 "2" 1.0000
3 "3" 1.0157
4 "4" 1.0079
5 "5" 1.0090
6 "6" 1.0083
7 "7" 0.9852
8 "8" 1.0164
EOD
$line8 << EOD
1 "1" 0.9851
2 "2" 1.0074
3 "3" 0.9843
4 "4" 1.0159
5 "5" 1.0273
6 "6" 0.9917
7 "7" 0.9926
8 "8" 1.0000
EOD
$line9 << EOD
1 "1" 1.0076
2 "2" 0.9925
3 "3" 1.0078
4 "4" 1.0000
5 "5" 1.0092
6 "6" 1.0083
7 "7" 0.9852
8 "8" 1.0246
EOD
$line10 << EOD
1 "1" 0.9552
2 "2" 1.0000
3 "3" 1.0079
4 "4" 1.0157
5 "5" 1.0000
6 "6" 1.0167
7 "7" 1.0000
8 "8" 1.0164
EOD
$line11 << EOD
1 "1" 0.9627
2 "2" 0.9853
3 "3" 1.0079
4 "4" 1.0159
5 "5" 0.9909
6 "6" 1.0000
7 "7" 0.9926
8 "8" 1.0081
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'seed'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3 with linespoints lw 1.5 title 'fair straggler-rate=0', \
     $line1 using 1:3 with linespoints lw 1.5 title 'fair straggler-rate=0.05', \
     $line2 using 1:3 with linespoints lw 1.5 title 'fair straggler-rate=0.1', \
     $line3 using 1:3 with linespoints lw 1.5 title 'sw-fair straggler-rate=0', \
     $line4 using 1:3 with linespoints lw 1.5 title 'sw-fair straggler-rate=0.05', \
     $line5 using 1:3 with linespoints lw 1.5 title 'sw-fair straggler-rate=0.1', \
     $line6 using 1:3 with linespoints lw 1.5 title 'delay straggler-rate=0', \
     $line7 using 1:3 with linespoints lw 1.5 title 'delay straggler-rate=0.05', \
     $line8 using 1:3 with linespoints lw 1.5 title 'delay straggler-rate=0.1', \
     $line9 using 1:3 with linespoints lw 1.5 title 'sw-relaxed straggler-rate=0', \
     $line10 using 1:3 with linespoints lw 1.5 title 'sw-relaxed straggler-rate=0.05', \
     $line11 using 1:3 with linespoints lw 1.5 title 'sw-relaxed straggler-rate=0.1'
