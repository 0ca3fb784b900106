#!/usr/bin/env bash
# Usage: examples/time-exported-kernel.sh KERNEL_DIR
# Links examples/exported_kernel_timer.cpp against a kernel exported by
# `tlptune replay` and times it on its own.
set -euo pipefail
dir=${1:?usage: $0 KERNEL_DIR (a folder written by tlptune replay)}
name=$(basename "$dir")
here=$(cd "$(dirname "$0")" && pwd)
exe=$(mktemp /tmp/tlptune-timer-XXXXXX)
c++ -O2 -std=c++17 -I"$(dirname "$(find /usr/include -name HalideRuntime.h -print -quit)")" -I"$dir" -DKERNEL_ARGV="${name}_argv" \
  "$here/exported_kernel_timer.cpp" "$dir/$name.a" -o "$exe" -lpthread -ldl
"$exe" "$dir/kernel.json"
rm -f "$exe"
