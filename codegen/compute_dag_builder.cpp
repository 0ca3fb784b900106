// Derives the search's ComputeDag from an operator's Halide algorithm, so an
// operator is written once, in Halide, and the DAG cannot drift from it.
#include <stdexcept>

#include "codegen/operator.h"

namespace tlp {
namespace {

int64_t constant_extent(const Halide::Expr &e, const std::string &where) {
  const int64_t *v = Halide::Internal::as_const_int(e);
  if (!v) throw std::logic_error(where + ": reduction extents must be constants");
  return *v;
}

// Halide names RDom dimensions "r$x"; the DAG keeps names that are identifiers.
std::string identifier(std::string name) {
  for (char &c : name)
    if (c == '$' || c == '.') c = '_';
  return name;
}

DagStage input_stage(const Halide::ImageParam &p, const Shape &shape) {
  DagStage st;
  st.name = p.name();
  st.placeholder = true;
  // Placeholder loops are its dimensions, outermost first.
  for (int d = int(shape.size()) - 1; d >= 0; --d) st.iters.push_back({"d" + std::to_string(d), shape[d], IterKind::Spatial});
  return st;
}

DagStage compute_stage(const HalideAlgorithm::Stage &s) {
  DagStage st;
  st.name = s.func.name();
  st.reads = s.reads;
  const std::vector<Halide::Var> args = s.func.args();
  if (args.size() != s.extents.size())
    throw std::logic_error(st.name + ": extents must list one extent per argument");
  // Halide's loop nest runs its first argument innermost: reverse to outermost first.
  for (int i = int(args.size()) - 1; i >= 0; --i) st.iters.push_back({args[i].name(), s.extents[i], IterKind::Spatial});
  if (s.func.num_update_definitions() > 1) throw std::logic_error(st.name + ": at most one update definition");
  if (s.func.num_update_definitions() == 1) {
    const auto rvars = s.func.function().update(0).schedule().rvars();
    for (int i = int(rvars.size()) - 1; i >= 0; --i)
      st.iters.push_back({identifier(rvars[i].var), constant_extent(rvars[i].extent, st.name), IterKind::Reduce});
  }
  return st;
}

}  // namespace

ComputeDag make_compute_dag(const Operator &op) {
  HalideAlgorithm alg = op.build();
  const auto shapes = op.input_shapes();
  ComputeDag dag;
  for (size_t i = 0; i < alg.inputs.size(); ++i) dag.stages.push_back(input_stage(alg.inputs[i], shapes.at(i)));
  for (const auto &s : alg.stages) dag.stages.push_back(compute_stage(s));
  dag.stages.back().is_output = true;
  return dag;
}

}  // namespace tlp
