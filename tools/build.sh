#!/bin/sh
# Configures (once) and builds shufflewatch in ./build; extra arguments go to meson setup.
set -eu
cd "$(dirname "$0")/.."
if [ ! -f build/build.ninja ]; then
	meson setup build "$@"
fi
meson compile -C build
