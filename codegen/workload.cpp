#include "codegen/workload.h"

#include <cctype>
#include <limits>

#include "codegen/layout_choice.h"
#include "codegen/operator.h"

namespace tlp {
namespace {

std::string trim(const std::string &s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::vector<std::string> split(const std::string &s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i)
    if (i == s.size() || s[i] == sep) {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  return parts;
}

std::string join(const std::vector<std::string> &items) {
  std::string out;
  for (const auto &s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

std::string param_names(const OpInfo &op) {
  std::vector<std::string> names;
  for (const auto &p : op.params) names.push_back(p.name);
  return join(names);
}

// Strict decimal integer: digits only (an optional sign), no trailing junk.
bool parse_int64(const std::string &s, int64_t &out) {
  if (s.empty()) return false;
  size_t i = (s[0] == '-' || s[0] == '+') ? 1 : 0;
  if (i == s.size()) return false;
  int64_t v = 0;
  for (; i < s.size(); ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    int d = s[i] - '0';
    if (v > (std::numeric_limits<int64_t>::max() - d) / 10) return false;  // overflow
    v = v * 10 + d;
  }
  out = s[0] == '-' ? -v : v;
  return true;
}

// Checks one value against its declared parameter; returns the canonical text.
std::string canonical_value(const OpInfo &op, const OpParamInfo &p, const std::string &value) {
  if (!p.choices.empty()) {
    for (const auto &c : p.choices)
      if (c == value) return value;
    throw WorkloadError(op.kind + ": " + p.name + " must be one of " + join(p.choices) + ", got '" + value + "'");
  }
  // Halide indexes with int32, so larger extents could never be built anyway.
  const int64_t max_value = std::numeric_limits<int32_t>::max();
  int64_t v = 0;
  if (!parse_int64(value, v) || v < p.min_value)
    throw WorkloadError(op.kind + ": " + p.name + " must be an integer >= " + std::to_string(p.min_value) +
                        ", got '" + value + "'");
  if (v > max_value)
    throw WorkloadError(op.kind + ": " + p.name + " must be at most " + std::to_string(max_value) + ", got '" +
                        value + "'");
  return std::to_string(v);
}

}  // namespace

std::string Workload::key() const {
  const std::vector<OpParamInfo> *declared = nullptr;
  for (const auto &op : op_library())
    if (op.kind == kind) declared = &op.params;
  std::string out = kind;
  bool first = true;
  for (size_t i = 0; i < params.size(); ++i) {
    const OpParamInfo *p = declared && i < declared->size() ? &(*declared)[i] : nullptr;
    if (p && !p->in_key_at_default && params[i].second == p->default_value) continue;
    out += (first ? ":" : ",") + params[i].first + "=" + params[i].second;
    first = false;
  }
  return out;
}

const std::string &Workload::get_str(const std::string &name) const {
  for (const auto &p : params)
    if (p.first == name) return p.second;
  throw WorkloadError("workload '" + key() + "' has no parameter '" + name + "'");
}

int64_t Workload::get_int(const std::string &name) const {
  const std::string &s = get_str(name);
  int64_t v = 0;
  if (!parse_int64(s, v))
    throw WorkloadError("workload '" + key() + "': parameter '" + name + "' is not an integer ('" + s + "')");
  return v;
}

Workload parse_workload(const std::string &spec) {
  const std::string text = trim(spec);
  if (text.empty()) throw WorkloadError("empty workload spec (write KIND or KIND:P=V,P=V,...; run 'tlptune ops')");

  const size_t colon = text.find(':');
  const OpInfo &op = find_op(trim(text.substr(0, colon)));

  std::vector<std::string> given(op.params.size());
  std::vector<bool> seen(op.params.size(), false);
  if (colon != std::string::npos) {
    for (const std::string &raw : split(text.substr(colon + 1), ',')) {
      const std::string item = trim(raw);
      if (item.empty())
        throw WorkloadError("empty parameter in '" + text + "' (write " + op.kind + ":P=V,P=V with parameters " +
                            param_names(op) + ")");
      const size_t eq = item.find('=');
      if (eq == std::string::npos)
        throw WorkloadError(op.kind + ": parameter '" + item + "' is missing '=' (write P=V, e.g. " +
                            op.params.front().name + "=" + op.params.front().default_value + ")");
      const std::string name = trim(item.substr(0, eq));
      const std::string value = trim(item.substr(eq + 1));
      size_t idx = 0;
      while (idx < op.params.size() && op.params[idx].name != name) ++idx;
      if (idx == op.params.size())
        throw WorkloadError(op.kind + " has no parameter '" + name + "' (its parameters: " + param_names(op) + ")");
      if (seen[idx]) throw WorkloadError(op.kind + ": parameter '" + name + "' is given twice (give it once)");
      seen[idx] = true;
      given[idx] = canonical_value(op, op.params[idx], value);
    }
  }

  Workload w;
  w.kind = op.kind;
  for (size_t i = 0; i < op.params.size(); ++i)
    w.params.emplace_back(op.params[i].name, seen[i] ? given[i] : op.params[i].default_value);
  return w;
}

Workload plain_layout_form(const Workload &w) {
  Workload plain = w;
  for (auto &p : plain.params)
    if (p.first == "layout" && (layout_block(p.second) > 0 || activation_memory_layout(p.second) != p.second))
      for (const OpParamInfo &info : find_op(w.kind).params)
        if (info.name == "layout") p.second = info.default_value;
  return plain;
}

}  // namespace tlp
