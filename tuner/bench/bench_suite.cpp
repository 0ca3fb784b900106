#include "tuner/bench/bench_suite.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <utility>

#include "tuner/bench/json_file.h"

namespace tlp {

using namespace bench_detail;  // the shared private helpers

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const char *const kKind = "suite file";

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string stem(const std::string &path) { return fs::path(path).stem().string(); }

std::string available_suites(const std::string &suites_dir) {
  const std::vector<std::string> names = list_bench_suites(suites_dir);
  if (names.empty()) return "no suites found in '" + suites_dir + "'";
  std::string out;
  for (const auto &n : names) out += (out.empty() ? "" : ", ") + n;
  return "suites in '" + suites_dir + "': " + out;
}

// The file to read: a name becomes <suites_dir>/<name>.json. A file that does not
// exist fails here, so the message can list the suites there are.
std::string resolve_suite_path(const std::string &path_or_name, const std::string &suites_dir) {
  const bool named = is_suite_name(path_or_name);
  const std::string path = named ? (fs::path(suites_dir) / (path_or_name + ".json")).string() : path_or_name;
  std::error_code ec;
  if (!fs::exists(path, ec)) {
    const std::string how = named ? "no suite named '" + path_or_name + "'" : "no such file";
    fail_file(kKind, path, how + " (" + available_suites(suites_dir) + "; or give a path to a .json suite file)");
  }
  return path;
}

std::string optional_string(const std::string &path, const std::string &where, const json &object, const char *key,
                            std::string fallback) {
  auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_string())
    fail_file(kKind, path, where + "\"" + key + "\" must be a string, got " + it->type_name() + " " + it->dump());
  return it->get<std::string>();
}

BenchOperator read_operator(const std::string &path, const json &entry, size_t index) {
  const std::string where = "operators[" + std::to_string(index) + "]";
  if (!entry.is_object())
    fail_file(kKind, path, where + " must be an object like {\"op\": \"matmul:M=512,N=512,K=512\"}, got " +
                               entry.type_name());
  refuse_unknown_keys(kKind, path, where, entry, {"op", "label", "trials", "weight"});

  auto op = entry.find("op");
  if (op == entry.end()) fail_file(kKind, path, where + " has no \"op\" (write \"op\": \"KIND:P=V,...\")");
  if (!op->is_string() || op->get<std::string>().empty())
    fail_file(kKind, path, where + ": \"op\" must be a non-empty string \"KIND:P=V,...\", got " + op->dump());

  BenchOperator result;
  result.op = op->get<std::string>();
  const std::string named = where + " (" + result.op + "): ";
  result.label = optional_string(path, named, entry, "label", "");

  auto trials = entry.find("trials");
  if (trials != entry.end()) {
    // 0 would mean "the command's --trials"; writing it is never needed, so refuse it.
    if (!trials->is_number_integer() || trials->get<int64_t>() < 1 || trials->get<int64_t>() > 1000000000)
      fail_file(kKind, path, named + "\"trials\" must be an integer >= 1 (or left out to use --trials), got " +
                                 trials->dump());
    result.trials = static_cast<int>(trials->get<int64_t>());
  }

  auto weight = entry.find("weight");
  if (weight != entry.end()) {
    if (!weight->is_number() || !(weight->get<double>() > 0) || !std::isfinite(weight->get<double>()))
      fail_file(kKind, path, named + "\"weight\" must be a number > 0, got " + weight->dump());
    result.weight = weight->get<double>();
  }
  return result;
}

std::vector<BenchOperator> read_operators(const std::string &path, const json &root) {
  auto ops = root.find("operators");
  if (ops == root.end())
    fail_file(kKind, path, "missing \"operators\" (an array of {\"op\": \"KIND:P=V,...\"} objects)");
  if (!ops->is_array())
    fail_file(kKind, path, std::string("\"operators\" must be an array, got ") + ops->type_name());
  if (ops->empty()) fail_file(kKind, path, "\"operators\" is empty (a suite needs at least one operator)");

  std::vector<BenchOperator> result;
  std::map<std::pair<std::string, std::string>, size_t> first_index;
  for (size_t i = 0; i < ops->size(); ++i) {
    BenchOperator op = read_operator(path, (*ops)[i], i);
    auto [it, inserted] = first_index.emplace(std::make_pair(op.op, op.label), i);
    if (!inserted)
      fail_file(kKind, path, "operators[" + std::to_string(i) + "] repeats op '" + op.op + "'" +
                                 (op.label.empty() ? "" : " with label '" + op.label + "'") + " of operators[" +
                                 std::to_string(it->second) + "] (remove one, or give them different labels)");
    result.push_back(std::move(op));
  }
  return result;
}

}  // namespace

bool is_suite_name(const std::string &path_or_name) {
  return path_or_name.find('/') == std::string::npos && !ends_with(path_or_name, ".json");
}

std::vector<std::string> list_bench_suites(const std::string &suites_dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (fs::directory_iterator it(suites_dir, ec), end; !ec && it != end; it.increment(ec))
    if (it->path().extension() == ".json") names.push_back(it->path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

BenchSuite read_bench_suite(const std::string &path_or_name, const std::string &suites_dir) {
  const std::string path = resolve_suite_path(path_or_name, suites_dir);
  const json root = read_json_object_file(kKind, path);
  refuse_unknown_keys(kKind, path, "the top level", root, {"format", "name", "description", "notes", "operators"});
  check_format(kKind, path, root, kBenchSuiteFormat);

  BenchSuite suite;
  suite.name = optional_string(path, "", root, "name", stem(path));
  suite.description = optional_string(path, "", root, "description", "");
  if (root.contains("notes") && !root["notes"].is_array())
    fail_file(kKind, path, std::string("\"notes\" must be an array of strings, got ") + root["notes"].type_name());
  suite.operators = read_operators(path, root);
  return suite;
}

}  // namespace tlp
