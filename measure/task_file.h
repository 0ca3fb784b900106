// Task data as the runner and the library peers read it: DIR/task.json (format
// 1, or 2 where an input may be packed) naming each input and the reference output, each either a raw float32
// file or, in the portable form, a seed to generate it from
// (measure/generated_task_data.h); the reference may be a sample of the
// output's elements. measure/task_data.h writes it. Also the output check.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace tlp {

int64_t element_count(const std::vector<int32_t> &shape);

// A dense float32 tensor of the task; shape in Halide order (dim 0 innermost).
struct TaskTensor {
  std::vector<int32_t> shape;
  std::vector<float> data;
};

// An input the kernel reads packed: the task holds it plain (as users do), and the
// kernel library's entry point ENTRY + entry_suffix packs it, once, before timing.
struct TaskPacking {
  size_t input = 0;
  std::string entry_suffix;            // "_pack1"
  std::vector<int32_t> packed_shape;   // Halide order
};

struct TaskData {
  std::string workload;  // the workload key task.json names ("" when it names none)
  std::vector<TaskTensor> inputs;      // as users hold them: packed inputs plain
  std::vector<TaskPacking> packings;
  TaskTensor reference;  // the output's shape; data: every element, or those at reference_positions
  std::vector<size_t> reference_positions;  // empty: the reference is dense
  double mean_abs_reference = 0;  // mean of |ref| over its finite elements
};

// data_dir/task.json.
std::string task_file_path(const std::string &data_dir);

// Reads data_dir/task.json and its files. Throws std::runtime_error whose message
// names the file that is missing or wrong.
TaskData load_task_data(const std::string &data_dir);

struct OutputCheck {
  bool ok = true;
  double max_abs_error = 0;  // +inf when a non-finite value stood for a finite one
  std::string message;       // the first mismatch, when !ok
};

// Compares out (ref.shape's element count) against the reference: wrong where the
// reference is finite and out is NaN/inf, or |out - ref| > rtol * (|ref| + mean|ref|)
// + kCheckAbsoluteFloor (measure/timing_protocol.h). Elements whose reference is not finite are not checked. With
// `positions`, ref.data[i] is the reference at out[positions[i]].
OutputCheck check_output(const float *out, const TaskTensor &ref, double mean_abs_ref,
                         double rtol, const std::vector<size_t> &positions = {});

}  // namespace tlp
