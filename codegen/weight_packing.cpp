#include "codegen/weight_packing.h"

#include "codegen/kernel_compiler.h"

namespace tlp {

std::string packing_entry(const std::string &kernel_entry, const PackedInput &p) {
  return kernel_entry + "_pack" + std::to_string(p.input);
}

LoweredPacking lower_packing(const Operator &op, size_t j) {
  const PackedInput p = op.packed_inputs().at(j);
  LoweredPacking out{Halide::ImageParam(Halide::Float(32), int(p.user_shape.size()), "user"), Halide::Func()};
  for (size_t d = 0; d < p.user_shape.size(); ++d) out.user.dim(int(d)).set_bounds(0, int(p.user_shape[d]));
  out.packed = op.build_packing(j, out.user);
  const Shape shape = op.input_shapes().at(size_t(p.input));
  const std::vector<Halide::Var> args = out.packed.args();
  if (shape.front() % 8 == 0) out.packed.vectorize(args.front(), 8);
  out.packed.parallel(args.back());
  return out;
}

namespace {

Halide::Target packing_target(const Halide::Target &target) {
  return target.without_feature(Halide::Target::CUDA).with_feature(Halide::Target::NoRuntime);
}

}  // namespace

std::vector<std::string> compile_packing_static_libraries(const Operator &op, const Halide::Target &target,
                                                          const std::string &prefix, const std::string &kernel_entry) {
  std::vector<std::string> entries;
  const std::vector<PackedInput> packed = op.packed_inputs();
  for (size_t j = 0; j < packed.size(); ++j) {
    LoweredPacking p = lower_packing(op, j);
    entries.push_back(packing_entry(kernel_entry, packed[j]));
    const std::string lib = prefix + "_pack" + std::to_string(packed[j].input);
    Halide::Pipeline(p.packed).compile_to_static_library(lib, {p.user}, entries.back(), packing_target(target));
    name_include_guard_after_entry(lib + ".h", entries.back());
  }
  return entries;
}

std::vector<std::string> compile_packing_objects(const Operator &op, const Halide::Target &target,
                                                 const std::string &object_prefix, const std::string &kernel_entry) {
  std::vector<std::string> objects;
  const std::vector<PackedInput> packed = op.packed_inputs();
  const Halide::Target host = packing_target(target);
  for (size_t j = 0; j < packed.size(); ++j) {
    LoweredPacking p = lower_packing(op, j);
    const std::string object = object_prefix + "_pack" + std::to_string(packed[j].input) + ".o";
    Halide::Pipeline(p.packed).compile_to_object(object, {p.user}, packing_entry(kernel_entry, packed[j]), host);
    objects.push_back(object);
  }
  return objects;
}

}  // namespace tlp
