# Renders tasks.png from running-*.csv: gnuplot tasks.gp
set terminal pngcairo size 1400,940 font ',10'
set output 'tasks.png'
set datafile separator ','
set multiplot layout 3,2 title 'Running tasks per job, perf/mixes/polo-ch3-relaxed.jsonl'
set xlabel 'time (s)'
set xrange [0:5327]
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set key outside right top
set title 'fair: maps'
set ylabel 'running maps'
plot 'running-fair.csv' index 0 using 2:3 with steps lc 1 dt 1 title 'job 1', \
     'running-fair.csv' index 1 using 2:3 with steps lc 2 dt 1 title 'job 2', \
     'running-fair.csv' index 2 using 2:3 with steps lc 3 dt 1 title 'job 3', \
     'running-fair.csv' index 3 using 2:3 with steps lc 4 dt 1 title 'job 4', \
     'running-fair.csv' index 4 using 2:3 with steps lc 5 dt 1 title 'job 5'
set title 'fair: reduces'
set ylabel 'running reduces'
plot 'running-fair.csv' index 0 using 2:4 with steps lc 1 dt 1 title 'job 1', \
     'running-fair.csv' index 1 using 2:4 with steps lc 2 dt 1 title 'job 2', \
     'running-fair.csv' index 2 using 2:4 with steps lc 3 dt 1 title 'job 3', \
     'running-fair.csv' index 3 using 2:4 with steps lc 4 dt 1 title 'job 4', \
     'running-fair.csv' index 4 using 2:4 with steps lc 5 dt 1 title 'job 5'
set key outside right top
set title 'adaptive: maps'
set ylabel 'running maps'
plot 'running-adaptive.csv' index 0 using 2:3 with steps lc 1 dt 1 title 'job 1', \
     'running-adaptive.csv' index 1 using 2:3 with steps lc 2 dt 1 title 'job 2', \
     'running-adaptive.csv' index 2 using 2:3 with steps lc 3 dt 1 title 'job 3', \
     'running-adaptive.csv' index 3 using 2:3 with steps lc 4 dt 1 title 'job 4', \
     'running-adaptive.csv' index 4 using 2:3 with steps lc 5 dt 1 title 'job 5'
set title 'adaptive: reduces'
set ylabel 'running reduces'
plot 'running-adaptive.csv' index 0 using 2:4 with steps lc 1 dt 1 title 'job 1', \
     'running-adaptive.csv' index 1 using 2:4 with steps lc 2 dt 1 title 'job 2', \
     'running-adaptive.csv' index 2 using 2:4 with steps lc 3 dt 1 title 'job 3', \
     'running-adaptive.csv' index 3 using 2:4 with steps lc 4 dt 1 title 'job 4', \
     'running-adaptive.csv' index 4 using 2:4 with steps lc 5 dt 1 title 'job 5'
set key outside right top
set title 'fifo: maps'
set ylabel 'running maps'
plot 'running-fifo.csv' index 0 using 2:3 with steps lc 1 dt 1 title 'job 1', \
     'running-fifo.csv' index 1 using 2:3 with steps lc 2 dt 1 title 'job 2', \
     'running-fifo.csv' index 2 using 2:3 with steps lc 3 dt 1 title 'job 3', \
     'running-fifo.csv' index 3 using 2:3 with steps lc 4 dt 1 title 'job 4', \
     'running-fifo.csv' index 4 using 2:3 with steps lc 5 dt 1 title 'job 5'
set title 'fifo: reduces'
set ylabel 'running reduces'
plot 'running-fifo.csv' index 0 using 2:4 with steps lc 1 dt 1 title 'job 1', \
     'running-fifo.csv' index 1 using 2:4 with steps lc 2 dt 1 title 'job 2', \
     'running-fifo.csv' index 2 using 2:4 with steps lc 3 dt 1 title 'job 3', \
     'running-fifo.csv' index 3 using 2:4 with steps lc 4 dt 1 title 'job 4', \
     'running-fifo.csv' index 4 using 2:4 with steps lc 5 dt 1 title 'job 5'
unset multiplot
