// The packing pipelines of an operator's packed inputs (Operator::packed_inputs):
// each reorders one plain tensor into the order the kernel reads, once, at load
// time. They are compiled beside the kernel, into the same library, under entry
// points named after the kernel's, so whoever holds the kernel holds its packing.
#pragma once

#include <string>

#include "Halide.h"
#include "codegen/operator.h"

namespace tlp {

// The entry point that packs input `p.input` of the kernel `kernel_entry`
// ("tlp_kernel" -> "tlp_kernel_pack1"). Its arguments: the plain tensor, then the
// packed one, both dense in Halide order.
std::string packing_entry(const std::string &kernel_entry, const PackedInput &p);

struct LoweredPacking {
  Halide::ImageParam user;  // the plain tensor, bounds pinned to PackedInput::user_shape
  Halide::Func packed;      // scheduled: parallel over its outermost axis, vectorized innermost
};

// Packing j of `op`, ready to compile for any CPU target.
LoweredPacking lower_packing(const Operator &op, size_t j);

// Compiles every packing of `op` into objects without Halide's runtime (the kernel's
// runtime serves them), one per packing, at object_prefix + "_pack<input>.o".
// Returns their paths; none when the operator packs nothing. A GPU target's
// packings run on its host.
std::vector<std::string> compile_packing_objects(const Operator &op, const Halide::Target &target,
                                                 const std::string &object_prefix, const std::string &kernel_entry);

// For users: each packing as PREFIX_pack<input>.a and .h, without Halide's runtime
// (link them with the kernel's library, which has it), entry points as
// packing_entry(kernel_entry, ...). Returns the entry point names, in packing order.
std::vector<std::string> compile_packing_static_libraries(const Operator &op, const Halide::Target &target,
                                                          const std::string &prefix, const std::string &kernel_entry);

}  // namespace tlp
