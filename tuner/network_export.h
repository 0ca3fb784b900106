// tlptune export: the best kernel of every task of a network, from a log, as one
// package a C or C++ project links (codegen/kernel_library.h builds the library):
//
//   DIR/include/tlptune_kernels.h        a function per task, named after it, and a table of them all
//   DIR/include/tlptune_kernels_data.h   the input generator the check data was made with
//   DIR/include/HalideRuntime.h          the buffer type the functions take
//   DIR/lib/libtlptune_kernels.a         every kernel, its weight packings, one Halide runtime
//   DIR/lib/cmake/tlptune_kernels/       find_package(tlptune_kernels) -> tlptune_kernels::kernels
//   DIR/share/tlptune_kernels/kernels.json           what was exported, from where (format below)
//   DIR/share/tlptune_kernels/check/FUNCTION.check   the reference at sampled outputs, for a check
//
// Nothing written names a path of the machine that exported it, so DIR can be moved.
// A task with no valid kernel fails the export unless `allow_missing`; then it is
// left out of the library and named in the header, the manifest and the result.
//
// FUNCTION.check (little-endian): "TLPCHECK", uint32 version (1), uint32 count,
// uint64 seed, float rtol, float mean |reference|, then `count` floats: the
// reference at reference_sample_positions(seed, count, n) of the output, for inputs
// generate_task_input(seed, i, ...) as the user holds them (packed inputs plain).
#pragma once

#include <string>
#include <vector>

namespace tlp {

struct NetworkExportOptions {
  std::string log_path;
  std::string network_path;
  std::string out_dir;
  std::string platform;        // empty: the log's only platform
  bool any_layout = false;     // each task's best kernel in any layout, not only the layout its op names
  bool allow_missing = false;
  size_t check_samples = 4096;  // outputs sampled per kernel in its check file
};

struct ExportedTask {
  std::string op;         // as the network file names it
  double weight = 1;
  std::vector<std::vector<std::string>> onnx_nodes;  // per occurrence
  std::string workload;   // the exported kernel's workload (its concrete layout); empty when missing
  std::string function;   // empty when missing
  double seconds = 0;     // its best measured median
  std::vector<std::string> packings;  // entry points of its weight packings
};

struct NetworkExport {
  std::string network, platform, target;
  std::vector<ExportedTask> tasks;  // in network file order
  int missing = 0;
  double latency = 0;  // Σ weight × seconds over the exported tasks
};

// Throws std::runtime_error with one line naming what was wrong and what to do.
NetworkExport export_network(const NetworkExportOptions &o);

// The manifest format: share/tlptune_kernels/kernels.json says {"format": "tlptune-kernels", "version": 1, ...}.
constexpr int kKernelsManifestVersion = 1;
constexpr int kKernelCheckVersion = 1;

}  // namespace tlp
