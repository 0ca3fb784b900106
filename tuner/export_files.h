// Headers an exported kernel library ships, embedded at build time so that an
// installed tlptune needs neither Halide's headers nor the source tree to export.
#pragma once

namespace tlp {

const char *halide_runtime_header();       // Halide's HalideRuntime.h: the buffer type kernels take
const char *generated_task_data_header();  // measure/generated_task_data.h: how check inputs are generated

}  // namespace tlp
