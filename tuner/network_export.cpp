#include "tuner/network_export.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "codegen/kernel_library.h"
#include "codegen/lower.h"
#include "codegen/operator.h"
#include "codegen/target.h"
#include "codegen/weight_packing.h"
#include "codegen/workload.h"
#include "measure/generated_task_data.h"
#include "measure/record_log.h"
#include "measure/timing_protocol.h"
#include "search/network_spec.h"
#include "search/tlptune_version.h"
#include "tuner/export_files.h"
#include "tuner/log_summary.h"
#include "tuner/network_kernels.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kCheckSeed = 1;
constexpr int kMaxDims = 8;    // the header's table: blocked weights have 6
constexpr int kMaxInputs = 8;

std::string join(const std::vector<std::string> &v, const std::string &sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

// Each occurrence's nodes joined by `node_sep`, occurrences by `occurrence_sep`.
std::string nodes_text(const std::vector<std::vector<std::string>> &nodes, const std::string &node_sep,
                       const std::string &occurrence_sep) {
  std::vector<std::string> each;
  for (const auto &n : nodes) each.push_back(join(n, node_sep));
  return join(each, occurrence_sep);
}

std::string shape_text(Shape halide_order) {
  std::reverse(halide_order.begin(), halide_order.end());
  std::string out = "[";
  for (size_t i = 0; i < halide_order.size(); ++i) out += (i ? ", " : "") + std::to_string(halide_order[i]);
  return out + "]";
}

std::string c_string(const std::string &s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

// A comment may not close itself early.
std::string comment_safe(std::string s) {
  for (size_t at = s.find("*/"); at != std::string::npos; at = s.find("*/", at)) s.replace(at, 2, "* /");
  return s;
}

struct Chosen {
  ExportedTask task;
  std::unique_ptr<Operator> op;
  const TaskSummary *summary = nullptr;
  std::vector<std::string> input_names;
};

std::string tensor_initializer(const std::string &name, const Shape &shape) {
  std::string out = "{" + c_string(name) + ", " + std::to_string(shape.size()) + ", {";
  for (size_t i = 0; i < shape.size(); ++i) out += (i ? ", " : "") + std::to_string(shape[i]);
  return out + "}}";
}

std::string header_text(const NetworkExport &e, const std::vector<Chosen> &chosen) {
  std::ostringstream h;
  h << "/* tlptune_kernels.h: the kernels of network '" << comment_safe(e.network) << "', exported by "
    << kTlptuneVersion << "\n * for " << comment_safe(e.platform) << " (Halide target " << e.target << ").\n"
    << " *\n"
    << " * Every tensor is dense float32 in a halide_buffer_t; shapes below are outermost first.\n"
    << " * A function returns 0, or a Halide error code. An input marked 'packed' is a weight the\n"
    << " * kernel reads in its own order: fill it once, at load time, with the packing function\n"
    << " * named beside it, from the weight as you hold it.\n"
    << " * share/tlptune_kernels/kernels.json has the schedules and the measured times. */\n"
    << "#ifndef TLPTUNE_KERNELS_H\n#define TLPTUNE_KERNELS_H\n\n#include <stdint.h>\n\n#include \"HalideRuntime.h\"\n\n"
    << "#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";
  for (const Chosen &c : chosen) {
    const ExportedTask &t = c.task;
    if (t.function.empty()) {
      h << "/* " << comment_safe(t.op) << ": NOT EXPORTED (no valid kernel in the log; tune it and export again). */\n\n";
      continue;
    }
    const std::vector<Shape> shapes = c.op->input_shapes();
    const std::vector<Shape> user = user_input_shapes(*c.op);
    const std::vector<PackedInput> packed = c.op->packed_inputs();
    h << "/* " << comment_safe(t.workload) << "\n";
    if (t.workload != parse_workload(t.op).key()) h << " * serves " << comment_safe(t.op) << "\n";
    char ms[64];
    std::snprintf(ms, sizeof ms, "%.4g ms", t.seconds * 1e3);
    h << " * occurs " << t.weight << "x in the network; measured " << ms << "\n";
    if (!t.onnx_nodes.empty()) h << " * ONNX nodes: " << comment_safe(nodes_text(t.onnx_nodes, ", ", "; ")) << "\n";
    for (size_t i = 0; i < shapes.size(); ++i) {
      h << " * in  " << c.input_names[i] << " " << shape_text(shapes[i]);
      for (size_t j = 0; j < packed.size(); ++j)
        if (size_t(packed[j].input) == i)
          h << " packed " << packed[j].packed_layout << ": " << t.packings[j] << "(" << packed[j].user_layout << " "
            << shape_text(user[i]) << ", packed)";
      h << "\n";
    }
    h << " * out " << shape_text(c.op->output_shape()) << " */\n";
    h << "int " << t.function << "(";
    for (size_t i = 0; i < shapes.size(); ++i) h << "struct halide_buffer_t *" << c.input_names[i] << ", ";
    h << "struct halide_buffer_t *output);\n";
    for (const std::string &p : t.packings)
      h << "int " << p << "(struct halide_buffer_t *plain, struct halide_buffer_t *packed);\n";
    h << "int " << t.function << "_argv(void **args);\n";
    for (const std::string &p : t.packings) h << "int " << p << "_argv(void **args);\n";
    h << "\n";
  }
  h << "/* Every exported kernel, for code that walks them all (examples/network-library does).\n"
    << " * Extents here are in Halide's order: extent[0] is the innermost (contiguous) dimension.\n"
    << " * An _argv function takes an array of halide_buffer_t pointers: the inputs, then the output;\n"
    << " * a packing's: the plain tensor, then the packed one. */\n"
    << "#define TLPTUNE_KERNELS_MAX_DIMS " << kMaxDims << "\n#define TLPTUNE_KERNELS_MAX_INPUTS " << kMaxInputs << "\n"
    << "typedef struct tlptune_tensor {\n  const char *name;\n  int dimensions;\n"
    << "  int32_t extent[TLPTUNE_KERNELS_MAX_DIMS];\n} tlptune_tensor;\n"
    << "typedef int (*tlptune_argv_function)(void **args);\n"
    << "typedef struct tlptune_kernel {\n  const char *function;\n  const char *workload;\n  double weight;\n"
    << "  const char *onnx_nodes; /* \"a,b;c,d\": each occurrence's nodes, occurrences split by ';' */\n"
    << "  tlptune_argv_function run;\n  int num_inputs;\n"
    << "  tlptune_tensor inputs[TLPTUNE_KERNELS_MAX_INPUTS];      /* as the kernel reads them */\n"
    << "  tlptune_tensor user_inputs[TLPTUNE_KERNELS_MAX_INPUTS]; /* as the user holds them */\n"
    << "  tlptune_argv_function pack[TLPTUNE_KERNELS_MAX_INPUTS]; /* null: the input is read as it is held */\n"
    << "  tlptune_tensor output;\n} tlptune_kernel;\n\n"
    << "/* The table, and its length in *count. */\n"
    << "static inline const tlptune_kernel *tlptune_kernel_table(int *count) {\n"
    << "  static const tlptune_kernel table[] = {\n";
  int n = 0;
  for (const Chosen &c : chosen) {
    const ExportedTask &t = c.task;
    if (t.function.empty()) continue;
    ++n;
    const std::vector<Shape> shapes = c.op->input_shapes();
    const std::vector<Shape> user = user_input_shapes(*c.op);
    const std::vector<PackedInput> packed = c.op->packed_inputs();
    std::vector<std::string> ins, users, packs;
    for (size_t i = 0; i < shapes.size(); ++i) {
      ins.push_back(tensor_initializer(c.input_names[i], shapes[i]));
      users.push_back(tensor_initializer(c.input_names[i], user[i]));
      std::string fn = "0";
      for (size_t j = 0; j < packed.size(); ++j)
        if (size_t(packed[j].input) == i) fn = t.packings[j] + "_argv";
      packs.push_back(fn);
    }
    h << "    {" << c_string(t.function) << ", " << c_string(t.workload) << ", " << t.weight << ", "
      << c_string(nodes_text(t.onnx_nodes, ",", ";")) << ",\n     " << t.function << "_argv, " << shapes.size() << ",\n     {"
      << join(ins, ", ") << "},\n     {" << join(users, ", ") << "},\n     {" << join(packs, ", ") << "},\n     "
      << tensor_initializer("output", c.op->output_shape()) << "},\n";
  }
  if (n == 0) h << "    {0}\n";
  h << "  };\n  *count = " << n << ";\n  return table;\n}\n\n"
    << "#ifdef __cplusplus\n}  /* extern \"C\" */\n#endif\n\n#endif /* TLPTUNE_KERNELS_H */\n";
  return h.str();
}

void write_bytes(std::ofstream &f, const void *p, size_t n) { f.write(static_cast<const char *>(p), std::streamsize(n)); }

// The reference at sampled outputs for the generated inputs, as FUNCTION.check says.
void write_check_file(const Operator &op, const std::string &path, size_t samples) {
  const std::vector<Shape> shapes = user_input_shapes(op);
  std::vector<std::vector<float>> inputs;
  std::vector<const float *> ptrs;
  for (size_t i = 0; i < shapes.size(); ++i) {
    int64_t n = 1;
    for (int64_t e : shapes[i]) n *= e;
    inputs.emplace_back(size_t(n));
    generate_task_input(kCheckSeed, int(i), inputs.back().data(), inputs.back().size());
  }
  for (const auto &v : inputs) ptrs.push_back(v.data());
  int64_t out_n = 1;
  for (int64_t e : op.output_shape()) out_n *= e;
  std::vector<float> ref(static_cast<size_t>(out_n));
  op.reference(ptrs, ref.data());
  double sum = 0;
  size_t finite = 0;
  for (float v : ref)
    if (std::isfinite(v)) sum += std::fabs(v), ++finite;
  const float mean_abs = finite ? float(sum / double(finite)) : 0.0f;
  const float rtol = float(kDefaultRtol);
  const uint32_t version = kKernelCheckVersion, count = uint32_t(std::min(samples, ref.size()));
  const uint64_t seed = kCheckSeed;
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  write_bytes(f, "TLPCHECK", 8);
  write_bytes(f, &version, 4);
  write_bytes(f, &count, 4);
  write_bytes(f, &seed, 8);
  write_bytes(f, &rtol, 4);
  write_bytes(f, &mean_abs, 4);
  for (size_t p : reference_sample_positions(seed, count, ref.size())) write_bytes(f, &ref[p], 4);
  if (!f) throw std::runtime_error("cannot write " + path + " (is the disk full?)");
}

std::string cmake_config() {
  return R"(# find_package(tlptune_kernels) for a library written by 'tlptune export'.
# Defines tlptune_kernels::kernels (the library, its include folder, and what it
# links: threads and libdl) and tlptune_kernels_CHECK_DIR (the check data).
include(CMakeFindDependencyMacro)
find_dependency(Threads)
get_filename_component(_tlptune_kernels_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
if(NOT TARGET tlptune_kernels::kernels)
  add_library(tlptune_kernels::kernels STATIC IMPORTED)
  set_target_properties(tlptune_kernels::kernels PROPERTIES
    IMPORTED_LOCATION "${_tlptune_kernels_prefix}/lib/libtlptune_kernels.a"
    INTERFACE_INCLUDE_DIRECTORIES "${_tlptune_kernels_prefix}/include"
    INTERFACE_LINK_LIBRARIES "Threads::Threads;${CMAKE_DL_LIBS}")
endif()
set(tlptune_kernels_CHECK_DIR "${_tlptune_kernels_prefix}/share/tlptune_kernels/check")
unset(_tlptune_kernels_prefix)
)";
}

std::string cmake_version_file() {
  std::string v = kTlptuneVersion;
  v = v.substr(v.find(' ') + 1);
  return "# The exporting tlptune's version; any request is compatible with it.\nset(PACKAGE_VERSION \"" + v +
         "\")\nset(PACKAGE_VERSION_COMPATIBLE TRUE)\nif(PACKAGE_FIND_VERSION STREQUAL PACKAGE_VERSION)\n"
         "  set(PACKAGE_VERSION_EXACT TRUE)\nendif()\n";
}

void write_text(const fs::path &path, const std::string &text) {
  std::ofstream f(path, std::ios::trunc);
  f << text;
  if (!f) throw std::runtime_error("cannot write " + path.string() + " (is the disk full?)");
}

void prepare_out_dir(const std::string &dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir))
    throw std::runtime_error("cannot create the output folder '" + dir + "': " +
                             (ec ? ec.message() : std::string("not a folder")) + "; choose a writable --out");
  for (const char *sub : {"include", "lib/cmake/tlptune_kernels", "share/tlptune_kernels/check"})
    fs::create_directories(fs::path(dir) / sub, ec);
  if (ec) throw std::runtime_error("cannot write in the output folder '" + dir + "': " + ec.message());
  // A previous export's check files of kernels no longer exported must not linger.
  for (const auto &f : fs::directory_iterator(fs::path(dir) / "share/tlptune_kernels/check"))
    if (f.path().extension() == ".check") fs::remove(f.path(), ec);
}

