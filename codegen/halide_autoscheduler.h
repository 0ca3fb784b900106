// Halide's own autoschedulers (the plugins Debian ships with Halide 14) applied to
// an operator of the library, so their kernels can be measured with tlptune's own
// protocol beside tlptune's and the libraries' (see `tlptune peers`).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "Halide.h"
#include "codegen/lower.h"
#include "codegen/operator.h"

namespace tlp {

// The plugin names Pipeline::auto_schedule accepts, in listing order.
const std::vector<std::string> &halide_autoscheduler_names();  // Adams2019, Mullapudi2016, Li2018

// "adams2019" -> "Adams2019"; empty when the name is not an autoscheduler.
std::string canonical_autoscheduler_name(const std::string &name);

// Where the plugin of `name` lives: /usr/lib/x86_64-linux-gnu/halide14/libautoschedule_<lowercased>.so.
std::string autoscheduler_plugin_path(const std::string &name);

// The machine description handed to the autoscheduler. parallelism is the thread
// count; the last-level cache is read from sysfs (Halide's generic 16 MiB when it
// cannot be read); balance is Halide's generic 40. Only Mullapudi2016 reads the
// cache size and balance; Adams2019 and Li2018 read the parallelism alone.
Halide::MachineParams autoscheduler_machine_params(int threads);

// Largest CPU cache in bytes from /sys/devices/system/cpu/cpu0/cache, 0 if unknown.
uint64_t last_level_cache_bytes();

// Builds the operator's algorithm afresh, puts estimates on every input and on
// the output (the operator's shapes), pins the buffers to those shapes as
// lower_schedule does (dense, zero-based, constant strides), loads the plugin
// (once per process) and lets it schedule the pipeline. Halide 14's plugins apply
// the schedule to the Funcs themselves; the result's schedule_source is the C++
// they report. threads <= 0 means every hardware thread.
//
// Adams2019 uses the cost-model weights compiled into the plugin unless
// HL_WEIGHTS_DIR names others; it also reads HL_BEAM_SIZE (default 32),
// HL_RANDOM_DROPOUT (default 100, i.e. none) and HL_SEED from the environment.
//
// Throws std::runtime_error naming the plugin when it is missing or cannot be
// loaded, when the name is unknown, or when the autoscheduler fails.
LoweredKernel autoschedule_with_halide(const Operator &op, const std::string &plugin, const Halide::Target &target,
                                       int threads);

}  // namespace tlp
