#include "measure/kernel_runner.h"

#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>

#include <HalideRuntime.h>
#include <nlohmann/json.hpp>

#include "measure/cpu_interference.h"
#include "measure/measure_error.h"
#include "measure/median.h"
#include "measure/timing_protocol.h"

static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__,
              "task files are little-endian float32 and are read as-is");

namespace tlp {

namespace {

using nlohmann::json;

// ---------------------------------------------------------------------------
// Halide error capture.
//
// halide_set_error_handler takes a plain C function, and _argv calls pass a null
// user_context, so the text can only land in file-level storage. The runtime may
// report from its thread-pool threads, hence the mutex. The runner handles one job
// at a time, so one buffer is enough; it is cleared before each job.
std::mutex g_halide_error_mutex;
std::string g_halide_error_text;

extern "C" void capture_halide_error(void * /*user_context*/, const char *msg) {
  std::lock_guard<std::mutex> lock(g_halide_error_mutex);
  if (g_halide_error_text.size() < 8192 && msg) {
    if (!g_halide_error_text.empty()) g_halide_error_text += "; ";
    g_halide_error_text += msg;
  }
}

void clear_halide_error() {
  std::lock_guard<std::mutex> lock(g_halide_error_mutex);
  g_halide_error_text.clear();
}

std::string take_halide_error() {
  std::lock_guard<std::mutex> lock(g_halide_error_mutex);
  std::string text;
  text.swap(g_halide_error_text);
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// ---------------------------------------------------------------------------
// The job.

// A job line that is not a valid job: reported as "unknown", since it is a bug in
// the caller, not a property of the kernel.
class BadJob : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Job {
  std::string artifact, entry, data_dir;
  TimingOptions timing;
  double rtol = kDefaultRtol;
  int threads = 0;
  std::string device;  // "" (CPU) or "cuda"
};

template <typename T>
T job_field(const json &j, const char *key, const T &fallback, bool required) {
  const auto it = j.find(key);
  if (it == j.end() || it->is_null()) {
    if (required) throw BadJob(std::string("job has no '") + key + "'");
    return fallback;
  }
  try {
    return it->get<T>();
  } catch (const json::exception &) {
    throw BadJob(std::string("job field '") + key + "' has the wrong type: " + it->dump());
  }
}

Job parse_job(const json &j) {
  Job job;
  job.artifact = job_field<std::string>(j, "artifact", "", true);
  job.entry = job_field<std::string>(j, "entry", "", true);
  job.data_dir = job_field<std::string>(j, "data_dir", "", true);
  TimingOptions &t = job.timing;
  t.warmup = std::max(0, job_field<int>(j, "warmup", t.warmup, false));
  t.min_repeats = std::max(1, job_field<int>(j, "min_repeats", t.min_repeats, false));
  t.max_repeats = std::max(1, job_field<int>(j, "max_repeats", t.max_repeats, false));
  t.min_seconds = job_field<double>(j, "min_seconds", t.min_seconds, false);
  job.rtol = job_field<double>(j, "rtol", job.rtol, false);
  job.threads = job_field<int>(j, "threads", job.threads, false);
  job.device = job_field<std::string>(j, "device", job.device, false);
  if (!job.device.empty() && job.device != "cuda")
    throw BadJob("job field 'device' must be \"cuda\" or absent, got \"" + job.device + "\"");
  return job;
}

struct Result {
  json id;  // echoed as given (null when the job had none)
  MeasureError error = MeasureError::None;
  std::vector<double> costs;
  double median = 0;
  double max_abs_error = 0;
  std::string message;
  std::optional<double> cpu_wait;  // while the timed runs ran (cpu_interference.h)

  std::string dump() const {
    json j;
    j["id"] = id;
    j["error"] = measure_error_name(error);
    j["costs"] = costs;
    j["median"] = median;
    // JSON has no infinity; null says "not finite" and the client reads it so.
    j["max_abs_error"] = std::isfinite(max_abs_error) ? json(max_abs_error) : json(nullptr);
    j["message"] = message;
    if (cpu_wait) j["cpu_wait"] = std::round(*cpu_wait * 1000) / 1000;
    // Kernel and Halide messages may hold arbitrary bytes: never fail on them.
    return j.dump(-1, ' ', false, json::error_handler_t::replace);
  }
};

std::string file_stamp(const std::string &path) {
  struct stat st;
  if (::stat(path.c_str(), &st) != 0) return "";
  return std::to_string(st.st_size) + ":" + std::to_string(st.st_mtim.tv_sec) + "." +
         std::to_string(st.st_mtim.tv_nsec);
}

// ---------------------------------------------------------------------------
// Kernel library.

using ArgvFn = int (*)(void **);
using SetThreadsFn = int (*)(int);
using ShutdownFn = void (*)();
using SetErrorHandlerFn = halide_error_handler_t (*)(halide_error_handler_t);
using DeviceInterfaceFn = const halide_device_interface_t *(*)();
using BufferDeviceFn = int (*)(void *, halide_buffer_t *, const halide_device_interface_t *);
using BufferFn = int (*)(void *, halide_buffer_t *);
using ReleaseFn = void (*)(void *, const halide_device_interface_t *);

// The Halide runtime's device calls, from the kernel's own copy of the runtime
// (a CUDA kernel's runtime loads libcuda itself: the runner links no CUDA).
struct DeviceCalls {
  DeviceInterfaceFn cuda_interface = nullptr;
  BufferDeviceFn copy_to_device = nullptr, device_malloc = nullptr;
  BufferFn device_sync = nullptr, copy_to_host = nullptr, device_free = nullptr;
  ReleaseFn device_release = nullptr;

  bool complete() const {
    return cuda_interface && copy_to_device && device_malloc && device_sync && copy_to_host && device_free &&
           device_release;
  }
};

// A loaded artifact. Each artifact carries its own copy of the Halide runtime, so
// its thread pool must be shut down before the code is unmapped: pool threads
// parked in unloaded code would crash the runner on the next job.
class KernelLibrary {
 public:
  KernelLibrary(const std::string &artifact, const std::string &entry) {
    // dlopen searches the library path for a name without '/': we mean a file.
    const std::string path = artifact.find('/') == std::string::npos ? "./" + artifact : artifact;
    handle_ = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle_) {
      const char *err = ::dlerror();
      throw std::runtime_error("cannot load artifact '" + artifact + "': " + (err ? err : "?"));
    }
    const std::string symbol = entry + "_argv";
    entry_ = reinterpret_cast<ArgvFn>(::dlsym(handle_, symbol.c_str()));
    if (!entry_) {
      close();
      throw std::runtime_error("artifact '" + artifact + "' has no symbol '" + symbol + "'");
    }
    set_threads_ = reinterpret_cast<SetThreadsFn>(::dlsym(handle_, "halide_set_num_threads"));
    shutdown_ = reinterpret_cast<ShutdownFn>(::dlsym(handle_, "halide_shutdown_thread_pool"));
    auto set_handler =
        reinterpret_cast<SetErrorHandlerFn>(::dlsym(handle_, "halide_set_error_handler"));
    if (set_handler) set_handler(&capture_halide_error);
    device_.cuda_interface = reinterpret_cast<DeviceInterfaceFn>(::dlsym(handle_, "halide_cuda_device_interface"));
    device_.copy_to_device = reinterpret_cast<BufferDeviceFn>(::dlsym(handle_, "halide_copy_to_device"));
    device_.device_malloc = reinterpret_cast<BufferDeviceFn>(::dlsym(handle_, "halide_device_malloc"));
    device_.device_sync = reinterpret_cast<BufferFn>(::dlsym(handle_, "halide_device_sync"));
    device_.copy_to_host = reinterpret_cast<BufferFn>(::dlsym(handle_, "halide_copy_to_host"));
    device_.device_free = reinterpret_cast<BufferFn>(::dlsym(handle_, "halide_device_free"));
    device_.device_release = reinterpret_cast<ReleaseFn>(::dlsym(handle_, "halide_device_release"));
  }
  ~KernelLibrary() { close(); }
  KernelLibrary(const KernelLibrary &) = delete;
  KernelLibrary &operator=(const KernelLibrary &) = delete;

  void set_threads(int n) {
    if (set_threads_) set_threads_(n);
  }
  int call(void **args) const { return entry_(args); }
  // Another _argv entry point of the library (a packing); throws when it has none.
  ArgvFn argv_entry(const std::string &name) const {
    const std::string symbol = name + "_argv";
    auto fn = reinterpret_cast<ArgvFn>(::dlsym(handle_, symbol.c_str()));
    if (!fn) throw std::runtime_error("the artifact has no symbol '" + symbol + "', which the task's packing names");
    return fn;
  }
  const DeviceCalls &device() const { return device_; }

 private:
  void close() {
    if (!handle_) return;
    if (shutdown_) shutdown_();
    ::dlclose(handle_);
    handle_ = nullptr;
  }

  void *handle_ = nullptr;
  ArgvFn entry_ = nullptr;
  SetThreadsFn set_threads_ = nullptr;
  ShutdownFn shutdown_ = nullptr;
  DeviceCalls device_;
};

// ---------------------------------------------------------------------------
// Buffers for one job.

struct FreeDeleter {
  void operator()(float *p) const { std::free(p); }
};

// 64-byte aligned floats, so timings do not depend on where malloc put the data.
std::unique_ptr<float, FreeDeleter> aligned_floats(size_t count) {
  const size_t bytes = std::max<size_t>(64, (count * sizeof(float) + 63) / 64 * 64);
  auto *p = static_cast<float *>(std::aligned_alloc(64, bytes));
  if (!p) throw std::runtime_error("out of memory allocating " + std::to_string(bytes) + " bytes");
  return std::unique_ptr<float, FreeDeleter>(p);
}

// The kernel's arguments: private copies of the inputs (a faulty kernel that writes
// to an input must not corrupt the cached task for later jobs) and an output
// filled with NaN, so a kernel that leaves elements unwritten fails the check.
// A packed input is packed here by the library's own packing entry point: once,
// before any run, so no timing ever includes it.
class JobBuffers {
 public:
  JobBuffers(const TaskData &task, const KernelLibrary &lib, const std::string &entry) {
    const size_t n = task.inputs.size() + 1;
    storage_.reserve(n);
    dims_.reserve(n + 1);
    buffers_.reserve(n + 1);
    for (size_t i = 0; i < task.inputs.size(); ++i) {
      const TaskTensor &in = task.inputs[i];
      const TaskPacking *packing = nullptr;
      for (const TaskPacking &p : task.packings)
        if (p.input == i) packing = &p;
      storage_.push_back(aligned_floats(in.data.size()));
      if (packing) {
        pack(in, *packing, lib.argv_entry(entry + packing->entry_suffix), storage_.back().get());
        add_buffer(storage_.back().get(), packing->packed_shape);
      } else {
        std::copy(in.data.begin(), in.data.end(), storage_.back().get());
        add_buffer(storage_.back().get(), in.shape);
      }
    }
    const size_t out_n = size_t(element_count(task.reference.shape));
    storage_.push_back(aligned_floats(out_n));
    std::fill_n(storage_.back().get(), out_n, std::numeric_limits<float>::quiet_NaN());
    add_buffer(storage_.back().get(), task.reference.shape);
    // Pointers are taken only now: the vectors were reserved and no longer move.
    for (halide_buffer_t &b : buffers_) args_.push_back(&b);
  }
  void **args() { return args_.data(); }
  const float *output() const { return storage_.back().get(); }
  std::vector<halide_buffer_t> &buffers() { return buffers_; }  // the inputs, then the output

