// One schedule primitive: the unit of the schedule IR.
//
// A step is plain data. Every kind has a fixed list of fields (kStepLayouts in
// step.cpp); that one table drives the text form, the JSON form, the structural
// validator and the TLP featurization, so adding a kind means adding one table row
// plus its meaning in LoopState::apply and in codegen's lowering.
//
// The vocabulary mirrors Ansor's (SP, FSP, RE, FU, AN, CA, CI, CR, CHW, CHR, RF, PR)
// so that TLP's featurization stays faithful to the paper.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace tlp {

enum class StepKind { SP, FSP, RE, FU, AN, CA, CI, CR, CHW, CHR, RF, PR };
constexpr int kNumStepKinds = 12;

enum class Annotation { None, Parallel, Vectorize, Unroll, GpuBlock, GpuThread };
enum class MemScope { Local, Shared, Global };

// The fields a step may carry. Which ones a kind uses is in its layout.
enum class StepField {
  Stage,        // stage index in the loop state at the time of the step
  Iter,         // loop index within that stage
  Extent,       // SP: extent of the loop being split (kept for featurization)
  Factors,      // SP: lengths of the inner parts, outermost first
  Ids,          // RE: the full new loop order; FU: consecutive loops to fuse
  SrcStep,      // FSP: index of the SP step whose factors are followed
  NSplit,       // FSP: how many of that step's factors to use
  Annotation,   // AN
  TargetStage,  // CA: consumer stage; CHR: the stage that reads the cache
  TargetIter,   // CA: loop of the consumer to compute at
  Scope,        // CHW, CHR
  FactorIter,   // RF: position of the new spatial loop in the rfactored stage
  Value,        // PR: auto-unroll limit (product of unrolled extents)
};

struct Step {
  StepKind kind = StepKind::CR;
  int stage = 0;
  int iter = 0;
  int64_t extent = 0;
  std::vector<int> factors;
  std::vector<int> ids;
  int src_step = 0;
  int n_split = 0;
  Annotation annotation = Annotation::None;
  int target_stage = 0;
  int target_iter = 0;
  MemScope scope = MemScope::Local;
  int factor_iter = 0;
  int value = 0;

  static Step of(StepKind k) {
    Step s;
    s.kind = k;
    return s;
  }

  bool operator==(const Step &o) const;
  bool operator!=(const Step &o) const { return !(*this == o); }

  // "SP(3,0,1024,[8,16])". Parses what to_text prints; throws ScheduleError.
  std::string to_text() const;
  static Step from_text(const std::string &text);

  // ["SP",3,0,1024,[8,16]]: the kind name, then the layout's fields in order.
  nlohmann::json to_json() const;
  static Step from_json(const nlohmann::json &j);

  // Checks the fields alone (no loop state): non-negative indices, factors >= 1,
  // non-empty id lists. Throws ScheduleError naming the step and the reason.
  void validate_fields() const;

 private:
  static Step parse_text(const std::string &text);
};

// Raised for any ill-formed step or schedule; the message names the step.
class ScheduleError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

const char *step_kind_name(StepKind k);
StepKind step_kind_from_name(const std::string &name);  // throws ScheduleError
const char *annotation_name(Annotation a);
Annotation annotation_from_name(const std::string &name);
const char *mem_scope_name(MemScope s);
MemScope mem_scope_from_name(const std::string &name);

// The ordered fields of a kind: the single source of truth for the forms above.
const std::vector<StepField> &step_layout(StepKind k);

// The layout's fields as numbers in order, lists flattened, enums as small
// integers. TLP's "raw" featurization appends these after the kind's one-hot.
std::vector<double> step_numeric_fields(const Step &s);

}  // namespace tlp
