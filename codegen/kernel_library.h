// One static library holding many kernels for one CPU target, with their weight
// packings and a single Halide runtime: what `tlptune export` ships for a network.
// Each kernel keeps its own entry points (`function`, `function`_argv, and the
// packings' packing_entry(function, ...)), so one library serves every task.
#pragma once

#include <string>
#include <vector>

#include "Halide.h"
#include "codegen/lower.h"
#include "codegen/operator.h"

namespace tlp {

// "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1" ->
// "conv2d_N1_C64_H56_W56_K64_R3_S3_stride1_pad1": a C identifier and a file name.
std::string workload_identifier(const std::string &workload);

struct LibraryKernel {
  std::string function;    // its C entry point
  const Operator *op = nullptr;
  LoweredKernel kernel;
};

// Compiles every kernel (objects in `work_dir`, which must exist) and archives
// them with one runtime into `library_path`. Returns, per kernel, the entry
// points of its packings in Operator::packed_inputs() order. Throws
// std::runtime_error when a compilation or `ar` fails, or for a GPU target.
std::vector<std::vector<std::string>> build_kernel_library(const std::vector<LibraryKernel> &kernels,
                                                           const Halide::Target &target, const std::string &work_dir,
                                                           const std::string &library_path);

}  // namespace tlp