nlohmann::json manifest(const NetworkExport &e, const std::vector<Chosen> &chosen, const std::string &log_path) {
  nlohmann::json tasks = nlohmann::json::array();
  for (const Chosen &c : chosen) {
    const ExportedTask &t = c.task;
    nlohmann::json j = {{"op", t.op}, {"weight", t.weight}, {"onnx_nodes", t.onnx_nodes}};
    if (t.function.empty()) {
      j["missing"] = "no valid kernel in the log";
    } else {
      j["function"] = t.function;
      j["workload"] = t.workload;
      j["median_seconds"] = t.seconds;
      j["gflops"] = c.op->flops() / t.seconds / 1e9;
      j["schedule"] = c.summary->best->schedule.to_text();
      j["packings"] = t.packings;
      j["check"] = "check/" + t.function + ".check";
    }
    tasks.push_back(std::move(j));
  }
  return {{"format", "tlptune-kernels"}, {"version", kKernelsManifestVersion}, {"tlptune", kTlptuneVersion},
          {"network", e.network},        {"platform", e.platform},             {"target", e.target},
          {"log", fs::path(log_path).filename().string()}, {"estimated_latency_seconds", e.latency},
          {"missing", e.missing},        {"tasks", tasks}};
}

}  // namespace

NetworkExport export_network(const NetworkExportOptions &o) {
  const NetworkSpec spec = read_network_spec(o.network_path);
  const LogReadResult log = read_record_log(o.log_path);
  for (const auto &w : log.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  const std::vector<TaskSummary> summaries = summarize_tasks(log.records);
  NetworkExport e;
  e.network = spec.name;
  const NetworkKernels found = network_kernels(spec, summaries, o.platform, o.any_layout, o.log_path);
  e.platform = found.platform;
  e.latency = found.latency;
  e.missing = found.missing;
  std::vector<Chosen> chosen;
  std::string missing_list;
  for (const NetworkKernel &k : found.kernels) {
    Chosen c;
    c.task.op = k.task->op;
    c.task.weight = k.task->weight;
    c.task.onnx_nodes = k.task->onnx_nodes;
    c.summary = k.best;
    if (!c.summary) {
      missing_list += (missing_list.empty() ? "" : ", ") + k.task->op;
      chosen.push_back(std::move(c));
      continue;
    }
    if (!e.target.empty() && c.summary->target != e.target)
      throw std::runtime_error(o.log_path + ": the kernels of platform '" + e.platform + "' were built for two targets (" +
                               e.target + ", " + c.summary->target + "); one library holds one target");
    e.target = c.summary->target;
    c.task.workload = c.summary->workload;
    c.task.function = "tlp_" + workload_identifier(c.task.workload);
    c.task.seconds = c.summary->best_cost;
    c.op = make_operator(c.task.workload);
    chosen.push_back(std::move(c));
  }
  if (e.missing && !o.allow_missing)
    throw std::runtime_error(std::to_string(e.missing) + " of " + std::to_string(spec.tasks.size()) +
                             " tasks have no valid kernel in " + o.log_path + " for " + e.platform + ": " + missing_list +
                             (o.any_layout ? "" : " (in the layout their op names; --layouts any takes any layout)") +
                             "; tune them, or give --allow-missing to export the rest");
  if (e.missing == int(spec.tasks.size())) throw std::runtime_error("no task of the network has a kernel; nothing to export");

  prepare_out_dir(o.out_dir);
  const Halide::Target target = parse_target(e.target);
  std::vector<LibraryKernel> kernels;
  std::vector<Chosen *> exported;
  for (Chosen &c : chosen) {
    if (!c.op) continue;
    const ComputeDag dag = make_compute_dag(*c.op);
    LoweredKernel k = lower_schedule(*c.op, dag, c.summary->best->schedule, target);
    for (const auto &in : k.inputs) c.input_names.push_back(in.name());
    kernels.push_back({c.task.function, c.op.get(), std::move(k)});
    exported.push_back(&c);
  }
  const fs::path work = fs::path(o.out_dir) / ".tlptune-export-objects";
  fs::create_directories(work);
  const auto packings =
      build_kernel_library(kernels, target, work.string(), (fs::path(o.out_dir) / "lib/libtlptune_kernels.a").string());
  std::error_code ec;
  fs::remove_all(work, ec);
  for (size_t i = 0; i < exported.size(); ++i) exported[i]->task.packings = packings[i];

  const fs::path out(o.out_dir);
  write_text(out / "include/tlptune_kernels.h", header_text(e, chosen));
  write_text(out / "include/HalideRuntime.h", halide_runtime_header());
  write_text(out / "include/tlptune_kernels_data.h", generated_task_data_header());
  write_text(out / "lib/cmake/tlptune_kernels/tlptune_kernelsConfig.cmake", cmake_config());
  write_text(out / "lib/cmake/tlptune_kernels/tlptune_kernelsConfigVersion.cmake", cmake_version_file());
  for (Chosen *c : exported)
    write_check_file(*c->op, (out / "share/tlptune_kernels/check" / (c->task.function + ".check")).string(),
                     o.check_samples);
  write_text(out / "share/tlptune_kernels/kernels.json", manifest(e, chosen, o.log_path).dump(2) + "\n");
  for (Chosen &c : chosen) e.tasks.push_back(c.task);
  return e;
}

}  // namespace tlp
