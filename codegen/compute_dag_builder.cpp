// Derives the search's ComputeDag from an operator's Halide algorithm, so an
// operator is written once, in Halide, and the DAG cannot drift from it.
#include <map>
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

// The calls a definition makes to other stages (not to itself).
class CallCollector : public Halide::Internal::IRGraphVisitor {
 public:
  explicit CallCollector(std::string self) : self_(std::move(self)) {}
  std::vector<const Halide::Internal::Call *> calls;

 private:
  using Halide::Internal::IRGraphVisitor::visit;
  void visit(const Halide::Internal::Call *op) override {
    const bool stage_call = op->call_type == Halide::Internal::Call::Halide || op->call_type == Halide::Internal::Call::Image;
    if (stage_call && op->name != self_) calls.push_back(op);
    Halide::Internal::IRGraphVisitor::visit(op);
  }
  std::string self_;
};

// The coefficient of `var` in `index`: index(var + 1) - index(var) when that is
// a constant, else 0 (not affine in var). An index `e % b` (the position within a
// block, as a packed layout reads it) takes e's coefficient: within a block it walks
// memory as e does.
int64_t coefficient(const Halide::Expr &index, const std::string &var) {
  using namespace Halide::Internal;
  if (const Mod *mod = index.as<Mod>(); mod && is_const(mod->b)) return coefficient(mod->a, var);
  const Halide::Expr v = Variable::make(Halide::Int(32), var);
  const Halide::Expr step = simplify(substitute(var, v + 1, index) - index);
  const int64_t *c = as_const_int(step);
  return c ? *c : 0;
}

// Each call's index, per producer loop (outermost first): the consumer loops
// it uses. `loops` maps the variable names in the expressions to the DAG's
// loop names; `stage_of` maps a callee's name to its DAG index.
std::vector<DagAccess> stage_accesses(const Halide::Func &f, const std::map<std::string, std::string> &loops,
                                      const std::map<std::string, int> &stage_of) {
  CallCollector collector(f.name());
  const Halide::Internal::Function fn = f.function();
  for (const Halide::Expr &e : fn.definition().values()) e.accept(&collector);
  for (int u = 0; u < f.num_update_definitions(); ++u)
    for (const Halide::Expr &e : fn.update(u).values()) e.accept(&collector);
  std::vector<DagAccess> out;
  for (const Halide::Internal::Call *call : collector.calls) {
    const auto producer = stage_of.find(call->name);
    if (producer == stage_of.end()) continue;
    DagAccess access;
    access.producer = producer->second;
    for (auto arg = call->args.rbegin(); arg != call->args.rend(); ++arg) {
      std::vector<std::pair<std::string, int64_t>> dim;
      for (const auto &[var, loop] : loops)
        if (Halide::Internal::expr_uses_var(*arg, var)) dim.emplace_back(loop, coefficient(*arg, var));
      access.dims.push_back(dim);
    }
    out.push_back(access);
  }
  return out;
}

DagStage compute_stage(const HalideAlgorithm::Stage &s, const std::map<std::string, int> &stage_of) {
  DagStage st;
  st.name = s.func.name();
  st.reads = s.reads;
  const std::vector<Halide::Var> args = s.func.args();
  if (args.size() != s.extents.size())
    throw std::logic_error(st.name + ": extents must list one extent per argument");
  // Halide's loop nest runs its first argument innermost: reverse to outermost first.
  for (int i = int(args.size()) - 1; i >= 0; --i) st.iters.push_back({args[i].name(), s.extents[i], IterKind::Spatial});
  if (s.func.num_update_definitions() > 1) throw std::logic_error(st.name + ": at most one update definition");
  std::map<std::string, std::string> loops;  // expression variable -> DAG loop name
  for (const Halide::Var &v : args) loops[v.name()] = v.name();
  if (s.func.num_update_definitions() == 1) {
    const auto rvars = s.func.function().update(0).schedule().rvars();
    for (int i = int(rvars.size()) - 1; i >= 0; --i) {
      st.iters.push_back({identifier(rvars[i].var), constant_extent(rvars[i].extent, st.name), IterKind::Reduce});
      loops[rvars[i].var] = identifier(rvars[i].var);
    }
  }
  st.accesses = stage_accesses(s.func, loops, stage_of);
  return st;
}

