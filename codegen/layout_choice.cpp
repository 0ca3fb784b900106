#include "codegen/layout_choice.h"

#include <algorithm>
#include <functional>
#include <regex>

#include "codegen/operator.h"

namespace tlp {
namespace {

const std::regex &any_layout() {
  static const std::regex re("(^|[:,])\\s*layout\\s*=\\s*any\\s*(?=,|$)");
  return re;
}

}  // namespace

bool chooses_layout(const std::string &spec) { return std::regex_search(spec, any_layout()); }

namespace {

const OpParamInfo *layout_param(const std::string &kind) {
  for (const OpParamInfo &p : find_op(kind).params)
    if (p.name == "layout") return &p;
  return nullptr;
}

}  // namespace

bool has_layout(const std::string &kind) { return layout_param(kind) != nullptr; }

bool layout_is_weights_only(const std::string &kind) {
  const OpParamInfo *p = layout_param(kind);
  return p && std::find(p->choices.begin(), p->choices.end(), "NCHW") == p->choices.end();
}

const char *const kGemmLayout = "NCHWgemm";

namespace {
const std::string kGemmSuffix = "gemm";
}  // namespace

bool is_gemm_layout(const std::string &layout) {
  return layout.size() > kGemmSuffix.size() && layout.compare(layout.size() - kGemmSuffix.size(), kGemmSuffix.size(), kGemmSuffix) == 0;
}

std::string activation_memory_layout(const std::string &layout) {
  return is_gemm_layout(layout) ? layout.substr(0, layout.size() - kGemmSuffix.size()) : layout;
}

int layout_block(const std::string &layout) {
  const size_t digits = layout.find_first_of("0123456789");
  return digits == std::string::npos ? 0 : std::stoi(layout.substr(digits));
}

std::string with_any_layout(const std::string &spec) {
  const size_t colon = spec.find(':');
  if (!has_layout(spec.substr(0, colon))) return spec;
  static const std::regex given("(^|[:,])\\s*layout\\s*=[^,]*");
  if (std::regex_search(spec, given)) return std::regex_replace(spec, given, "$1layout=any");
  return spec + (colon == std::string::npos ? ":" : ",") + "layout=any";
}

std::string representative_spec(const std::string &spec) {
  if (!chooses_layout(spec)) return spec;
  const OpParamInfo *p = layout_param(spec.substr(0, spec.find(':')));
  return std::regex_replace(spec, any_layout(), "$1layout=" + (p ? p->default_value : std::string("NCHW")));
}

namespace {

// The concrete variants of a layout=any spec among its operator's layouts that
// `wanted` accepts; blocks that do not divide the channels are left out.
std::vector<std::string> concrete_variants(const std::string &spec, const std::function<bool(const std::string &)> &wanted) {
  const std::string kind = spec.substr(0, spec.find(':'));
  const OpParamInfo *layout = layout_param(kind);
  if (!layout) throw WorkloadError(kind + " has no layout to choose (layout=any is for operators with a layout parameter)");
  std::vector<std::string> keys;
  for (const std::string &choice : layout->choices) {
    if (choice == "any" || !wanted(choice)) continue;
    const std::string concrete = std::regex_replace(spec, any_layout(), "$1layout=" + choice);
    try {
      keys.push_back(make_operator(concrete)->workload().key());
    } catch (const WorkloadError &) {
      // A plain layout always fits: the spec itself is wrong. A block or a gemm form may not.
      if (layout_block(choice) == 0 && !is_gemm_layout(choice)) throw;
    }
  }
  return keys;
}

}  // namespace

std::vector<std::string> layout_variants(const std::string &spec, const Halide::Target &target) {
  const int lanes = target.natural_vector_size(Halide::Float(32));
  return concrete_variants(spec, [lanes](const std::string &choice) {
    const int block = layout_block(choice);
    return block == 0 || block == lanes || block == 2 * lanes;  // plain, or one or two vectors per block
  });
}

std::vector<std::string> every_layout_variant(const std::string &spec) {
  if (!has_layout(spec.substr(0, spec.find(':')))) return {make_operator(spec)->workload().key()};
  return concrete_variants(with_any_layout(spec), [](const std::string &) { return true; });
}

}  // namespace tlp
