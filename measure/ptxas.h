// Validating CUDA kernels without a GPU: NVIDIA's PTX assembler (ptxas) checks
// the PTX Halide generated for a compute capability and reports what each kernel
// uses. Registers and spills are features for the cost model and reasons to drop
// a candidate before it ever reaches a GPU.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json_fwd.hpp>

namespace tlp {

// What ptxas reported, the maximum over the kernels of one PTX module.
struct PtxasReport {
  int kernels = 0;
  int registers = 0;          // per thread
  int spill_store_bytes = 0;  // per thread
  int spill_load_bytes = 0;
  int stack_bytes = 0;
  int static_shared_bytes = 0;  // per block (Halide's shared allocations are dynamic: not counted here)

  nlohmann::json to_json() const;
  static PtxasReport from_json(const nlohmann::json &j);  // missing fields read as 0
  bool operator==(const PtxasReport &o) const;
};

// ptxas rejected the PTX (or could not be run); what() holds its messages.
class PtxasError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Parses the output of `ptxas -v` (lines "Compiling entry function ...",
// "N bytes stack frame, N bytes spill stores, N bytes spill loads",
// "Used N registers, N bytes smem, ...").
PtxasReport parse_ptxas_verbose(const std::string &output);

// The ptxas to run: $TLP_PTXAS, else /usr/local/cuda/bin/ptxas, else ptxas on
// PATH; empty when there is none.
std::string find_ptxas();

// Assembles `ptx` for sm_<capability> (e.g. 80) in `scratch_dir` and reports
// its resource use. Throws PtxasError with ptxas's messages when it rejects the
// PTX, and when no ptxas is installed (saying where it was looked for).
PtxasReport validate_ptx(const std::string &ptx, int capability, const std::string &scratch_dir);

}  // namespace tlp
