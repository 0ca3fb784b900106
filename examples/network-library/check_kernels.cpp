// Runs every kernel of an exported network library once and checks its output
// against tlptune's reference (share/tlptune_kernels/check/FUNCTION.check).
// Exit status 0 when every kernel passes.
//
// What a real application does is the same, minus the check: fill each weight
// once (calling the packing function where the header names one), then call the
// kernel's function per inference with halide_buffer_t views of your tensors.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "tlptune_kernels.h"
#include "tlptune_kernels_data.h"

namespace {

// A dense float32 tensor and the halide_buffer_t that views it.
class Tensor {
 public:
  explicit Tensor(const tlptune_tensor &t) : dims_(size_t(t.dimensions)) {
    int32_t stride = 1;
    for (int d = 0; d < t.dimensions; ++d) {
      dims_[size_t(d)] = halide_dimension_t(0, t.extent[d], stride);
      stride *= t.extent[d];
    }
    data_.assign(size_t(stride), NAN);  // an unwritten output fails the check
    buf_.host = reinterpret_cast<uint8_t *>(data_.data());
    buf_.type = halide_type_t(halide_type_float, 32, 1);
    buf_.dimensions = t.dimensions;
    buf_.dim = dims_.data();
  }
  halide_buffer_t *buffer() { return &buf_; }
  std::vector<float> &data() { return data_; }

 private:
  std::vector<float> data_;
  std::vector<halide_dimension_t> dims_;
  halide_buffer_t buf_{};
};

struct Reference {
  uint64_t seed = 0;
  float rtol = 0, mean_abs = 0;
  std::vector<float> values;
};

// FUNCTION.check: "TLPCHECK", version 1, count, seed, rtol, mean |ref|, values.
bool read_reference(const std::string &path, Reference &r, std::string &why) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return why = "cannot open " + path, false;
  char magic[8];
  uint32_t version = 0, count = 0;
  f.read(magic, 8);
  f.read(reinterpret_cast<char *>(&version), 4);
  f.read(reinterpret_cast<char *>(&count), 4);
  if (!f || std::memcmp(magic, "TLPCHECK", 8) != 0) return why = path + " is not a tlptune check file", false;
  if (version != 1) return why = path + " has check format " + std::to_string(version) + "; this program reads 1", false;
  f.read(reinterpret_cast<char *>(&r.seed), 8);
  f.read(reinterpret_cast<char *>(&r.rtol), 4);
  f.read(reinterpret_cast<char *>(&r.mean_abs), 4);
  r.values.resize(count);
  f.read(reinterpret_cast<char *>(r.values.data()), std::streamsize(count) * 4);
  if (!f) return why = path + " is truncated", false;
  return true;
}

// Runs kernel k on the reference's inputs; returns an empty string when it passes.
std::string check(const tlptune_kernel &k, const Reference &ref, double &max_error) {
  std::vector<std::unique_ptr<Tensor>> inputs;
  std::vector<void *> args;
  for (int i = 0; i < k.num_inputs; ++i) {
    auto held = std::make_unique<Tensor>(k.user_inputs[i]);
    tlp::generate_task_input(ref.seed, i, held->data().data(), held->data().size());
    if (k.pack[i]) {  // done once at load time in an application
      auto packed = std::make_unique<Tensor>(k.inputs[i]);
      void *pack_args[] = {held->buffer(), packed->buffer()};
      if (int rc = k.pack[i](pack_args)) return "packing input " + std::to_string(i) + " returned " + std::to_string(rc);
      held = std::move(packed);
    }
    args.push_back(held->buffer());
    inputs.push_back(std::move(held));
  }
  Tensor out(k.output);
  args.push_back(out.buffer());
  if (int rc = k.run(args.data())) return std::string(k.function) + " returned " + std::to_string(rc);
  const std::vector<size_t> at = tlp::reference_sample_positions(ref.seed, ref.values.size(), out.data().size());
  for (size_t i = 0; i < at.size(); ++i) {
    const float want = ref.values[i], got = out.data()[at[i]];
    if (!std::isfinite(want)) continue;
    const double err = std::fabs(double(got) - want);
    if (!std::isfinite(got) || err > ref.rtol * (std::fabs(want) + ref.mean_abs) + 1e-6)
      return "output " + std::to_string(at[i]) + " is " + std::to_string(got) + ", expected " + std::to_string(want);
    if (err > max_error) max_error = err;
  }
  return "";
}

}  // namespace

int main(int argc, char **argv) {
  const std::string check_dir = argc > 1 ? argv[1] : TLPTUNE_KERNELS_CHECK_DIR;
  int count = 0, failed = 0;
  const tlptune_kernel *table = tlptune_kernel_table(&count);
  for (int i = 0; i < count; ++i) {
    const tlptune_kernel &k = table[i];
    Reference ref;
    std::string why;
    double max_error = 0;
    if (read_reference(check_dir + "/" + k.function + ".check", ref, why)) why = check(k, ref, max_error);
    if (why.empty()) {
      std::printf("ok    %s (max error %.2g)\n", k.function, max_error);
    } else {
      std::printf("FAIL  %s: %s\n", k.function, why.c_str());
      ++failed;
    }
  }
  std::printf("%d of %d kernels passed\n", count - failed, count);
  return failed == 0 && count > 0 ? 0 : 1;
}
