#include "search/step.h"

#include <array>
#include <cctype>
#include <sstream>

#include <nlohmann/json.hpp>

namespace tlp {
namespace {

using F = StepField;

struct KindInfo {
  StepKind kind;
  const char *name;
  std::vector<StepField> layout;
};

// The one table. Field order follows TLP's reference layout where it has one.
const std::array<KindInfo, kNumStepKinds> &kind_table() {
  static const std::array<KindInfo, kNumStepKinds> table = {{
      {StepKind::SP, "SP", {F::Stage, F::Iter, F::Extent, F::Factors}},
      {StepKind::FSP, "FSP", {F::Stage, F::Iter, F::SrcStep, F::NSplit}},
      {StepKind::RE, "RE", {F::Stage, F::Ids}},
      {StepKind::FU, "FU", {F::Stage, F::Ids}},
      {StepKind::AN, "AN", {F::Stage, F::Iter, F::Annotation}},
      {StepKind::CA, "CA", {F::Stage, F::TargetStage, F::TargetIter}},
      {StepKind::CI, "CI", {F::Stage}},
      {StepKind::CR, "CR", {F::Stage}},
      {StepKind::CHW, "CHW", {F::Stage, F::Scope}},
      {StepKind::CHR, "CHR", {F::Stage, F::TargetStage, F::Scope}},
      {StepKind::RF, "RF", {F::Stage, F::Iter, F::FactorIter}},
      {StepKind::PR, "PR", {F::Stage, F::Iter, F::Value}},
  }};
  return table;
}

const char *kAnnotationNames[] = {"none", "parallel", "vectorize", "unroll", "gpu_block", "gpu_thread"};
const char *kScopeNames[] = {"local", "shared", "global"};

bool is_list(StepField f) { return f == F::Factors || f == F::Ids; }

int64_t get_int(const Step &s, StepField f) {
  switch (f) {
    case F::Stage: return s.stage;
    case F::Iter: return s.iter;
    case F::Extent: return s.extent;
    case F::SrcStep: return s.src_step;
    case F::NSplit: return s.n_split;
    case F::Annotation: return static_cast<int>(s.annotation);
    case F::TargetStage: return s.target_stage;
    case F::TargetIter: return s.target_iter;
    case F::Scope: return static_cast<int>(s.scope);
    case F::FactorIter: return s.factor_iter;
    case F::Value: return s.value;
    default: throw ScheduleError("internal: field is a list");
  }
}

void set_int(Step &s, StepField f, int64_t v) {
  switch (f) {
    case F::Stage: s.stage = int(v); break;
    case F::Iter: s.iter = int(v); break;
    case F::Extent: s.extent = v; break;
    case F::SrcStep: s.src_step = int(v); break;
    case F::NSplit: s.n_split = int(v); break;
    case F::TargetStage: s.target_stage = int(v); break;
    case F::TargetIter: s.target_iter = int(v); break;
    case F::FactorIter: s.factor_iter = int(v); break;
    case F::Value: s.value = int(v); break;
    default: throw ScheduleError("internal: field is not a plain integer");
  }
}

const std::vector<int> &get_list(const Step &s, StepField f) { return f == F::Factors ? s.factors : s.ids; }
std::vector<int> &get_list(Step &s, StepField f) { return f == F::Factors ? s.factors : s.ids; }

[[noreturn]] void fail(const std::string &what, const std::string &why) {
  throw ScheduleError("step " + what + ": " + why);
}

// A tiny tokenizer for the text form: KIND(a,b,[c,d],word)
class TextReader {
 public:
  explicit TextReader(const std::string &t) : t_(t) {}
  void skip_ws() { while (i_ < t_.size() && std::isspace(static_cast<unsigned char>(t_[i_]))) ++i_; }
  bool peek(char c) { skip_ws(); return i_ < t_.size() && t_[i_] == c; }
  void expect(char c) {
    if (!peek(c)) fail("'" + t_ + "'", std::string("expected '") + c + "' at column " + std::to_string(i_ + 1));
    ++i_;
  }
  std::string word() {
    skip_ws();
    size_t start = i_;
    while (i_ < t_.size() && (std::isalnum(static_cast<unsigned char>(t_[i_])) || t_[i_] == '_' || t_[i_] == '-')) ++i_;
    if (start == i_) fail("'" + t_ + "'", "expected a value at column " + std::to_string(i_ + 1));
    return t_.substr(start, i_ - start);
  }
  int64_t integer() {
    std::string w = word();
    try {
      size_t used = 0;
      int64_t v = std::stoll(w, &used);
      if (used != w.size()) throw std::invalid_argument(w);
      return v;
    } catch (const std::exception &) {
      fail("'" + t_ + "'", "'" + w + "' is not an integer");
    }
  }
  bool at_end() { skip_ws(); return i_ == t_.size(); }

