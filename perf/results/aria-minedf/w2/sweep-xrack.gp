$line0 << EOD
0 "perf/mixes/aria-w2-1.jsonl" 1.0000
1 "perf/mixes/aria-w2-2.jsonl" 1.0000
2 "perf/mixes/aria-w2-3.jsonl" 1.0000
3 "perf/mixes/aria-w2-4.jsonl" 1.0000
4 "perf/mixes/aria-w2-5.jsonl" 1.0000
EOD
$line1 << EOD
0 "perf/mixes/aria-w2-1.jsonl" 1.0000
1 "perf/mixes/aria-w2-2.jsonl" 1.0000
2 "perf/mixes/aria-w2-3.jsonl" 1.0000
3 "perf/mixes/aria-w2-4.jsonl" 1.0000
4 "perf/mixes/aria-w2-5.jsonl" 1.0000
EOD
$line2 << EOD
0 "perf/mixes/aria-w2-1.jsonl" 1.0000
1 "perf/mixes/aria-w2-2.jsonl" 1.0000
2 "perf/mixes/aria-w2-3.jsonl" 1.0000
3 "perf/mixes/aria-w2-4.jsonl" 1.0000
4 "perf/mixes/aria-w2-5.jsonl" 1.0000
EOD
$line3 << EOD
0 "perf/mixes/aria-w2-1.jsonl" 0.9935
1 "perf/mixes/aria-w2-2.jsonl" 1.0028
2 "perf/mixes/aria-w2-3.jsonl" 1.0064
3 "perf/mixes/aria-w2-4.jsonl" 0.9884
4 "perf/mixes/aria-w2-5.jsonl" 0.9902
EOD
$line4 << EOD
0 "perf/mixes/aria-w2-1.jsonl" 1.0060
1 "perf/mixes/aria-w2-2.jsonl" 1.0042
2 "perf/mixes/aria-w2-3.jsonl" 0.9997
3 "perf/mixes/aria-w2-4.jsonl" 0.9928
4 "perf/mixes/aria-w2-5.jsonl" 0.9967
EOD
$line5 << EOD
0 "perf/mixes/aria-w2-1.jsonl" 1.0014
1 "perf/mixes/aria-w2-2.jsonl" 0.9953
2 "perf/mixes/aria-w2-3.jsonl" 0.9998
3 "perf/mixes/aria-w2-4.jsonl" 0.9928
4 "perf/mixes/aria-w2-5.jsonl" 0.9955
EOD
$line6 << EOD
0 "perf/mixes/aria-w2-1.jsonl" 1.0002
1 "perf/mixes/aria-w2-2.jsonl" 1.0027
2 "perf/mixes/aria-w2-3.jsonl" 1.0003
3 "perf/mixes/aria-w2-4.jsonl" 0.9998
4 "perf/mixes/aria-w2-5.jsonl" 0.9999
EOD
$line7 << EOD
0 "perf/mixes/aria-w2-1.jsonl" 0.9999
1 "perf/mixes/aria-w2-2.jsonl" 1.0000
2 "perf/mixes/aria-w2-3.jsonl" 1.0000
3 "perf/mixes/aria-w2-4.jsonl" 1.0000
4 "perf/mixes/aria-w2-5.jsonl" 0.9999
EOD
$line8 << EOD
0 "perf/mixes/aria-w2-1.jsonl" 0.9987
1 "perf/mixes/aria-w2-2.jsonl" 1.0014
2 "perf/mixes/aria-w2-3.jsonl" 1.0002
3 "perf/mixes/aria-w2-4.jsonl" 1.0002
4 "perf/mixes/aria-w2-5.jsonl" 1.0007
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
