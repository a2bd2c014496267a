# Renders tasks.png from running-*.csv: gnuplot tasks.gp
set terminal pngcairo size 1400,680 font ',10'
set output 'tasks.png'
set datafile separator ','
set multiplot layout 2,2 title 'Running tasks per job, perf/mixes/polo-ch4-goals.jsonl'
set xlabel 'time (s)'
set xrange [0:5684]
set yrange [0:*]
set offsets 0, 0, graph 0.05, 0
set key outside right top
set title 'ras: maps'
set ylabel 'running maps'
plot 'running-ras.csv' index 0 using 2:3 with steps lc 1 dt 1 title 'job 1', \
     'running-ras.csv' index 1 using 2:3 with steps lc 2 dt 1 title 'job 2', \
     'running-ras.csv' index 2 using 2:3 with steps lc 3 dt 1 title 'job 3', \
     'running-ras.csv' index 3 using 2:3 with steps lc 4 dt 1 title 'job 4', \
     'running-ras.csv' index 4 using 2:3 with steps lc 5 dt 1 title 'job 5', \
     'running-ras.csv' index 5 using 2:3 with steps lc 6 dt 1 title 'job 6', \
     'running-ras.csv' index 6 using 2:3 with steps lc 7 dt 1 title 'job 7', \
     'running-ras.csv' index 7 using 2:3 with steps lc 8 dt 1 title 'job 8', \
     'running-ras.csv' index 8 using 2:3 with steps lc 1 dt 2 title 'job 9'
set title 'ras: reduces'
set ylabel 'running reduces'
plot 'running-ras.csv' index 0 using 2:4 with steps lc 1 dt 1 title 'job 1', \
     'running-ras.csv' index 1 using 2:4 with steps lc 2 dt 1 title 'job 2', \
     'running-ras.csv' index 2 using 2:4 with steps lc 3 dt 1 title 'job 3', \
     'running-ras.csv' index 3 using 2:4 with steps lc 4 dt 1 title 'job 4', \
     'running-ras.csv' index 4 using 2:4 with steps lc 5 dt 1 title 'job 5', \
     'running-ras.csv' index 5 using 2:4 with steps lc 6 dt 1 title 'job 6', \
     'running-ras.csv' index 6 using 2:4 with steps lc 7 dt 1 title 'job 7', \
     'running-ras.csv' index 7 using 2:4 with steps lc 8 dt 1 title 'job 8', \
     'running-ras.csv' index 8 using 2:4 with steps lc 1 dt 2 title 'job 9'
set key outside right top
set title 'fair: maps'
set ylabel 'running maps'
plot 'running-fair.csv' index 0 using 2:3 with steps lc 1 dt 1 title 'job 1', \
     'running-fair.csv' index 1 using 2:3 with steps lc 2 dt 1 title 'job 2', \
     'running-fair.csv' index 2 using 2:3 with steps lc 3 dt 1 title 'job 3', \
     'running-fair.csv' index 3 using 2:3 with steps lc 4 dt 1 title 'job 4', \
     'running-fair.csv' index 4 using 2:3 with steps lc 5 dt 1 title 'job 5', \
     'running-fair.csv' index 5 using 2:3 with steps lc 6 dt 1 title 'job 6', \
     'running-fair.csv' index 6 using 2:3 with steps lc 7 dt 1 title 'job 7', \
     'running-fair.csv' index 7 using 2:3 with steps lc 8 dt 1 title 'job 8', \
     'running-fair.csv' index 8 using 2:3 with steps lc 1 dt 2 title 'job 9'
set title 'fair: reduces'
set ylabel 'running reduces'
plot 'running-fair.csv' index 0 using 2:4 with steps lc 1 dt 1 title 'job 1', \
     'running-fair.csv' index 1 using 2:4 with steps lc 2 dt 1 title 'job 2', \
     'running-fair.csv' index 2 using 2:4 with steps lc 3 dt 1 title 'job 3', \
     'running-fair.csv' index 3 using 2:4 with steps lc 4 dt 1 title 'job 4', \
     'running-fair.csv' index 4 using 2:4 with steps lc 5 dt 1 title 'job 5', \
     'running-fair.csv' index 5 using 2:4 with steps lc 6 dt 1 title 'job 6', \
     'running-fair.csv' index 6 using 2:4 with steps lc 7 dt 1 title 'job 7', \
     'running-fair.csv' index 7 using 2:4 with steps lc 8 dt 1 title 'job 8', \
     'running-fair.csv' index 8 using 2:4 with steps lc 1 dt 2 title 'job 9'
unset multiplot
