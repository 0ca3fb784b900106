// Turns a lowered kernel into files: an object without Halide's runtime (the
// runtime is built once per target and linked in, which saves ~0.1 s a
// candidate), a self-contained shared library for the runner, and a static
// library plus header for users.
#pragma once

#include <string>
#include <vector>

#include "Halide.h"
#include "codegen/lower.h"

namespace tlp {

// The exported C entry point is `fn_name` (and `fn_name`_argv for the runner).
void compile_kernel_object(const LoweredKernel &k, const Halide::Target &target, const std::string &object_path,
                           const std::string &fn_name);
void compile_runtime_object(const Halide::Target &target, const std::string &object_path);

// Links objects into a shared library with the system C++ compiler. Throws
// std::runtime_error with the linker's output on failure.
void link_shared_library(const std::vector<std::string> &objects, const std::string &library_path);

// Writes PREFIX.a and PREFIX.h (runtime included) for users to link.
void compile_static_library(const LoweredKernel &k, const Halide::Target &target, const std::string &prefix,
                            const std::string &fn_name);

}  // namespace tlp
