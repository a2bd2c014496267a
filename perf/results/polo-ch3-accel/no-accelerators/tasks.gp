# Renders tasks.png from running-*.csv: gnuplot tasks.gp
set terminal pngcairo size 1400,680 font ',10'
set output 'tasks.png'
set datafile separator ','
set multiplot layout 2,2 title 'Running tasks per job, perf/mixes/polo-ch3-accel-none.jsonl'
set xlabel 'time (s)'
set xrange [0:5188]
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set key outside right top
set title 'adaptive-hw: maps'
set ylabel 'running maps'
plot 'running-adaptive-hw.csv' index 0 using 2:3 with steps lc 1 dt 1 title 'job 1', \
     'running-adaptive-hw.csv' index 1 using 2:3 with steps lc 2 dt 1 title 'job 2', \
     'running-adaptive-hw.csv' index 2 using 2:3 with steps lc 3 dt 1 title 'job 3'
set title 'adaptive-hw: reduces'
set ylabel 'running reduces'
plot 'running-adaptive-hw.csv' index 0 using 2:4 with steps lc 1 dt 1 title 'job 1', \
     'running-adaptive-hw.csv' index 1 using 2:4 with steps lc 2 dt 1 title 'job 2', \
     'running-adaptive-hw.csv' index 2 using 2:4 with steps lc 3 dt 1 title 'job 3'
set key outside right top
set title 'adaptive: maps'
set ylabel 'running maps'
plot 'running-adaptive.csv' index 0 using 2:3 with steps lc 1 dt 1 title 'job 1', \
     'running-adaptive.csv' index 1 using 2:3 with steps lc 2 dt 1 title 'job 2', \
     'running-adaptive.csv' index 2 using 2:3 with steps lc 3 dt 1 title 'job 3'
set title 'adaptive: reduces'
set ylabel 'running reduces'
plot 'running-adaptive.csv' index 0 using 2:4 with steps lc 1 dt 1 title 'job 1', \
     'running-adaptive.csv' index 1 using 2:4 with steps lc 2 dt 1 title 'job 2', \
     'running-adaptive.csv' index 2 using 2:4 with steps lc 3 dt 1 title 'job 3'
unset multiplot
