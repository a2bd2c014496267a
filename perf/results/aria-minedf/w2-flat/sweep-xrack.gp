$line0 << EOD
0 "perf/mixes/aria-w2-flat-1.jsonl" 1.0000
1 "perf/mixes/aria-w2-flat-2.jsonl" 1.0000
2 "perf/mixes/aria-w2-flat-3.jsonl" 1.0000
3 "perf/mixes/aria-w2-flat-4.jsonl" 1.0000
4 "perf/mixes/aria-w2-flat-5.jsonl" 1.0000
EOD
$line1 << EOD
0 "perf/mixes/aria-w2-flat-1.jsonl" 1.0000
1 "perf/mixes/aria-w2-flat-2.jsonl" 1.0000
2 "perf/mixes/aria-w2-flat-3.jsonl" 1.0000
3 "perf/mixes/aria-w2-flat-4.jsonl" 1.0000
4 "perf/mixes/aria-w2-flat-5.jsonl" 1.0000
EOD
$line2 << EOD
0 "perf/mixes/aria-w2-flat-1.jsonl" 1.0000
1 "perf/mixes/aria-w2-flat-2.jsonl" 1.0000
2 "perf/mixes/aria-w2-flat-3.jsonl" 1.0000
3 "perf/mixes/aria-w2-flat-4.jsonl" 1.0000
4 "perf/mixes/aria-w2-flat-5.jsonl" 1.0000
EOD
$line3 << EOD
0 "perf/mixes/aria-w2-flat-1.jsonl" 1.0331
1 "perf/mixes/aria-w2-flat-2.jsonl" 1.0325
2 "perf/mixes/aria-w2-flat-3.jsonl" 1.0216
3 "perf/mixes/aria-w2-flat-4.jsonl" 0.9884
4 "perf/mixes/aria-w2-flat-5.jsonl" 1.0010
EOD
$line4 << EOD
0 "perf/mixes/aria-w2-flat-1.jsonl" 1.0363
1 "perf/mixes/aria-w2-flat-2.jsonl" 0.9848
2 "perf/mixes/aria-w2-flat-3.jsonl" 1.0109
3 "perf/mixes/aria-w2-flat-4.jsonl" 0.9983
4 "perf/mixes/aria-w2-flat-5.jsonl" 0.9869
EOD
$line5 << EOD
0 "perf/mixes/aria-w2-flat-1.jsonl" 1.0504
1 "perf/mixes/aria-w2-flat-2.jsonl" 0.9893
2 "perf/mixes/aria-w2-flat-3.jsonl" 1.0388
3 "perf/mixes/aria-w2-flat-4.jsonl" 1.0351
4 "perf/mixes/aria-w2-flat-5.jsonl" 0.9693
EOD
$line6 << EOD
0 "perf/mixes/aria-w2-flat-1.jsonl" 1.0032
1 "perf/mixes/aria-w2-flat-2.jsonl" 1.0081
2 "perf/mixes/aria-w2-flat-3.jsonl" 0.9938
3 "perf/mixes/aria-w2-flat-4.jsonl" 0.9864
4 "perf/mixes/aria-w2-flat-5.jsonl" 0.9951
EOD
$line7 << EOD
0 "perf/mixes/aria-w2-flat-1.jsonl" 0.9908
1 "perf/mixes/aria-w2-flat-2.jsonl" 0.9978
2 "perf/mixes/aria-w2-flat-3.jsonl" 1.0057
3 "perf/mixes/aria-w2-flat-4.jsonl" 0.9843
4 "perf/mixes/aria-w2-flat-5.jsonl" 0.9895
EOD
$line8 << EOD
0 "perf/mixes/aria-w2-flat-1.jsonl" 1.0007
1 "perf/mixes/aria-w2-flat-2.jsonl" 0.9982
2 "perf/mixes/aria-w2-flat-3.jsonl" 1.0014
3 "perf/mixes/aria-w2-flat-4.jsonl" 0.9778
4 "perf/mixes/aria-w2-flat-5.jsonl" 1.0015
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to minedf at each point, all jobs'
set xlabel 'mix'
set ylabel 'ratio to minedf'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3:xtic(2) with linespoints lw 1.5 title 'minedf load-threshold=0.85', \
     $line1 using 1:3:xtic(2) with linespoints lw 1.5 title 'minedf load-threshold=0.95', \
     $line2 using 1:3:xtic(2) with linespoints lw 1.5 title 'minedf load-threshold=1.05', \
     $line3 using 1:3:xtic(2) with linespoints lw 1.5 title 'aria load-threshold=0.85', \
     $line4 using 1:3:xtic(2) with linespoints lw 1.5 title 'aria load-threshold=0.95', \
     $line5 using 1:3:xtic(2) with linespoints lw 1.5 title 'aria load-threshold=1.05', \
     $line6 using 1:3:xtic(2) with linespoints lw 1.5 title 'fifo load-threshold=0.85', \
     $line7 using 1:3:xtic(2) with linespoints lw 1.5 title 'fifo load-threshold=0.95', \
     $line8 using 1:3:xtic(2) with linespoints lw 1.5 title 'fifo load-threshold=1.05'
