#!/usr/bin/env bash
# Installs everything tlptune needs on Debian 12, from Debian's packages only.
set -euo pipefail
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# ocl-icd-opencl-dev: oneDNN's CMake config requires OpenCL; it is only a
# Recommends of libdnnl-dev, which --no-install-recommends would skip.
$SUDO apt-get install -y -qq --no-install-recommends \
  build-essential cmake ninja-build \
  libhalide14-0-dev llvm-14-dev \
  libtorch-dev \
  libcli11-dev nlohmann-json3-dev \
  libgtest-dev \
  libopenblas-dev libdnnl-dev \
  libonnx-dev libprotobuf-dev \
  openmpi-bin libopenmpi-dev \
  ocl-icd-opencl-dev >/dev/null
echo "tlptune dependencies are installed"