 private:
  const std::string &t_;
  size_t i_ = 0;
};

}  // namespace

const char *step_kind_name(StepKind k) { return kind_table()[static_cast<int>(k)].name; }

StepKind step_kind_from_name(const std::string &name) {
  for (const auto &info : kind_table())
    if (name == info.name) return info.kind;
  throw ScheduleError("unknown step kind '" + name + "' (known: SP FSP RE FU AN CA CI CR CHW CHR RF PR)");
}

const char *annotation_name(Annotation a) { return kAnnotationNames[static_cast<int>(a)]; }

Annotation annotation_from_name(const std::string &name) {
  for (int i = 0; i < 6; ++i)
    if (name == kAnnotationNames[i]) return static_cast<Annotation>(i);
  throw ScheduleError("unknown annotation '" + name + "' (known: parallel vectorize unroll gpu_block gpu_thread)");
}

const char *mem_scope_name(MemScope s) { return kScopeNames[static_cast<int>(s)]; }

MemScope mem_scope_from_name(const std::string &name) {
  for (int i = 0; i < 3; ++i)
    if (name == kScopeNames[i]) return static_cast<MemScope>(i);
  throw ScheduleError("unknown memory scope '" + name + "' (known: local shared global)");
}

const std::vector<StepField> &step_layout(StepKind k) { return kind_table()[static_cast<int>(k)].layout; }

bool Step::operator==(const Step &o) const {
  if (kind != o.kind) return false;
  for (StepField f : step_layout(kind)) {
    if (is_list(f) ? get_list(*this, f) != get_list(o, f) : get_int(*this, f) != get_int(o, f)) return false;
  }
  return true;
}

std::string Step::to_text() const {
  std::ostringstream os;
  os << step_kind_name(kind) << '(';
  bool first = true;
  for (StepField f : step_layout(kind)) {
    if (!first) os << ',';
    first = false;
    if (is_list(f)) {
      os << '[';
      const auto &l = get_list(*this, f);
      for (size_t i = 0; i < l.size(); ++i) os << (i ? "," : "") << l[i];
      os << ']';
    } else if (f == F::Annotation) {
      os << annotation_name(annotation);
    } else if (f == F::Scope) {
      os << mem_scope_name(scope);
    } else {
      os << get_int(*this, f);
    }
  }
  os << ')';
  return os.str();
}

Step Step::from_text(const std::string &text) {
  try {
    return parse_text(text);
  } catch (const ScheduleError &e) {
    const std::string what = e.what();
    if (what.rfind("step ", 0) == 0) throw;  // already names the step
    fail("'" + text + "'", what);
  }
}

Step Step::parse_text(const std::string &text) {
  TextReader r(text);
  Step s;
  s.kind = step_kind_from_name(r.word());
  r.expect('(');
  bool first = true;
  for (StepField f : step_layout(s.kind)) {
    if (!first) r.expect(',');
    first = false;
    if (is_list(f)) {
      r.expect('[');
      auto &l = get_list(s, f);
      while (!r.peek(']')) {
        if (!l.empty()) r.expect(',');
        l.push_back(int(r.integer()));
      }
      r.expect(']');
    } else if (f == F::Annotation) {
      s.annotation = annotation_from_name(r.word());
    } else if (f == F::Scope) {
      s.scope = mem_scope_from_name(r.word());
    } else {
      set_int(s, f, r.integer());
    }
  }
  r.expect(')');
  if (!r.at_end()) fail("'" + text + "'", "unexpected text after ')'");
  s.validate_fields();
  return s;
}

nlohmann::json Step::to_json() const {
  nlohmann::json j = nlohmann::json::array();
  j.push_back(step_kind_name(kind));
  for (StepField f : step_layout(kind)) {
    if (is_list(f)) j.push_back(get_list(*this, f));
    else if (f == F::Annotation) j.push_back(annotation_name(annotation));
    else if (f == F::Scope) j.push_back(mem_scope_name(scope));
    else j.push_back(get_int(*this, f));
  }
  return j;
}

Step Step::from_json(const nlohmann::json &j) {
  if (!j.is_array() || j.empty() || !j[0].is_string())
    throw ScheduleError("step " + j.dump() + ": expected an array starting with the step kind");
  Step s;
  s.kind = step_kind_from_name(j[0].get<std::string>());
  const auto &layout = step_layout(s.kind);
  if (j.size() != layout.size() + 1)
    fail(j.dump(), "expected " + std::to_string(layout.size()) + " fields after the kind, got " +
                       std::to_string(j.size() - 1));
  for (size_t i = 0; i < layout.size(); ++i) {
    StepField f = layout[i];
    const auto &v = j[i + 1];
    if (is_list(f)) {
      if (!v.is_array()) fail(j.dump(), "field " + std::to_string(i + 1) + " must be a list");
      for (const auto &e : v) {
        if (!e.is_number_integer()) fail(j.dump(), "list field " + std::to_string(i + 1) + " holds a non-integer");
        get_list(s, f).push_back(e.get<int>());
      }
    } else if (f == F::Annotation || f == F::Scope) {
      if (!v.is_string()) fail(j.dump(), "field " + std::to_string(i + 1) + " must be a name");
      if (f == F::Annotation) s.annotation = annotation_from_name(v.get<std::string>());
      else s.scope = mem_scope_from_name(v.get<std::string>());
    } else {
      if (!v.is_number_integer()) fail(j.dump(), "field " + std::to_string(i + 1) + " must be an integer");
      set_int(s, f, v.get<int64_t>());
    }
  }
  s.validate_fields();
  return s;
}

void Step::validate_fields() const {
  const std::string me = to_text();
  for (StepField f : step_layout(kind)) {
    if (is_list(f)) {
      const auto &l = get_list(*this, f);
      if (l.empty()) fail(me, "its list is empty");
      for (int v : l) {
        if (f == F::Factors && v < 1) fail(me, "split factors must be >= 1");
        if (f == F::Ids && v < 0) fail(me, "loop ids must be >= 0");
      }
    } else if (f != F::Annotation && f != F::Scope && get_int(*this, f) < 0) {
      fail(me, "fields must not be negative");
    }
  }
  if (kind == StepKind::FU && ids.size() < 2) fail(me, "a fuse needs at least two loops");
  if (kind == StepKind::FSP && n_split < 1) fail(me, "n_split must be >= 1");
  if (kind == StepKind::AN && annotation == Annotation::None) fail(me, "annotation 'none' annotates nothing");
  if (kind == StepKind::CA && target_stage == stage) fail(me, "a stage cannot be computed at its own loop");
}

std::vector<double> step_numeric_fields(const Step &s) {
  std::vector<double> out;
  for (StepField f : step_layout(s.kind)) {
    if (is_list(f)) {
      for (int v : get_list(s, f)) out.push_back(v);
    } else {
      out.push_back(static_cast<double>(get_int(s, f)));
    }
  }
  return out;
}

}  // namespace tlp
