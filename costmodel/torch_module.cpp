#include "costmodel/torch_module.h"

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "measure/executable_path.h"

namespace tlp::detail {
namespace {

constexpr const char *kModuleName = "libtlptune-torch.so";

// Where a build (bin/) and an install (bin/ beside lib/tlptune/) put the module.
std::vector<std::string> candidate_paths() {
  const std::filesystem::path beside = sibling_executable(kModuleName);
  return {beside.string(), (beside.parent_path() / "../lib/tlptune" / kModuleName).lexically_normal().string()};
}

const TorchModule *load() {
  const std::vector<std::string> paths = candidate_paths();
  for (const std::string &path : paths) {
    if (::access(path.c_str(), R_OK) != 0) continue;
    // Never unloaded: LibTorch's static state must outlive every network.
    void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle == nullptr)
      throw std::runtime_error("cannot load tlptune's LibTorch module " + path + ": " + ::dlerror() +
                               " (install LibTorch: apt-get install libtorch-dev)");
    using Entry = const TorchModule *(*)();
    auto entry = reinterpret_cast<Entry>(::dlsym(handle, kTorchModuleEntry));
    const TorchModule *m = entry ? entry() : nullptr;
    if (m == nullptr || m->version != kTorchModuleVersion || m->size != sizeof(TorchModule))
      throw std::runtime_error("tlptune's LibTorch module " + path +
                               " is from another build of tlptune: rebuild (cmake --build) or reinstall both together");
    return m;
  }
  throw std::runtime_error(std::string("tlptune's LibTorch module ") + kModuleName + " is missing (looked for " +
                           paths[0] + " and " + paths[1] +
                           "): networks, model files and training need it; build it (cmake --build build) "
                           "or install tlptune with cmake --install");
}

}  // namespace

const TorchModule &torch_module() {
  // Process-wide by nature: a shared library is loaded once per process.
  static const TorchModule *const module = load();
  return *module;
}

}  // namespace tlp::detail
