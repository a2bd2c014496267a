/* SPDX-License-Identifier: MIT */
/* Tests of the dpdk backend on af_packet: a network namespace of the test's own (root). */
#ifndef SW_TEST_DPDK_LO_H
#define SW_TEST_DPDK_LO_H

#include <stdbool.h>

/* Moves this process into a network namespace of its own, with lo up and set so that frames
 * written on it come back to 127.0.0.1, and points SW_DP_DPDK_* at an af_packet port on it.
 * Returns false when the namespace cannot be made (not root). */
bool sw_test_dpdk_lo(void);

#endif