 private:
  // Runs `fn` on (the plain tensor, `packed`); the buffers it used are dropped again.
  void pack(const TaskTensor &plain, const TaskPacking &p, ArgvFn fn, float *packed) {
    add_buffer(const_cast<float *>(plain.data.data()), plain.shape);
    add_buffer(packed, p.packed_shape);
    void *args[] = {&buffers_[buffers_.size() - 2], &buffers_.back()};
    const int rc = fn(args);
    buffers_.resize(buffers_.size() - 2);
    dims_.resize(dims_.size() - 2);
    if (rc != 0) {
      const std::string halide = take_halide_error();
      throw std::runtime_error("packing input " + std::to_string(p.input) + " returned " + std::to_string(rc) +
                               (halide.empty() ? "" : ": " + halide));
    }
  }

  void add_buffer(float *host, const std::vector<int32_t> &shape) {
    std::vector<halide_dimension_t> dims;
    int32_t stride = 1;
    for (int32_t extent : shape) {
      dims.emplace_back(0, extent, stride);
      stride *= extent;
    }
    dims_.push_back(std::move(dims));
    halide_buffer_t b{};
    b.device = 0;
    b.device_interface = nullptr;
    b.host = reinterpret_cast<uint8_t *>(host);
    b.flags = 0;
    b.type = halide_type_t(halide_type_float, 32, 1);
    b.dimensions = static_cast<int32_t>(shape.size());
    b.dim = dims_.back().empty() ? nullptr : dims_.back().data();
    b.padding = nullptr;
    buffers_.push_back(b);
  }

