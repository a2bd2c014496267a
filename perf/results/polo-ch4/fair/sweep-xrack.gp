$line0 << EOD
0 "perf/mixes/polo-ch4-slots-1.json" 0.0000
1 "perf/mixes/polo-ch4-slots-2.json" 0.0000
2 "perf/mixes/polo-ch4-slots-3.json" 0.0000
3 "perf/mixes/polo-ch4-slots-4.json" 0.0000
4 "perf/mixes/polo-ch4-slots-5.json" 0.0000
5 "perf/mixes/polo-ch4-slots-6.json" 0.0000
6 "perf/mixes/polo-ch4-slots-7.json" 0.0000
7 "perf/mixes/polo-ch4-slots-8.json" 0.0000
EOD
# Renders sweep-xrack.png: gnuplot sweep-xrack.gp
set terminal pngcairo size 900,600 font ',10'
set output 'sweep-xrack.png'
set title 'Cross-rack bytes relative to fair at each point, all jobs'
set xlabel 'topology'
set ylabel 'ratio to fair'
set key outside right top
set grid
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot $line0 using 1:3:xtic(2) with linespoints lw 1.5 title 'fair'
