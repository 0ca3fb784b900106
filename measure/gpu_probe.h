// What GPU a machine has, asked of the NVIDIA driver (libcuda, opened at run
// time: the runner that uses this links no CUDA and runs where none is
// installed). GPU records name their platform from it.
#pragma once

#include <string>

namespace tlp {

struct GpuDescription {
  std::string name;  // "NVIDIA H200"
  int capability = 0;          // 90 for 9.0
  int multiprocessors = 0;
  int max_threads_per_block = 0;
  int shared_bytes_per_block = 0;  // without opt-in
  int registers_per_block = 0;
  long long memory_bytes = 0;

  // "cuda/NVIDIA H200/sm_90/sms=132": the platform records carry.
  std::string platform() const;
};

// The first CUDA device. Throws std::runtime_error when there is no driver or no
// device, saying which.
GpuDescription probe_gpu();

}  // namespace tlp
