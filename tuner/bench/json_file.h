// File helpers shared by the bench readers and writers: read a JSON file with
// messages that name it, refuse unknown keys, and replace a file atomically.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace tlp::bench_detail {

// Throws std::runtime_error("<kind> '<path>': <what>"), e.g. "suite file 'x.json': ...".
[[noreturn]] void fail_file(const std::string &kind, const std::string &path, const std::string &what);

// Reads and parses `path`. Errors (unreadable, a directory, invalid JSON with line
// and column, a top level that is not an object) go through fail_file.
nlohmann::json read_json_object_file(const std::string &kind, const std::string &path);

// Fails (through fail_file) on the first key of `object` not in `allowed`, naming
// `where` (e.g. "operators[2]") and the allowed keys.
void refuse_unknown_keys(const std::string &kind, const std::string &path, const std::string &where,
                         const nlohmann::json &object, const std::vector<std::string> &allowed);

// Checks the required integer "format" of a file against the newest `known` one.
void check_format(const std::string &kind, const std::string &path, const nlohmann::json &root, int known);

// Writes `text` to a temporary file beside `path`, then renames it over `path`, so
// a reader never sees a half-written file. Throws std::runtime_error on failure,
// leaving any old `path` untouched.
void write_file_atomically(const std::string &path, const std::string &text);

// `j`, indented by one space, through write_file_atomically.
void write_json_file(const std::string &path, const nlohmann::json &j);

}  // namespace tlp::bench_detail