  std::vector<std::unique_ptr<float, FreeDeleter>> storage_;
  std::vector<std::vector<halide_dimension_t>> dims_;
  std::vector<halide_buffer_t> buffers_;
  std::vector<void *> args_;
};

// A GPU job's buffers on the device: the inputs copied there once and the output
// allocated there, so that timed runs measure the kernels, not copies over the
// bus. Everything is freed, and the device released, before the library goes.
class DeviceBuffers {
 public:
  DeviceBuffers(const DeviceCalls &calls, JobBuffers &job) : calls_(calls), job_(job) {
    if (!calls_.complete())
      throw std::runtime_error("the artifact was built for CUDA but lacks Halide's CUDA runtime calls");
    interface_ = calls_.cuda_interface();
    std::vector<halide_buffer_t> &b = job_.buffers();
    for (size_t i = 0; i < b.size(); ++i) {
      const bool output = i + 1 == b.size();
      if (output) b[i].set_host_dirty(false);
      else b[i].set_host_dirty(true);
      const int rc = output ? calls_.device_malloc(nullptr, &b[i], interface_)
                            : calls_.copy_to_device(nullptr, &b[i], interface_);
      if (rc != 0) {
        // Halide lists every driver call it could not find; its last words say why.
        std::string halide = take_halide_error();
        const size_t last = halide.rfind("; ");
        if (last != std::string::npos) halide = halide.substr(last + 2);
        throw std::runtime_error(std::string("cannot put the ") + (output ? "output" : "inputs") +
                                 " on the CUDA device (is there a GPU and its driver, libcuda?)" +
                                 (halide.empty() ? "" : ": " + halide));
      }
    }
  }
  ~DeviceBuffers() {
    for (halide_buffer_t &b : job_.buffers())
      if (b.device) calls_.device_free(nullptr, &b);
    calls_.device_release(nullptr, interface_);
  }
  DeviceBuffers(const DeviceBuffers &) = delete;
  DeviceBuffers &operator=(const DeviceBuffers &) = delete;

