#include "measure/gpu_probe.h"

#include <dlfcn.h>

#include <stdexcept>

namespace tlp {
namespace {

// The few driver calls needed, with the driver API's own numbers (cuda.h is not
// needed to build this, and is not on a bare GPU machine).
using CuInit = int (*)(unsigned);
using CuDeviceGetCount = int (*)(int *);
using CuDeviceGet = int (*)(int *, int);
using CuDeviceGetName = int (*)(char *, int, int);
using CuDeviceGetAttribute = int (*)(int *, int, int);
using CuDeviceTotalMem = int (*)(size_t *, int);

enum Attribute {
  kMaxThreadsPerBlock = 1,
  kMaxSharedMemoryPerBlock = 8,
  kMaxRegistersPerBlock = 12,
  kMultiprocessorCount = 16,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
};

template <typename F>
F symbol(void *lib, const char *name) {
  auto f = reinterpret_cast<F>(::dlsym(lib, name));
  if (!f) throw std::runtime_error(std::string("the CUDA driver lacks ") + name);
  return f;
}

}  // namespace

std::string GpuDescription::platform() const {
  return "cuda/" + name + "/sm_" + std::to_string(capability) + "/sms=" + std::to_string(multiprocessors);
}

GpuDescription probe_gpu() {
  void *lib = ::dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
  if (!lib) lib = ::dlopen("libcuda.so", RTLD_NOW | RTLD_LOCAL);
  if (!lib) throw std::runtime_error("no NVIDIA driver here (libcuda.so.1 cannot be loaded)");
  GpuDescription d;
  try {
    if (symbol<CuInit>(lib, "cuInit")(0) != 0) throw std::runtime_error("the CUDA driver failed to start (cuInit)");
    int count = 0;
    if (symbol<CuDeviceGetCount>(lib, "cuDeviceGetCount")(&count) != 0 || count < 1)
      throw std::runtime_error("the CUDA driver sees no GPU");
    int dev = 0;
    symbol<CuDeviceGet>(lib, "cuDeviceGet")(&dev, 0);
    char name[256] = {};
    symbol<CuDeviceGetName>(lib, "cuDeviceGetName")(name, sizeof name - 1, dev);
    d.name = name;
    auto attribute = symbol<CuDeviceGetAttribute>(lib, "cuDeviceGetAttribute");
    auto get = [&](Attribute a) {
      int v = 0;
      attribute(&v, a, dev);
      return v;
    };
    d.capability = get(kComputeCapabilityMajor) * 10 + get(kComputeCapabilityMinor);
    d.multiprocessors = get(kMultiprocessorCount);
    d.max_threads_per_block = get(kMaxThreadsPerBlock);
    d.shared_bytes_per_block = get(kMaxSharedMemoryPerBlock);
    d.registers_per_block = get(kMaxRegistersPerBlock);
    size_t bytes = 0;
    symbol<CuDeviceTotalMem>(lib, "cuDeviceTotalMem_v2")(&bytes, dev);
    d.memory_bytes = static_cast<long long>(bytes);
  } catch (...) {
    ::dlclose(lib);
    throw;
  }
  ::dlclose(lib);
  return d;
}

}  // namespace tlp
