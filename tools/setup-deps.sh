#!/bin/sh
# Installs every build, test and benchmark dependency of shufflewatch from Debian's
# archive. Run as root on Debian 12 (bookworm). Safe to run again.
set -eu
export DEBIAN_FRONTEND=noninteractive
if [ "$(id -u)" != 0 ]; then
	if command -v sudo >/dev/null 2>&1; then
		exec sudo "$0" "$@"
	fi
	echo "setup-deps.sh: run as root (it calls apt-get)" >&2
	exit 1
fi
apt-get update -qq
apt-get install -y -qq --no-install-recommends \
	meson ninja-build pkg-config gcc g++ clang libclang-rt-14-dev \
	libcmocka-dev libbenchmark-dev libjansson-dev gnuplot-nox \
	libucx-dev ucx-utils libibverbs-dev librdmacm-dev libnuma-dev libjemalloc-dev \
	liburing-dev libisal-dev libssl-dev nettle-dev liblz4-dev libzstd-dev \
	libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev libsqlite3-dev libsystemd-dev \
	libmnl-dev libdpdk-dev prometheus systemd \
	iperf3 valgrind iproute2 procps curl >/dev/null
