#include "tuner/bench/json_file.h"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

namespace tlp::bench_detail {
namespace {

using nlohmann::json;

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

std::string quoted_list(const std::vector<std::string> &keys) {
  std::string out;
  for (const auto &k : keys) out += (out.empty() ? "\"" : ", \"") + k + "\"";
  return out;
}

}  // namespace

void fail_file(const std::string &kind, const std::string &path, const std::string &what) {
  throw std::runtime_error(kind + " '" + path + "': " + what);
}

json read_json_object_file(const std::string &kind, const std::string &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail_file(kind, path, "is a directory, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) fail_file(kind, path, "cannot open it (does the file exist and is it readable?)");
  std::ostringstream buf;
  buf << in.rdbuf();
  if (in.bad()) fail_file(kind, path, "cannot read it");

  json root;
  try {
    root = json::parse(buf.str());
  } catch (const json::parse_error &e) {
    fail_file(kind, path, "invalid JSON: " + parser_message(e));
  }
  if (!root.is_object())
    fail_file(kind, path, std::string("the top level must be a JSON object, got ") + root.type_name());
  return root;
}

void refuse_unknown_keys(const std::string &kind, const std::string &path, const std::string &where,
                         const json &object, const std::vector<std::string> &allowed) {
  for (const auto &item : object.items()) {
    bool known = false;
    for (const auto &k : allowed) known = known || k == item.key();
    if (!known)
      fail_file(kind, path, where + " has an unknown key \"" + item.key() + "\" (allowed keys: " +
                                quoted_list(allowed) + "; check its spelling or remove it)");
  }
}

void check_format(const std::string &kind, const std::string &path, const json &root, int known) {
  const std::string k = std::to_string(known);
  auto it = root.find("format");
  if (it == root.end())
    fail_file(kind, path, "missing \"format\" (this reader understands format " + k + "; add \"format\": " + k + ")");
  if (!it->is_number_integer())
    fail_file(kind, path, std::string("\"format\" must be an integer, got ") + it->type_name() + " " + it->dump());
  const int64_t format = it->get<int64_t>();
  if (format > known)
    fail_file(kind, path, "format " + std::to_string(format) + " is newer than this tlptune understands (format " +
                              k + "); use a newer tlptune");
  if (format < 1) fail_file(kind, path, "unknown format " + std::to_string(format) + " (expected " + k + ")");
}

void write_file_atomically(const std::string &path, const std::string &text) {
  // The temporary sits in the same folder so the rename cannot cross file systems;
  // the pid keeps two writers from sharing it.
  const std::string tmp = path + ".tmp-" + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error("cannot write '" + tmp + "' (does the folder exist and is it writable?)");
    out << text;
    out.flush();
    if (!out) {
      out.close();
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write '" + tmp + "' (is the disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot replace '" + path + "': " + ec.message());
  }
}

void write_json_file(const std::string &path, const nlohmann::json &j) { write_file_atomically(path, j.dump(1) + "\n"); }

}  // namespace tlp::bench_detail
