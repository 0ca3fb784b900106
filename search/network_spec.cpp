#include "search/network_spec.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <unordered_map>

#include <nlohmann/json.hpp>

namespace tlp {
namespace {

using nlohmann::json;

// "network file 'x.json': <what>".
[[noreturn]] void fail(const std::string &path, const std::string &what) {
  throw std::runtime_error("network file '" + path + "': " + what);
}

// The file name without folders and without its last extension.
std::string stem(const std::string &path) {
  const size_t slash = path.find_last_of("/\\");
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  const size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  return base;
}

// nlohmann's messages start with "[json.exception.parse_error.101] "; keep the rest,
// which says "parse error at line L, column C: ...".
std::string parser_message(const json::parse_error &e) {
  std::string msg = e.what();
  if (!msg.empty() && msg[0] == '[') {
    const size_t close = msg.find("] ");
    if (close != std::string::npos) msg = msg.substr(close + 2);
  }
  return msg;
}

const char *type_of(const json &j) { return j.type_name(); }

int read_format(const std::string &path, const json &root) {
  auto it = root.find("format");
  if (it == root.end())
    fail(path, "missing \"format\" (this reader understands format " + std::to_string(kNetworkSpecFormat) +
                   "; add \"format\": " + std::to_string(kNetworkSpecFormat) + ")");
  if (!it->is_number_integer())
    fail(path, std::string("\"format\" must be an integer, got ") + type_of(*it) + " " + it->dump());
  const int64_t format = it->get<int64_t>();
  if (format > kNetworkSpecFormat)
    fail(path, "format " + std::to_string(format) + " is newer than this tlptune understands (format " +
                   std::to_string(kNetworkSpecFormat) + "); use a newer tlptune");
  if (format < 1) fail(path, "unknown format " + std::to_string(format) + " (expected " +
                                 std::to_string(kNetworkSpecFormat) + ")");
  return static_cast<int>(format);
}

std::string optional_string(const std::string &path, const json &root, const char *key, std::string fallback) {
  auto it = root.find(key);
  if (it == root.end()) return fallback;
  if (!it->is_string()) fail(path, std::string("\"") + key + "\" must be a string, got " + type_of(*it));
  return it->get<std::string>();
}

NetworkTask read_task(const std::string &path, const json &t, size_t index) {
  const std::string where = "tasks[" + std::to_string(index) + "]";
  if (!t.is_object())
    fail(path, where + " must be an object like {\"op\": \"matmul:M=1,N=1000,K=2048\", \"weight\": 1}, got " +
                   type_of(t));
  auto op = t.find("op");
  if (op == t.end()) fail(path, where + " has no \"op\" (write \"op\": \"KIND:P=V,...\")");
  if (!op->is_string() || op->get<std::string>().empty())
    fail(path, where + ": \"op\" must be a non-empty string \"KIND:P=V,...\", got " + op->dump());
  NetworkTask task{op->get<std::string>(), 1.0};
  auto w = t.find("weight");
  if (w != t.end()) {
    if (!w->is_number())
      fail(path, where + " (" + task.op + "): \"weight\" must be a number > 0, got " + type_of(*w) + " " +
                     w->dump());
    task.weight = w->get<double>();
    if (!(task.weight > 0) || !std::isfinite(task.weight))
      fail(path, where + " (" + task.op + "): \"weight\" must be a number > 0, got " + w->dump());
  }
  auto nodes = t.find("onnx_nodes");
  if (nodes != t.end()) {
    const auto names = [](const json &v) {
      return v.is_array() && std::all_of(v.begin(), v.end(), [](const json &n) { return n.is_string(); });
    };
    if (!nodes->is_array() || !std::all_of(nodes->begin(), nodes->end(), names))
      fail(path, where + " (" + task.op + "): \"onnx_nodes\" must be an array with one array of node names per "
                                          "occurrence, got " + nodes->dump());
    task.onnx_nodes = nodes->get<std::vector<std::vector<std::string>>>();
  }
  return task;
}

}  // namespace

NetworkSpec read_network_spec(const std::string &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, "is a directory, not a network file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(path, "cannot open it (does the file exist and is it readable?)");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) fail(path, "cannot read it");

  json root;
  try {
    root = json::parse(buf.str());
  } catch (const json::parse_error &e) {
    fail(path, "invalid JSON: " + parser_message(e));
  }
  if (!root.is_object()) fail(path, std::string("the top level must be a JSON object, got ") + type_of(root));

  read_format(path, root);

  NetworkSpec spec;
  spec.name = optional_string(path, root, "name", stem(path));
  spec.description = optional_string(path, root, "description", "");

  auto tasks = root.find("tasks");
  if (tasks == root.end()) fail(path, "missing \"tasks\" (an array of {\"op\": ..., \"weight\": ...})");
  if (!tasks->is_array()) fail(path, std::string("\"tasks\" must be an array, got ") + type_of(*tasks));
  if (tasks->empty()) fail(path, "\"tasks\" is empty (a network needs at least one operator)");

  std::unordered_map<std::string, size_t> first_index;
  for (size_t i = 0; i < tasks->size(); ++i) {
    NetworkTask task = read_task(path, (*tasks)[i], i);
    auto [it, inserted] = first_index.emplace(task.op, i);
    if (!inserted)
      fail(path, "tasks[" + std::to_string(i) + "] repeats op '" + task.op + "' of tasks[" +
                     std::to_string(it->second) + "] (merge them into one task and add their weights)");
    spec.tasks.push_back(std::move(task));
  }
  return spec;
}

}  // namespace tlp
