// Times a kernel exported by `tlptune replay`, independently of tlptune's runner:
// an example of calling the exported library, and a check of the figures tlptune
// reports. Built by examples/time-exported-kernel.sh, which defines KERNEL_ARGV.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <random>
#include <vector>

#include <nlohmann/json.hpp>

#include "HalideBuffer.h"

extern "C" int KERNEL_ARGV(void **args);

int main(int argc, char **argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: %s KERNEL_DIR/kernel.json\n", argv[0]);
    return 2;
  }
  const auto info = nlohmann::json::parse(std::ifstream(argv[1]));
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> dist(-1, 1);
  std::vector<Halide::Runtime::Buffer<float>> buffers;
  for (const auto &shape : info.at("input_shapes")) {
    buffers.emplace_back(shape.get<std::vector<int>>());
    buffers.back().for_each_value([&](float &v) { v = dist(rng); });
  }
  buffers.emplace_back(info.at("output_shape").get<std::vector<int>>());
  std::vector<void *> args;
  for (auto &b : buffers) args.push_back(b.raw_buffer());
  for (int i = 0; i < 3; ++i)
    if (KERNEL_ARGV(args.data()) != 0) return 1;
  std::vector<double> times;
  double total = 0;
  while (times.size() < 10 || total < 1.0) {
    const auto t0 = std::chrono::steady_clock::now();
    KERNEL_ARGV(args.data());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    times.push_back(s);
    total += s;
  }
  std::sort(times.begin(), times.end());
  const double median = times[times.size() / 2];
  const double flops = info.at("median_seconds").get<double>() * info.at("gflops").get<double>() * 1e9;
  printf("%s: median %.4f ms over %zu runs, %.2f GFLOP/s (tlptune measured %.2f GFLOP/s)\n",
         info.at("workload").get<std::string>().c_str(), median * 1e3, times.size(), flops / median / 1e9,
         info.at("gflops").get<double>());
  return 0;
}
