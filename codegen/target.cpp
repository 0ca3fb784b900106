#include "codegen/target.h"

namespace tlp {

Halide::Target parse_target(const std::string &spec) {
  if (spec.empty() || spec == "host") return Halide::get_host_target();
  if (!Halide::Target::validate_target_string(spec))
    throw TargetError("unknown target '" + spec +
                      "': use 'host' or a Halide target string such as x86-64-linux-avx2 or "
                      "x86-64-linux-avx512_skylake");
  return Halide::Target(spec);
}

bool target_runs_here(const Halide::Target &t) {
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

int vector_lanes_f32(const Halide::Target &t) { return t.natural_vector_size(Halide::Float(32)); }

}  // namespace tlp