  // Waits until the kernels that write the output have finished.
  int sync() { return calls_.device_sync(nullptr, &job_.buffers().back()); }

  // The output back in host memory, for the correctness check.
  void copy_output_back() {
    // Halide marks the output device-dirty when a GPU stage wrote it last.
    if (calls_.copy_to_host(nullptr, &job_.buffers().back()) != 0)
      throw std::runtime_error("cannot copy the output back from the CUDA device: " + take_halide_error());
  }

 private:
  const DeviceCalls &calls_;
  JobBuffers &job_;
  const halide_device_interface_t *interface_ = nullptr;
};

// ---------------------------------------------------------------------------
// Running and timing.

// A result line for a job that produced no measurement.
std::string failure(const json &id, MeasureError error, const std::string &message) {
  Result r;
  r.id = id;
  r.error = error;
  r.message = message;
  return r.dump();
}

// Turns a non-zero return from the kernel into the result's message.
void kernel_failed(const Job &job, int rc, const char *phase, Result &r) {
  r.error = MeasureError::RuntimeError;
  r.costs.clear();
  r.median = 0;
  const std::string halide = take_halide_error();
  r.message = job.entry + "_argv returned " + std::to_string(rc) + " during " + phase;
  r.message += halide.empty() ? " (no error message from Halide)" : ": " + halide;
}

// Times the kernel by the protocol (measure/timing_protocol.h). False (with r
// filled in) if the kernel failed. A GPU job's runs each end with a device
// synchronization, inside the timing (kernel launches return before the
// kernels finish).
bool run_and_time(const Job &job, const KernelLibrary &lib, JobBuffers &buffers, DeviceBuffers *device, Result &r) {
  auto call = [&] {
    const int rc = lib.call(buffers.args());
    return rc != 0 || !device ? rc : device->sync();
  };
  std::optional<CpuSnapshot> before;
  const TimedRuns t = time_runs(call, job.timing, [&] { before = cpu_snapshot(); });
  if (t.rc != 0) {
    kernel_failed(job, t.rc, t.in_warmup ? "warm-up" : "a timed run", r);
    return false;
  }
  r.costs = t.costs;
  r.median = median_of(r.costs);
  const std::optional<CpuSnapshot> after = cpu_snapshot();
  if (before && after && after->wall - before->wall >= kMinCpuWaitWindow) r.cpu_wait = cpu_wait_share(*before, *after);
  return true;
}

}  // namespace

// ---------------------------------------------------------------------------

std::shared_ptr<const TaskData> KernelRunner::task_data(const std::string &dir) {
  const std::string stamp = file_stamp(task_file_path(dir));
  for (auto it = cache_.begin(); it != cache_.end(); ++it) {
    if (it->dir != dir) continue;
    if (it->stamp == stamp && !stamp.empty()) {
      CachedTask hit = *it;
      cache_.erase(it);
      cache_.push_front(hit);
      return hit.data;
    }
    cache_.erase(it);
    break;
  }
  auto data = std::make_shared<const TaskData>(load_task_data(dir));
  cache_.push_front(CachedTask{dir, stamp, data});
  while (cache_.size() > kMaxCachedTasks) cache_.pop_back();
  return data;
}

std::string KernelRunner::handle(const std::string &job_line) {
  Result r;
  const json j = json::parse(job_line, nullptr, false);
  if (j.is_discarded() || !j.is_object()) {
    r.error = MeasureError::Unknown;
    r.message = "job line is not a JSON object: " + job_line.substr(0, 200);
    return r.dump();
  }
  if (j.contains("id")) r.id = j["id"];
  try {
    const Job job = parse_job(j);
    clear_halide_error();
    std::shared_ptr<const TaskData> task = task_data(job.data_dir);
    KernelLibrary lib(job.artifact, job.entry);
    if (job.threads > 0) lib.set_threads(job.threads);
    JobBuffers buffers(*task, lib, job.entry);
    std::unique_ptr<DeviceBuffers> device;
    if (job.device == "cuda") device = std::make_unique<DeviceBuffers>(lib.device(), buffers);
    if (!run_and_time(job, lib, buffers, device.get(), r)) return r.dump();
    if (device) device->copy_output_back();
    const OutputCheck check =
        check_output(buffers.output(), task->reference, task->mean_abs_reference, job.rtol, task->reference_positions);
    r.max_abs_error = check.max_abs_error;
    if (!check.ok) {
      r.error = MeasureError::WrongAnswer;
      r.message = check.message;
    }
  } catch (const BadJob &e) {
    return failure(r.id, MeasureError::Unknown, std::string("bad job: ") + e.what());
  } catch (const std::exception &e) {
    // Missing or malformed files, a library that does not load, out of memory.
    return failure(r.id, MeasureError::RuntimeError, e.what());
  }
  return r.dump();
}

}  // namespace tlp
