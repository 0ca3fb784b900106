// Counts invalid schedules over many samples per operator (lowering plus Halide's
// compile to its IR module). A measurement, run by hand:
//   build/bin/space_validity_census 1000
#include <cstdio>
#include <cstdlib>
#include <random>

#include "codegen/lower.h"
#include "codegen/operator.h"
#include "search/schedule_space.h"

int main(int argc, char **argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 1000;
  const char *ops[] = {"matmul",          "batch_matmul",     "conv2d",  "conv2d:layout=NHWC",
                       "depthwise_conv2d", "dense_bias_relu", "conv2d_bias_relu", "softmax",
                       "layernorm",       "max_pool2d"};
  for (const char *spec : ops) {
    auto op = tlp::make_operator(spec);
    const tlp::ComputeDag dag = tlp::make_compute_dag(*op);
    tlp::ScheduleSpace space(dag, tlp::SpaceOptions{});
    std::mt19937_64 rng(2026);
    int invalid = 0;
    for (int i = 0; i < samples; ++i) {
      try {
        tlp::LoweredKernel k = tlp::lower_schedule(*op, dag, space.sample(rng), Halide::get_host_target());
        Halide::Pipeline(k.output).compile_to_module(k.arguments(), "k", Halide::get_host_target());
      } catch (const std::exception &e) {
        if (invalid++ == 0) fprintf(stderr, "%s: %s\n", spec, e.what());
      }
    }
    printf("%-22s %d/%d invalid (%.2f%%)\n", spec, invalid, samples, 100.0 * invalid / samples);
    fflush(stdout);
  }
  return 0;
}
