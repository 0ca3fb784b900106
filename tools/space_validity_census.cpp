// Counts invalid schedules over many samples per operator (lowering plus Halide's
// compile to its IR module). A measurement, run by hand:
//   build/bin/space_validity_census 1000 [OP ...]
// With no operators it covers every operator of the library at its defaults.
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include "codegen/lower.h"
#include "codegen/operator.h"
#include "search/schedule_space.h"

int main(int argc, char **argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 1000;
  std::vector<std::string> ops = {"matmul",
                                  "batch_matmul",
                                  "conv2d",
                                  "conv2d:layout=NHWC",
                                  "conv2d:layout=NCHW16c",
                                  "conv2d_bias_relu:C=128,H=28,W=28,K=128,stride=2,layout=NCHW32c",
                                  "depthwise_conv2d",
                                  "depthwise_conv2d:C=144,H=56,W=56,stride=2,layout=NCHW16c",
                                  "dense_bias_relu",
                                  "conv2d_bias_relu",
                                  "softmax",
                                  "layernorm",
                                  "max_pool2d",
                                  "max_pool2d:layout=NCHW16c",
                                  "layout_convert:from=NCHW16c,to=NHWC",
                                  "conv2d_residual:C=256,H=14,W=14,K=1024,R=1,S=1,pad=0,relu=1",
                                  "conv2d_residual:C=64,K=64,layout=NCHW16c",
                                  "conv2d:C=64,H=56,W=56,K=256,R=1,S=1,pad=0,layout=NCHWgemm",
                                  "conv2d_residual:C=256,H=14,W=14,K=1024,R=1,S=1,pad=0,relu=1,layout=NCHWgemm",
                                  "conv2d_bias_relu:C=1024,H=14,W=14,K=256,R=1,S=1,pad=0,layout=NCHW8cgemm",
                                  "conv2d_residual:C=256,H=7,W=7,K=1024,R=1,S=1,pad=0,relu=1,layout=NCHW16cgemm",
                                  "group_conv2d:C=128,H=28,W=28,K=128,groups=32"};
  if (argc > 2) ops.assign(argv + 2, argv + argc);
  for (const std::string &name : ops) {
    const char *spec = name.c_str();
    auto op = tlp::make_operator(spec);
    const tlp::ComputeDag dag = tlp::make_compute_dag(*op);
    tlp::ScheduleSpace space(dag, tlp::SpaceOptions{});
    std::mt19937_64 rng(2026);
    int invalid = 0;
    for (int i = 0; i < samples; ++i) {
      const tlp::Schedule schedule = space.sample(rng);
      const std::string text = schedule.to_text();
      try {
        tlp::LoweredKernel k = tlp::lower_schedule(*op, dag, schedule, Halide::get_host_target());
        Halide::Pipeline(k.output).compile_to_module(k.arguments(), "k", Halide::get_host_target());
      } catch (const std::exception &e) {
        if (invalid++ == 0) fprintf(stderr, "%s: %s\n  schedule: %s\n", spec, e.what(), text.c_str());
      }
    }
    printf("%-22s %d/%d invalid (%.2f%%)\n", spec, invalid, samples, 100.0 * invalid / samples);
    fflush(stdout);
  }
  return 0;
}
