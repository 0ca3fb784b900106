#include "codegen/target.h"

namespace tlp {

Halide::Target parse_target(const std::string &spec) {
  if (spec.empty() || spec == "host") return Halide::get_host_target();
  if (spec == "cuda") return parse_target("cuda_capability_80");
  if (spec.rfind("cuda_capability_", 0) == 0) {
    const std::string full = "host-cuda-" + spec;
    if (!Halide::Target::validate_target_string(full))
      throw TargetError("unknown CUDA capability in '" + spec +
                        "': Halide 14 knows cuda_capability_30, 32, 35, 50, 61, 70, 75, 80 and 86");
    return Halide::Target(full);
  }
  if (!Halide::Target::validate_target_string(spec))
    throw TargetError("unknown target '" + spec +
                      "': use 'host' or a Halide target string such as x86-64-linux-avx2 or "
                      "x86-64-linux-avx512_skylake, or cuda (an NVIDIA GPU)");
  return Halide::Target(spec);
}

bool target_runs_here(const Halide::Target &t) {
  if (t.has_gpu_feature()) return false;
  const Halide::Target host = Halide::get_host_target();
  if (t.arch != host.arch || t.os != host.os || t.bits != host.bits) return false;
  const Halide::Target::Feature isa[] = {
      Halide::Target::SSE41,         Halide::Target::AVX,           Halide::Target::AVX2,
      Halide::Target::FMA,           Halide::Target::F16C,          Halide::Target::AVX512,
      Halide::Target::AVX512_Skylake, Halide::Target::AVX512_Cannonlake, Halide::Target::AVX512_SapphireRapids};
  for (auto f : isa)
    if (t.has_feature(f) && !host.has_feature(f)) return false;
  return true;
}

int cuda_capability(const Halide::Target &t) {
  if (!t.has_feature(Halide::Target::CUDA)) return 0;
  const int c = t.get_cuda_capability_lower_bound();
  return c > 0 ? c : 20;  // Halide's floor when no capability is named
}

int vector_lanes_f32(const Halide::Target &t) { return t.natural_vector_size(Halide::Float(32)); }

}  // namespace tlp
