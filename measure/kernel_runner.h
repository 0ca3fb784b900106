// The runner's logic: execute one JSON job (load a kernel library, feed it the
// task's inputs, time it, check its output) and produce one JSON result.
//
// This is compiled only into tlptune-runner, which links no Halide library and no
// Torch: libc, libdl and pthreads, with HalideRuntime.h for the buffer types only.
// The kernel libraries carry their own Halide runtime.
//
// Job (one line):
//   {"id": 7, "artifact": "/abs/k.so", "entry": "kernel", "data_dir": "/abs/task",
//    "warmup": 1, "min_repeats": 3, "max_repeats": 50, "min_seconds": 0.2,
//    "rtol": 1e-3, "threads": 0, "device": "cuda"}
// With "device": "cuda" the inputs are copied to the GPU once, the output lives
// there, every run ends with a device synchronization (inside the timing), and
// the output is copied back for the check. The kernel's own Halide runtime loads
// libcuda, so the runner needs no CUDA to be built.
// Result (one line):
//   {"id": 7, "error": "none"|"runtime_error"|"wrong_answer"|"unknown",
//    "costs": [s, ...], "median": s, "max_abs_error": e|null, "message": "...",
//    "cpu_wait": c}
// cpu_wait: the share of the timed runs' time in which some task waited for a CPU
// (cpu_interference.h); absent where the kernel keeps no CPU pressure accounting
// and when the timed runs took less than kMinCpuWaitWindow in all.
// "unknown" is only for a job line the runner cannot parse. max_abs_error is null
// when the output held NaN/inf where the reference was finite.
//
// data_dir/task.json:
//   {"format": 1, "inputs": [{"file": "in0.f32", "shape": [K, M]}, ...],
//    "output": {"file": "ref.f32", "shape": [N, M]}}
// Format 2 lets an input add "pack": {"entry_suffix": "_pack1", "shape": [...]}: the
// file holds it plain, and the library's ENTRY + entry_suffix + "_argv" (arguments:
// plain, packed) packs it once per job, before the warm-up and the timed runs.
// Files are raw little-endian float32, dense, dim 0 innermost (Halide order);
// relative file names are relative to data_dir. The portable form (written by
// write_portable_task_data, read the same way): an input may be
// {"generate": {"seed": S, "index": I}, "shape": [...]} (generated_task_data.h),
// and the output may add "sample": {"seed": S, "count": C}, when ref.f32 holds
// the reference at only C positions drawn by S; only those are checked.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "measure/task_file.h"

namespace tlp {

class KernelRunner {
 public:
  // Runs one job line and returns its result line (no newline). Never throws:
  // every failure becomes a result.
  std::string handle(const std::string &job_line);

 private:
  struct CachedTask {
    std::string dir;
    std::string stamp;  // task.json's size and mtime: a rewritten task is reloaded
    std::shared_ptr<const TaskData> data;
  };
  std::shared_ptr<const TaskData> task_data(const std::string &dir);

  // Most recently used first; a tuning run uses one task at a time, so two entries
  // cover switching back and forth without holding every task's data.
  std::deque<CachedTask> cache_;
  static constexpr size_t kMaxCachedTasks = 2;
};

}  // namespace tlp
