// The data a runner checks a kernel with: deterministic, non-zero random inputs
// and the operator's reference output, written once per task as raw float32
// files plus task.json (the layout kernel_runner.h reads).
#pragma once

#include <cstdint>
#include <string>

#include "codegen/operator.h"

namespace tlp {

// Writes DIR/task.json, DIR/in<i>.f32 and DIR/ref.f32 unless DIR/task.json
// already exists (the data for a workload never changes). Creates DIR.
void write_task_data(const Operator &op, const std::string &dir, uint64_t seed = 1);

// The portable form, for a bundle taken to another machine (see
// generated_task_data.h): task.json names each input by seed and index, and
// ref.f32 holds the reference at `max_reference` positions drawn by the seed,
// or every element when the output has no more. Same conditions as above.
void write_portable_task_data(const Operator &op, const std::string &dir, uint64_t seed = 1,
                              size_t max_reference = size_t(1) << 20);

}  // namespace tlp
