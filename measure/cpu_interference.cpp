#include "measure/cpu_interference.h"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace tlp {

std::optional<CpuSnapshot> cpu_snapshot() {
  // First line: "some avg10=0.00 avg60=0.00 avg300=0.00 total=<microseconds>".
  FILE *f = std::fopen("/proc/pressure/cpu", "r");
  if (!f) return std::nullopt;
  unsigned long long total_us = 0;
  const int n = std::fscanf(f, "some avg10=%*f avg60=%*f avg300=%*f total=%llu", &total_us);
  std::fclose(f);
  if (n != 1) return std::nullopt;
  CpuSnapshot s;
  s.waiting = double(total_us) * 1e-6;
  s.wall = std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return s;
}

double cpu_wait_share(const CpuSnapshot &before, const CpuSnapshot &after) {
  const double wall = after.wall - before.wall;
  if (wall <= 0) return 0;
  return std::clamp((after.waiting - before.waiting) / wall, 0.0, 1.0);
}

}  // namespace tlp
