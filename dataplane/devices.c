/* SPDX-License-Identifier: MIT */
/* RDMA device discovery through libibverbs: which ports exist, how fast, on which node. */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

#include "dp_impl.h"

/* Gbit/s per lane for ibv_port_attr.active_speed (IBTA encoding). */
static unsigned lane_mbps(uint8_t speed)
{
	switch (speed) {
	case 1:
		return 2500; /* SDR */
	case 2:
		return 5000; /* DDR */
	case 4:              /* QDR */
	case 8:
		return 10000; /* FDR10 */
	case 16:
		return 14062; /* FDR */
	case 32:
		return 25781; /* EDR */
	case 64:
		return 53125; /* HDR */
	case 128:
		return 106250; /* NDR */
	default:
		return 0;
	}
}

/* Lanes for ibv_port_attr.active_width. */
static unsigned lanes(uint8_t width)
{
	switch (width) {
	case 1:
		return 1;
	case 2:
		return 4;
	case 4:
		return 8;
	case 8:
		return 12;
	case 16:
		return 2;
	default:
		return 0;
	}
}

static int sysfs_numa_node(const char *ibdev)
{
	char path[256];
	int node = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/infiniband/%s/device/numa_node", ibdev);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%d", &node) != 1)
		node = -1;
	fclose(f);
	return node;
}

/* Stores one entry per port of dev into out[*n..max), counting all of them in *n. */
static void list_ports(struct ibv_device *dev, struct sw_dp_device *out, int max, int *n)
{
	struct ibv_context *vc = ibv_open_device(dev);
	struct ibv_device_attr da;

	if (!vc)
		return;
	if (ibv_query_device(vc, &da) == 0) {
		for (uint8_t p = 1; p <= da.phys_port_cnt; p++) {
			struct ibv_port_attr pa;
			struct sw_dp_device *d;
			if (ibv_query_port(vc, p, &pa))
				continue;
			if (*n < max) {
				d = &out[*n];
				memset(d, 0, sizeof(*d));
				snprintf(d->name, sizeof(d->name), "%s", ibv_get_device_name(dev));
				d->port = p;
				d->numa_node = sysfs_numa_node(d->name);
				d->speed_mbps = (uint64_t)lanes(pa.active_width) *
				                lane_mbps(pa.active_speed);
				d->active = pa.state == IBV_PORT_ACTIVE;
				d->link_layer_eth = pa.link_layer == IBV_LINK_LAYER_ETHERNET;
			}
			(*n)++;
		}
	}
	ibv_close_device(vc);
}

int sw_dp_devices(struct sw_dp_device *out, int max)
{
	struct ibv_device **list;
	int num = 0, n = 0;

	if (max < 0 || (max && !out))
		return -EINVAL;
	/* Without kernel RDMA support this fails with ENOSYS; with it but no NIC, num is 0. */
	list = ibv_get_device_list(&num);
	if (!list)
		return -ENODEV;
	for (int i = 0; i < num; i++)
		list_ports(list[i], out, max, &n);
	ibv_free_device_list(list);
	return n ? n : -ENODEV;
}

int sw_dp_nic_numa_node(void)
{
	struct sw_dp_device d;

	return sw_dp_devices(&d, 1) > 0 ? d.numa_node : -1;
}
