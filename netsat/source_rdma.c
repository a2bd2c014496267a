/* SPDX-License-Identifier: MIT */
/*
 * "rdma": an RDMA port's counters in sysfs, ROOT/DEVICE/ports/PORT/counters/. The data
 * counters (port_rcv_data, port_xmit_data) count 4-byte words, as the InfiniBand spec has
 * them; this source returns bytes. RDMA devices are not in network namespaces here: the
 * source takes no netns.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "source.h"

struct rdma_source {
	struct sw_netsat_source base;
	char dir[PATH_MAX]; /* .../ports/PORT/counters */
};

/* One counter file: decimal digits and an optional newline, nothing else. */
static int read_counter(struct rdma_source *r, const char *name, uint64_t scale, uint64_t *v)
{
	char path[PATH_MAX + 32], text[32];
	ssize_t len;
	uint64_t x = 0;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", r->dir, name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return sw_netsat_fail(&r->base, -errno, "%s: %s", path, strerror(errno));
	len = read(fd, text, sizeof(text) - 1);
	if (len < 0) {
		int e = errno;

		close(fd);
		return sw_netsat_fail(&r->base, -e, "%s: %s", path, strerror(e));
	}
	close(fd);
	text[len] = '\0';
	if (len && text[len - 1] == '\n')
		text[--len] = '\0';
	if (!len)
		return sw_netsat_fail(&r->base, -EBADMSG, "%s: empty, not a counter", path);
	for (ssize_t i = 0; i < len; i++) {
		unsigned d = (unsigned)(text[i] - '0');

		if (d > 9)
			return sw_netsat_fail(&r->base, -EBADMSG, "%s: '%s' is not a counter", path,
			                      text);
		if (x > (UINT64_MAX / scale - d) / 10)
			return sw_netsat_fail(&r->base, -EBADMSG, "%s: %s overflows 64 bits", path,
			                      text);
		x = 10 * x + d;
	}
	*v = x * scale;
	return 0;
}

static int rdma_open(struct sw_netsat_source *src, const struct sw_netsat_source_spec *spec)
{
	struct rdma_source *r = (struct rdma_source *)src;
	const char *root = spec->sysfs_root ? spec->sysfs_root : "/sys/class/infiniband";
	const char *slash = strchr(spec->dev, '/');
	struct stat st;
	char *end;
	unsigned long port;

	if (spec->netns)
		return sw_netsat_fail(src, -EINVAL, "rdma source: takes no network namespace");
	port = slash ? strtoul(slash + 1, &end, 10) : 0;
	if (!slash || slash == spec->dev || !slash[1] || *end || !port || spec->dev[0] == '.')
		return sw_netsat_fail(src, -EINVAL,
		                      "rdma source: '%s' is not DEVICE/PORT (mlx5_0/1)", spec->dev);
	if ((size_t)snprintf(r->dir, sizeof(r->dir), "%s/%.*s/ports/%lu/counters", root,
	                     (int)(slash - spec->dev), spec->dev, port) >= sizeof(r->dir))
		return sw_netsat_fail(src, -EINVAL, "rdma source: path too long");
	if (stat(r->dir, &st) || !S_ISDIR(st.st_mode))
		return sw_netsat_fail(src, -ENOENT, "rdma source: no port counters at %s", r->dir);
	return 0;
}

static int rdma_read(struct sw_netsat_source *src, struct sw_netsat_counters *c)
{
	struct rdma_source *r = (struct rdma_source *)src;
	int rc;

	if ((rc = read_counter(r, "port_rcv_data", 4, &c->rx_bytes)) ||
	    (rc = read_counter(r, "port_xmit_data", 4, &c->tx_bytes)) ||
	    (rc = read_counter(r, "port_rcv_packets", 1, &c->rx_packets)) ||
	    (rc = read_counter(r, "port_xmit_packets", 1, &c->tx_packets)))
		return rc;
	return 0;
}

static void rdma_close(struct sw_netsat_source *src)
{
	(void)src;
}

const struct netsat_source_ops sw_netsat_source_rdma = {
        .kind = "rdma",
        .size = sizeof(struct rdma_source),
        .open = rdma_open,
        .read = rdma_read,
        .close = rdma_close,
};
