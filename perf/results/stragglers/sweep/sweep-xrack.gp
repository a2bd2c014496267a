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
1 "1" 1.0004
2 "2" 1.0003
3 "3" 1.0010
4 "4" 0.9988
5 "5" 0.9994
6 "6" 0.9976
7 "7" 0.9978
8 "8" 0.9981
EOD
$line4 << EOD
1 "1" 1.0004
2 "2" 1.0003
3 "3" 0.9965
4 "4" 0.9994
5 "5" 1.0001
6 "6" 0.9966
7 "7" 1.0005
8 "8" 1.0018
EOD
$line5 << EOD
1 "1" 0.9983
2 "2" 0.9976
3 "3" 0.9983
4 "4" 1.0021
5 "5" 0.9998
6 "6" 0.9968
7 "7" 1.0026
8 "8" 1.0001
EOD
$line6 << EOD
1 "1" 0.9865
2 "2" 0.9799
3 "3" 0.9769
4 "4" 0.9858
5 "5" 0.9852
6 "6" 0.9878
7 "7" 0.9829
8 "8" 0.9768
EOD
$line7 << EOD
1 "1" 0.9857
2 "2" 0.9780
3 "3" 0.9763
4 "4" 0.9862
5 "5" 0.9855
6 "6" 0.9873
7 "7" 0.9835
8 "8" 0.9816
EOD
$line8 << EOD
1 "1" 0.9858
2 "2" 0.9777
3 "3" 0.9768
4 "4" 0.9878
5 "5" 0.9860
6 "6" 0.9880
7 "7" 0.9823
8 "8" 0.9795
EOD
$line9 << EOD
1 "1" 0.9868
2 "2" 0.9809
3 "3" 0.9790
4 "4" 0.9863
5 "5" 0.9862
6 "6" 0.9868
7 "7" 0.9836
8 "8" 0.9777
EOD
$line10 << EOD
1 "1" 0.9855
2 "2" 0.9784
3 "3" 0.9776
4 "4" 0.9865
5 "5" 0.9852
6 "6" 0.9864
7 "7" 0.9821
8 "8" 0.9806
EOD
$line11 << EOD
1 "1" 0.9853
2 "2" 0.9784
3 "3" 0.9788
4 "4" 0.9881
5 "5" 0.9865
6 "6" 0.9861
7 "7" 0.9810
8 "8" 0.9798
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
