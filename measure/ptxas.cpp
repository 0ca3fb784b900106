#include "measure/ptxas.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <nlohmann/json.hpp>

#include "measure/shell_command.h"

namespace tlp {
namespace {

bool executable(const std::string &path) { return !path.empty() && ::access(path.c_str(), X_OK) == 0; }

}  // namespace

nlohmann::json PtxasReport::to_json() const {
  return {{"kernels", kernels},         {"registers", registers},     {"spill_stores", spill_store_bytes},
          {"spill_loads", spill_load_bytes}, {"stack", stack_bytes}, {"static_smem", static_shared_bytes}};
}

PtxasReport PtxasReport::from_json(const nlohmann::json &j) {
  PtxasReport r;
  r.kernels = j.value("kernels", 0);
  r.registers = j.value("registers", 0);
  r.spill_store_bytes = j.value("spill_stores", 0);
  r.spill_load_bytes = j.value("spill_loads", 0);
  r.stack_bytes = j.value("stack", 0);
  r.static_shared_bytes = j.value("static_smem", 0);
  return r;
}

bool PtxasReport::operator==(const PtxasReport &o) const {
  return kernels == o.kernels && registers == o.registers && spill_store_bytes == o.spill_store_bytes &&
         spill_load_bytes == o.spill_load_bytes && stack_bytes == o.stack_bytes &&
         static_shared_bytes == o.static_shared_bytes;
}

PtxasReport parse_ptxas_verbose(const std::string &output) {
  static const std::regex entry(R"(Compiling entry function)");
  static const std::regex frame(R"((\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads)");
  static const std::regex used(R"(Used (\d+) registers)");
  static const std::regex smem(R"((\d+) bytes smem)");
  PtxasReport r;
  std::istringstream in(output);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_search(line, entry)) ++r.kernels;
    if (std::regex_search(line, m, frame)) {
      r.stack_bytes = std::max(r.stack_bytes, std::stoi(m[1]));
      r.spill_store_bytes = std::max(r.spill_store_bytes, std::stoi(m[2]));
      r.spill_load_bytes = std::max(r.spill_load_bytes, std::stoi(m[3]));
    }
    if (std::regex_search(line, m, used)) r.registers = std::max(r.registers, std::stoi(m[1]));
    if (std::regex_search(line, m, smem)) r.static_shared_bytes = std::max(r.static_shared_bytes, std::stoi(m[1]));
  }
  return r;
}

std::string find_ptxas() {
  if (const char *env = std::getenv("TLP_PTXAS"); env && executable(env)) return env;
  if (executable("/usr/local/cuda/bin/ptxas")) return "/usr/local/cuda/bin/ptxas";
  if (const char *path = std::getenv("PATH")) {
    std::istringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':'))
      if (executable(dir + "/ptxas")) return dir + "/ptxas";
  }
  return "";
}

PtxasReport validate_ptx(const std::string &ptx, int capability, const std::string &scratch_dir) {
  const std::string ptxas = find_ptxas();
  if (ptxas.empty())
    throw PtxasError("no ptxas found ($TLP_PTXAS, /usr/local/cuda/bin/ptxas, PATH): install the CUDA toolkit "
                     "to validate GPU kernels");
  namespace fs = std::filesystem;
  fs::create_directories(scratch_dir);
  const std::string in = (fs::path(scratch_dir) / "kernels.ptx").string();
  const std::string out = (fs::path(scratch_dir) / "kernels.cubin").string();
  {
    std::ofstream f(in, std::ios::binary | std::ios::trunc);
    f << ptx;
    if (!f) throw PtxasError("cannot write " + in);
  }
  std::string output;
  const int status = run_shell_command(shell_quote(ptxas) + " -v --gpu-name sm_" + std::to_string(capability) + " " +
                                     shell_quote(in) + " -o " + shell_quote(out),
                                 output);
  std::error_code ec;
  fs::remove(in, ec);
  fs::remove(out, ec);
  if (status != 0) {
    std::string first = output.substr(0, 2000);
    while (!first.empty() && first.back() == '\n') first.pop_back();
    throw PtxasError("ptxas rejected the kernels for sm_" + std::to_string(capability) + ": " + first);
  }
  return parse_ptxas_verbose(output);
}

}  // namespace tlp
