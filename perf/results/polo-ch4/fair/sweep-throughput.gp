$line0 << EOD
0 "none" 1.0000
1 "reduce" 1.0000
EOD
$line1 << EOD
0 "none" 1.0000
1 "reduce" 1.0000
EOD
$line2 << EOD
0 "none" 1.0000
1 "reduce" 1.0000
EOD
$line3 << EOD
0 "none" 1.0000
1 "reduce" 1.0000
EOD
$line4 << EOD
0 "none" 1.0000
1 "reduce" 1.0000
EOD
$line5 << EOD
0 "none" 1.0000
1 "reduce" 1.0000
EOD
$line6 << EOD
0 "none" 1.0000
1 "reduce" 1.0000
EOD
$line7 << EOD
0 "none" 1.0000
1 "reduce" 1.0000
EOD
# Renders sweep-throughput.png: gnuplot sweep-throughput.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-throughput.png'
set title 'Throughput relative to fair at each point, all jobs'
set xlabel 'copy-memory'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair topology=perf/mixes/polo-ch4-slots-1.json', \
     $line1 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair topology=perf/mixes/polo-ch4-slots-2.json', \
     $line2 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair topology=perf/mixes/polo-ch4-slots-3.json', \
     $line3 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair topology=perf/mixes/polo-ch4-slots-4.json', \
     $line4 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair topology=perf/mixes/polo-ch4-slots-5.json', \
     $line5 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair topology=perf/mixes/polo-ch4-slots-6.json', \
     $line6 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair topology=perf/mixes/polo-ch4-slots-7.json', \
     $line7 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair topology=perf/mixes/polo-ch4-slots-8.json'
