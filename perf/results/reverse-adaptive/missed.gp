set terminal pngcairo size 1500,800
set output '/tmp/accel/ra/missed.png'
set datafile separator ','
set multiplot layout 2,3
set key top left
set xlabel 'load'
set ylabel 'missed deadlines (%)'
set yrange [0:100]
set title 'none, deadline U(1.5,4)'
plot '< grep "^none,[^,]*,1.5:4,fifo," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'fifo', '< grep "^none,[^,]*,1.5:4,adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'adaptive', '< grep "^none,[^,]*,1.5:4,ras," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'ras', '< grep "^none,[^,]*,1.5:4,reverse-adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'reverse-adaptive'
set title 'none, deadline U(1.5,8)'
plot '< grep "^none,[^,]*,1.5:8,fifo," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'fifo', '< grep "^none,[^,]*,1.5:8,adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'adaptive', '< grep "^none,[^,]*,1.5:8,ras," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'ras', '< grep "^none,[^,]*,1.5:8,reverse-adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'reverse-adaptive'
set title 'none, deadline U(1.5,12)'
plot '< grep "^none,[^,]*,1.5:12,fifo," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'fifo', '< grep "^none,[^,]*,1.5:12,adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'adaptive', '< grep "^none,[^,]*,1.5:12,ras," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'ras', '< grep "^none,[^,]*,1.5:12,reverse-adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'reverse-adaptive'
set title 'diurnal, deadline U(1.5,4)'
plot '< grep "^diurnal,[^,]*,1.5:4,fifo," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'fifo', '< grep "^diurnal,[^,]*,1.5:4,adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'adaptive', '< grep "^diurnal,[^,]*,1.5:4,ras," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'ras', '< grep "^diurnal,[^,]*,1.5:4,reverse-adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'reverse-adaptive'
set title 'diurnal, deadline U(1.5,8)'
plot '< grep "^diurnal,[^,]*,1.5:8,fifo," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'fifo', '< grep "^diurnal,[^,]*,1.5:8,adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'adaptive', '< grep "^diurnal,[^,]*,1.5:8,ras," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'ras', '< grep "^diurnal,[^,]*,1.5:8,reverse-adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'reverse-adaptive'
set title 'diurnal, deadline U(1.5,12)'
plot '< grep "^diurnal,[^,]*,1.5:12,fifo," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'fifo', '< grep "^diurnal,[^,]*,1.5:12,adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'adaptive', '< grep "^diurnal,[^,]*,1.5:12,ras," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'ras', '< grep "^diurnal,[^,]*,1.5:12,reverse-adaptive," /tmp/accel/ra/missed.csv' using 2:7 with linespoints title 'reverse-adaptive'
unset multiplot
