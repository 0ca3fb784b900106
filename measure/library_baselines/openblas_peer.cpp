// OpenBLAS's cblas_sgemm on the GEMM workloads, row-major as tlptune's operators.
#include <cblas.h>

#include <algorithm>
#include <stdexcept>

#include "measure/library_baselines/peer_bench.h"

namespace tlp {
namespace peer {

BenchResult bench_openblas(const PeerWorkload &w, const std::vector<std::vector<float>> &inputs,
                           const TimingOptions &timing, int threads) {
  const GemmShape g = gemm_shape(w);
  const std::vector<int64_t> sizes = gemm_input_sizes(g);
  if (inputs.size() != sizes.size()) throw std::runtime_error("expected " + std::to_string(sizes.size()) + " inputs");
  for (size_t i = 0; i < sizes.size(); ++i)
    if (int64_t(inputs[i].size()) != sizes[i])
      throw std::runtime_error("input " + std::to_string(i) + " has " + std::to_string(inputs[i].size()) +
                               " elements; " + w.key + " needs " + std::to_string(sizes[i]));
  openblas_set_num_threads(threads);

  BenchResult r;
  r.threads = openblas_get_num_threads();
  r.output.assign(size_t(gemm_output_size(g)), 0.0f);
  const float *A = inputs[0].data(), *B = inputs[1].data();
  float *C = r.output.data();
  const int M = int(g.M), N = int(g.N), K = int(g.K);
  auto run = [&] {
    for (int64_t b = 0; b < g.batch; ++b)
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, M, N, K, 1.0f, A + b * g.M * g.K, K,
                  B + b * g.K * g.N, N, 0.0f, C + b * g.M * g.N, N);
  };
  r.costs = time_runs(run, timing).costs;
  if (g.bias_relu) {
    // Applied after timing, only so the output can be checked against the reference.
    const float *bias = inputs[2].data();
    for (int64_t m = 0; m < g.M; ++m)
      for (int64_t n = 0; n < g.N; ++n) C[m * g.N + n] = std::max(C[m * g.N + n] + bias[n], 0.0f);
    r.note = "sgemm only: bias add and relu are not timed";
  }
  if (g.batch > 1) r.note += "one cblas_sgemm per batch (" + std::to_string(g.batch) + " calls)";
  const char *core = openblas_get_corename();
  const char *config = openblas_get_config();
  r.kernel = std::string("OpenBLAS cblas_sgemm, core ") + (core ? core : "?") + " (" + (config ? config : "?") + ")";
  r.details = {{"corename", core ? core : ""}, {"config", config ? config : ""}};
  return r;
}

}  // namespace peer
}  // namespace tlp
