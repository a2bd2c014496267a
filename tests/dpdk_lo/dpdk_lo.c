/* SPDX-License-Identifier: MIT */
/* dpdk_lo.h: every process of a test gets an af_packet port on the loopback interface of a
 * network namespace made for the run (shared by the test's processes, gone when they are),
 * and its own UDP port from the kernel. */
#include <stdio.h>
#include <stdlib.h>
#include <net/if.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "dpdk_lo.h"

bool sw_test_dpdk_lo(void)
{
	struct ifreq ifr = {.ifr_name = "lo"};
	int fd;
	if (unshare(CLONE_NEWNET) < 0 || (fd = socket(AF_INET, SOCK_DGRAM, 0)) < 0)
		return false;
	bool up = ioctl(fd, SIOCGIFFLAGS, &ifr) == 0 &&
	          (ifr.ifr_flags |= IFF_UP, ioctl(fd, SIOCSIFFLAGS, &ifr) == 0);
	close(fd);
	/* Frames written on lo come back in from 127.0.0.1 to 127.0.0.1: a kernel takes such
	 * frames (and so holds ports and answers for closed ones) only with the first two set;
	 * the third lifts the ICMP rate limit (1000 a second over the namespace, lo included),
	 * so that every frame to a killed process's port is answered. */
	for (int i = 0; i < 3; i++) {
		static const char *const knob[][2] = {
		        {"/proc/sys/net/ipv4/conf/lo/route_localnet", "1"},
		        {"/proc/sys/net/ipv4/conf/lo/accept_local", "1"},
		        {"/proc/sys/net/ipv4/icmp_ratemask", "0"}};
		FILE *f = fopen(knob[i][0], "w");
		up = up && f != NULL && fputs(knob[i][1], f) >= 0;
		up = f != NULL && fclose(f) == 0 && up;
	}
	setenv("SW_DP_DPDK_PORT", "net_af_packet0,iface=lo", 1);
	setenv("SW_DP_DPDK_IP", "127.0.0.1", 1);
	/* lo's MAC: to the broadcast address (no entry) a kernel answers nothing, not even
	 * port unreachable for a SYN to a server that was killed */
	setenv("SW_DP_DPDK_NEIGH", "127.0.0.1=00:00:00:00:00:00", 1);
	return up;
}
