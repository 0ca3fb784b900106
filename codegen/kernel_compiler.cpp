#include "codegen/kernel_compiler.h"

#include <cstdio>
#include <stdexcept>

namespace tlp {
namespace {

Halide::Pipeline pipeline_of(const LoweredKernel &k) { return Halide::Pipeline(k.output); }

std::string shell_quote(const std::string &s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

void compile_kernel_object(const LoweredKernel &k, const Halide::Target &target, const std::string &object_path,
                           const std::string &fn_name) {
  pipeline_of(k).compile_to_object(object_path, k.arguments(), fn_name, target.with_feature(Halide::Target::NoRuntime));
}

void compile_runtime_object(const Halide::Target &target, const std::string &object_path) {
  Halide::compile_standalone_runtime(object_path, target.without_feature(Halide::Target::NoRuntime));
}

void link_shared_library(const std::vector<std::string> &objects, const std::string &library_path) {
  std::string cmd = "c++ -shared -o " + shell_quote(library_path);
  for (const auto &o : objects) cmd += " " + shell_quote(o);
  cmd += " -lpthread -ldl 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("cannot run the linker (c++): is a C++ compiler installed?");
  std::string output;
  char buf[512];
  while (size_t n = fread(buf, 1, sizeof buf, p)) output.append(buf, n);
  if (pclose(p) != 0) throw std::runtime_error("linking " + library_path + " failed: " + output);
}

void compile_static_library(const LoweredKernel &k, const Halide::Target &target, const std::string &prefix,
                            const std::string &fn_name) {
  pipeline_of(k).compile_to_static_library(prefix, k.arguments(), fn_name, target.without_feature(Halide::Target::NoRuntime));
}

}  // namespace tlp
