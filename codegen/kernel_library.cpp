#include "codegen/kernel_library.h"

#include <cctype>
#include <filesystem>
#include <stdexcept>

#include "codegen/kernel_compiler.h"
#include "codegen/weight_packing.h"

namespace tlp {

std::string workload_identifier(const std::string &workload) {
  std::string out;
  for (char c : workload) {
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') out += c;
    else if (c == ':' || c == ',') out += '_';
  }
  return out;
}

std::vector<std::vector<std::string>> build_kernel_library(const std::vector<LibraryKernel> &kernels,
                                                           const Halide::Target &target, const std::string &work_dir,
                                                           const std::string &library_path) {
  if (target.has_gpu_feature())
    throw std::runtime_error("a kernel library is built for CPU targets only; '" + target.to_string() +
                             "' is a GPU target (export its kernels one by one with 'tlptune replay')");
  namespace fs = std::filesystem;
  std::vector<std::string> objects;
  std::vector<std::vector<std::string>> packings;
  for (const LibraryKernel &k : kernels) {
    const std::string prefix = (fs::path(work_dir) / k.function).string();
    compile_kernel_object(k.kernel, target, prefix + ".o", k.function);
    objects.push_back(prefix + ".o");
    const std::vector<std::string> pack_objects = compile_packing_objects(*k.op, target, prefix, k.function);
    objects.insert(objects.end(), pack_objects.begin(), pack_objects.end());
    std::vector<std::string> entries;
    for (const PackedInput &p : k.op->packed_inputs()) entries.push_back(packing_entry(k.function, p));
    packings.push_back(std::move(entries));
  }
  const std::string runtime = (fs::path(work_dir) / "halide_runtime.o").string();
  compile_runtime_object(target, runtime);
  objects.push_back(runtime);
  std::error_code ec;
  fs::remove(library_path, ec);  // ar would add to an old archive's members
  archive_static_library(objects, library_path);
  return packings;
}

}  // namespace tlp