// Whether an index stays below a bound however far its variables run upward:
// min(e, hi), or clamp(e, lo, hi) (a max over a min). A rounded-up tail only
// runs loops past their end, never before their start.
bool bounded_above(const Halide::Expr &index) {
  using namespace Halide::Internal;
  if (index.as<Min>()) return true;
  const Max *m = index.as<Max>();
  return m && (m->a.as<Min>() || m->b.as<Min>());
}

// Which pure variables of which stages may run past their extent (DagIter::
// extendable): a variable is, when every read that uses it either clamps the
// index or goes to a compute stage whose variable at that position is.
class Extendability {
 public:
  Extendability(const HalideAlgorithm &alg, const std::map<std::string, int> &stage_of)
      : alg_(alg), stage_of_(stage_of) {}

  bool of(size_t stage, const std::string &var) {
    const auto key = std::make_pair(stage, var);
    if (const auto known = memo_.find(key); known != memo_.end()) return known->second;
    memo_[key] = false;  // the stages form a DAG; this only guards against surprises
    const Halide::Func &f = alg_.stages[stage].func;
    CallCollector collector(f.name());
    const Halide::Internal::Function fn = f.function();
    for (const Halide::Expr &e : fn.definition().values()) e.accept(&collector);
    for (int u = 0; u < f.num_update_definitions(); ++u)
      for (const Halide::Expr &e : fn.update(u).values()) e.accept(&collector);
    bool ok = true;
    for (const Halide::Internal::Call *call : collector.calls)
      for (size_t d = 0; ok && d < call->args.size(); ++d)
        if (Halide::Internal::expr_uses_var(call->args[d], var) && !bounded_above(call->args[d]))
          ok = reads_extendable(call, d);
    return memo_[key] = ok;
  }

 private:
  // An unclamped read at argument d of `call`: fine only into a compute stage
  // whose own variable there may run past its extent.
  bool reads_extendable(const Halide::Internal::Call *call, size_t d) {
    if (call->call_type != Halide::Internal::Call::Halide) return false;
    const auto producer = stage_of_.find(call->name);
    const size_t first_stage = alg_.inputs.size();
    if (producer == stage_of_.end() || size_t(producer->second) < first_stage) return false;
    const size_t p = size_t(producer->second) - first_stage;
    const std::vector<Halide::Var> args = alg_.stages[p].func.args();
    return d < args.size() && of(p, args[d].name());
  }

  const HalideAlgorithm &alg_;
  const std::map<std::string, int> &stage_of_;
  std::map<std::pair<size_t, std::string>, bool> memo_;
};

}  // namespace

ComputeDag make_compute_dag(const Operator &op) {
  HalideAlgorithm alg = op.build();
  const auto shapes = op.input_shapes();
  ComputeDag dag;
  for (size_t i = 0; i < alg.inputs.size(); ++i) dag.stages.push_back(input_stage(alg.inputs[i], shapes.at(i)));
  std::map<std::string, int> stage_of;
  for (size_t i = 0; i < alg.inputs.size(); ++i) {
    stage_of[alg.inputs[i].name()] = int(i);
    stage_of[Halide::Func(alg.inputs[i]).name()] = int(i);  // calls name the param's Func ("A_im")
  }
  for (size_t i = 0; i < alg.stages.size(); ++i) stage_of[alg.stages[i].func.name()] = int(alg.inputs.size() + i);
  for (const auto &s : alg.stages) dag.stages.push_back(compute_stage(s, stage_of));
  dag.stages.back().is_output = true;
  Extendability extendable(alg, stage_of);
  for (size_t i = 0; i < alg.stages.size(); ++i)
    for (DagIter &it : dag.stages[alg.inputs.size() + i].iters)
      if (it.kind == IterKind::Spatial) it.extendable = extendable.of(i, it.name);
  return dag;
}

}  // namespace tlp
