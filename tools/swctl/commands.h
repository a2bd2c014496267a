/* SPDX-License-Identifier: MIT */
/* swctl's commands; each returns the process exit status. */
#ifndef SWCTL_COMMANDS_H
#define SWCTL_COMMANDS_H

int cmd_replay(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_experiment(int argc, char **argv);
int cmd_netsat_watch(int argc, char **argv);
int cmd_keygen(int argc, char **argv);
int cmd_replay_trace(int argc, char **argv);
int cmd_submit(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_jobs(int argc, char **argv);
int cmd_cluster(int argc, char **argv);
int cmd_compare(int argc, char **argv);

#endif
