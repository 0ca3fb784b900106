// The interface every sketch rule implements, after Ansor's sketch generation
// rules (search_policy/sketch_policy_rules): a rule looks at the stages in a
// SketchContext and emits the steps of one structural decision for those it
// applies to, drawing its random choices from the context's generator.
//
// Unlike Ansor, a rule here is a pass over all stages, and the rules run one
// after another in a fixed order (ScheduleSpace::sample): each later rule sees
// the loop state the earlier ones left (for example, fused tiling only tiles
// stages the inline rule did not inline).
//
// To add a rule:
//   1. declare it in sketch_rules.h and define it in its own file
//      search/sketch/<name>_rule.cpp, added to tlp_search in search/CMakeLists.txt;
//   2. put it in the rule list in schedule_space.cpp, where its order matters;
//   3. test it alone on a fixture DAG in tests/search/sketch_rules_test.cpp.
// Any new random draw changes every schedule sampled after it for a given seed.
#pragma once

#include "search/sketch/sketch_context.h"

namespace tlp {

class SketchRule {
 public:
  virtual ~SketchRule() = default;
  // A short name for logs and tests, such as "inline_elementwise".
  virtual const char *name() const = 0;
  // Emits this rule's steps into ctx (possibly none).
  virtual void apply(SketchContext &ctx) const = 0;
};

}  // namespace tlp
