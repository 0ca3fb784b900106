// The sketch rules, each applied on its own (or after the rules it depends on)
// to a small fixture DAG. ScheduleSpace's tests check the rules together.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "search/sketch/random_draws.h"
#include "search/sketch/sketch_context.h"
#include "search/sketch/sketch_rules.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

using testing::all_fixture_dags;
using testing::NamedDag;

// A context with what it refers to: the DAG, the options and the generator.
struct RuleRun {
  RuleRun(ComputeDag d, SpaceOptions o, uint64_t seed)
      : dag(std::move(d)), options(std::move(o)), rng(seed), ctx(dag, options, rng) {}

  ComputeDag dag;
  SpaceOptions options;
  std::mt19937_64 rng;
  SketchContext ctx;
};

int stage_named(const SketchContext &ctx, const std::string &name) {
  for (int s = 0; s < ctx.state().num_stages(); ++s)
    if (ctx.stage(s).name == name) return s;
  return -1;
}

// The steps the context gained since it had `before` of them.
std::vector<Step> steps_since(const SketchContext &ctx, size_t before) {
  const auto &all = ctx.schedule().steps;
  return {all.begin() + before, all.end()};
}

// The product of a stage's reduction extents. (The fixtures' long reductions
// also pass the rule's other conditions: a loop of two vectors, not prime.)
int64_t reduction_length(const DagStage &d) {
  int64_t r = 1;
  for (const DagIter &it : d.iters)
    if (it.kind == IterKind::Reduce) r *= it.extent;
  return r;
}

// A row sum that is the output: 0 x[i:4, k:256]  1 rowsum[i:4, k~:256] (output).
ComputeDag row_sum_dag() {
  ComputeDag d;
  d.stages.push_back(testing::placeholder("x", {testing::sp("i", 4), testing::sp("k", 256)}));
  d.stages.push_back(testing::compute("rowsum", {testing::sp("i", 4), testing::rd("k", 256)}, {0}, true));
  return d;
}

TEST(InlineElementwiseRule, InlinesOrLeavesAtRootEveryInlinableStageAndTouchesNothingElse) {
  for (const NamedDag &nd : all_fixture_dags()) {
    for (uint64_t seed = 1; seed <= 20; ++seed) {
      RuleRun run(nd.dag, SpaceOptions{}, seed);
      InlineElementwiseRule().apply(run.ctx);
      for (const Step &st : run.ctx.schedule().steps) {
        EXPECT_EQ(st.kind, StepKind::CI) << nd.name;
        EXPECT_TRUE(nd.dag.is_inlinable(st.stage)) << nd.name << ": " << st.to_text();
      }
      for (int s = 0; s < run.ctx.state().num_stages(); ++s) {
        const StageState &st = run.ctx.stage(s);
        EXPECT_FALSE(st.transformed) << nd.name << " " << st.name;
        if (!nd.dag.is_inlinable(s)) {
          EXPECT_EQ(st.location, ComputeLocation::Root) << nd.name << " " << st.name;
        }
      }
    }
  }
}

TEST(InlineElementwiseRule, InlineProbabilityOneInlinesEveryInlinableStageAndZeroNone) {
  for (const NamedDag &nd : all_fixture_dags()) {
    for (double p : {0.0, 1.0}) {
      SpaceOptions o;
      o.inline_probability = p;
      RuleRun run(nd.dag, o, 1);
      InlineElementwiseRule().apply(run.ctx);
      for (int s = 0; s < run.ctx.state().num_stages(); ++s) {
        const bool inlined = run.ctx.stage(s).location == ComputeLocation::Inline;
        EXPECT_EQ(inlined, p > 0.5 && nd.dag.is_inlinable(s)) << nd.name << " " << run.ctx.stage(s).name;
      }
    }
  }
}

TEST(RfactorRule, LeavesAnRfStageOnlyForReductionsAtLeastAsLongAsTheirSpatialExtent) {
  SpaceOptions o;
  o.rfactor_probability = 1;
  for (const NamedDag &nd : all_fixture_dags()) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      RuleRun run(nd.dag, o, seed);
      RfactorRule().apply(run.ctx);
      std::set<std::string> rf_stages;
      for (const StageState &st : run.ctx.state().stages())
        if (st.origin == StageOrigin::RFactor) rf_stages.insert(st.name);
      std::set<std::string> expected;
      for (const DagStage &d : nd.dag.stages)
        if (!d.placeholder && d.has_reduction() && reduction_length(d) >= d.points()) expected.insert(d.name + ".rf");
      EXPECT_EQ(rf_stages, expected) << nd.name << ": " << run.ctx.schedule().to_text();
      std::set<std::string> noted;
      for (const std::string &name : run.ctx.rfactored()) noted.insert(name + ".rf");
      EXPECT_EQ(noted, rf_stages) << nd.name;
    }
  }
  // The fixtures must exercise both sides: softmax rows are long, matmul's are not.
  RuleRun softmax(testing::softmax_dag(), o, 1);
  RfactorRule().apply(softmax.ctx);
  EXPECT_GE(stage_named(softmax.ctx, "max.rf"), 0);
  EXPECT_GE(stage_named(softmax.ctx, "sum.rf"), 0);
}

TEST(RfactorRule, ProbabilityZeroEmitsNothing) {
  SpaceOptions o;
  o.rfactor_probability = 0;
  RuleRun run(testing::softmax_dag(), o, 1);
  RfactorRule().apply(run.ctx);
  EXPECT_TRUE(run.ctx.schedule().steps.empty()) << run.ctx.schedule().to_text();
}

TEST(CacheWriteRule, AddsExactlyOneAccumulatorToAReductionOutput) {
  SpaceOptions o;
  o.cache_write_probability = 1;
  RuleRun run(testing::matmul_dag(), o, 1);
  const int out = stage_named(run.ctx, "C");
  CacheWriteRule().apply(run.ctx);
  ASSERT_EQ(run.ctx.schedule().steps.size(), 1u);
  EXPECT_EQ(run.ctx.schedule().steps[0].kind, StepKind::CHW);
  EXPECT_EQ(run.ctx.schedule().steps[0].stage, out);
  EXPECT_EQ(run.ctx.stage(stage_named(run.ctx, "C.local")).origin, StageOrigin::CacheWriteLocal);
}

TEST(CacheWriteRule, AddsNothingToAPureOutput) {
  SpaceOptions o;
  o.cache_write_probability = 1;
  RuleRun run(testing::dense_relu_dag(), o, 1);  // relu reads the reduction but has none
  CacheWriteRule().apply(run.ctx);
  EXPECT_TRUE(run.ctx.schedule().steps.empty()) << run.ctx.schedule().to_text();
}

TEST(CacheWriteRule, AddsNothingToAnOutputAlreadyRfactored) {
  SpaceOptions o;
  o.cache_write_probability = 1;
  o.rfactor_probability = 1;
  RuleRun run(row_sum_dag(), o, 1);
  RfactorRule().apply(run.ctx);
  ASSERT_GE(stage_named(run.ctx, "rowsum.rf"), 0);
  const size_t before = run.ctx.schedule().steps.size();
  CacheWriteRule().apply(run.ctx);
  EXPECT_TRUE(steps_since(run.ctx, before).empty()) << run.ctx.schedule().to_text();
}

TEST(FusedTilingRule, ComputesTheSingleConsumerReductionAtALoopOfItsConsumer) {
  for (uint64_t seed = 1; seed <= 30; ++seed) {
    RuleRun run(testing::dense_relu_dag(), SpaceOptions{}, seed);
    FusedTilingRule().apply(run.ctx);
    const StageState &dense = run.ctx.stage(stage_named(run.ctx, "dense"));
    const int relu = stage_named(run.ctx, "relu");
    EXPECT_EQ(dense.location, ComputeLocation::At) << run.ctx.schedule().to_text();
    EXPECT_EQ(dense.attach_stage, relu) << run.ctx.schedule().to_text();
    EXPECT_LT(dense.attach_iter, int(run.ctx.stage(relu).iters.size()));
    EXPECT_EQ(run.ctx.stage(relu).iters[0].annotation, Annotation::Parallel) << run.ctx.schedule().to_text();
  }
}

// The largest share of its loop that a register block of dense's rows (loop 0)
// computes past the loop's end, over 60 seeds (0: every block divides its loop).
double largest_row_tail(const ComputeDag &dag, double rounded_block_probability, double cheap_tail_share) {
  SpaceOptions o;
  o.rounded_block_probability = rounded_block_probability;
  o.cheap_tail_share = cheap_tail_share;
  double largest = 0;
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    RuleRun run(dag, o, seed);
    FusedTilingRule().apply(run.ctx);
    const int dense = stage_named(run.ctx, "dense");
    for (const Step &step : run.ctx.schedule().steps)
      if (step.kind == StepKind::SP && step.stage == dense && step.iter == 0) {
        const int64_t b = step.factors[0], covered = (step.extent + b - 1) / b * b;
        largest = std::max(largest, double(covered - step.extent) / double(step.extent));
      }
  }
  return largest;
}

TEST(FusedTilingRule, RegisterBlocksLeaveTailsOnlyOnLoopsThatMayRoundUp) {
  ComputeDag dag = testing::dense_relu_dag();
  EXPECT_EQ(largest_row_tail(dag, 1, 0.05), 0);
  EXPECT_EQ(largest_row_tail(dag, 0, 1), 0);
  dag.stages[3].iters[0].extendable = true;
  EXPECT_GT(largest_row_tail(dag, 1, 0.05), 0);
}

TEST(FusedTilingRule, RegisterBlocksDivideTheirLoopsWhenNeitherRoundedNorCheaplyTailedSizesAreDrawn) {
  ComputeDag dag = testing::dense_relu_dag();
  dag.stages[3].iters[0].extendable = true;
  EXPECT_EQ(largest_row_tail(dag, 0, 0), 0);
}

TEST(FusedTilingRule, RegisterBlocksOfALoopThatMayRoundUpLeaveOnlyCheapTailsWhenRoundedSizesAreNeverDrawn) {
  ComputeDag dag = testing::dense_relu_dag();
  dag.stages[3].iters[0].extendable = true;
  const double tail = largest_row_tail(dag, 0, 0.05);
  EXPECT_GT(tail, 0);
  EXPECT_LE(tail, 0.05);
}

// A convolution whose output is channel-blocked, read by an elementwise output:
// 0 in[cb:2, x:18, c:8]  1 w[kb:4, cb:2, rx:3, c:8, k:8]
// 2 conv[kb:4, x:16, k:8, cb~:2, rx~:3, c~:8] reads in[cb, x + rx, c], w[kb, cb, rx, c, k]
// 3 out[kb, x, k] reads conv (output). Its vector loop k indexes w, not in.
ComputeDag blocked_conv_dag() {
  using testing::rd;
  using testing::sp;
  ComputeDag d;
  d.stages.push_back(testing::placeholder("in", {sp("cb", 2), sp("x", 18), sp("c", 8)}));
  d.stages.push_back(testing::placeholder("w", {sp("kb", 4), sp("cb", 2), sp("rx", 3), sp("c", 8), sp("k", 8)}));
  d.stages.push_back(testing::compute("conv", {sp("kb", 4), sp("x", 16), sp("k", 8), rd("cb", 2), rd("rx", 3), rd("c", 8)}, {0, 1}));
  d.stages.push_back(testing::compute("out", {sp("kb", 4), sp("x", 16), sp("k", 8)}, {2}, true));
  d.stages[2].accesses = {testing::access(0, {{{"cb", 1}}, {{"x", 1}, {"rx", 1}}, {{"c", 1}}}),
                          testing::access(1, {{{"kb", 1}}, {{"cb", 1}}, {{"rx", 1}}, {{"c", 1}}, {{"k", 1}}})};
  d.stages[3].accesses = {testing::access(2, {{{"kb", 1}}, {{"x", 1}}, {{"k", 1}}})};
  return d;
}

// The unrolled middle loops of stage `name`'s register block, in order (the ids
// just before the vector's, which is last), over every RE step of that stage.
std::vector<int> block_middles(const ComputeDag &dag, const std::string &name, uint64_t seed, int middles) {
  RuleRun run(dag, SpaceOptions{}, seed);
  FusedTilingRule().apply(run.ctx);
  const int s = stage_named(run.ctx, name);
  for (const Step &step : run.ctx.schedule().steps)
    if (step.kind == StepKind::RE && step.stage == s)
      return {step.ids.end() - middles - 1, step.ids.end()};
  return {};
}

TEST(FusedTilingRule, RegisterBlocksUnrollTheLoopsABroadcastOperandDoesNotReadInnermost) {
  // conv's loops split: kb 0 1, x 2 3, k 4 5 6 (6 the vector). The input, which k does not
  // index, is broadcast and read through x: x's middle goes before kb's.
  for (uint64_t seed = 1; seed <= 10; ++seed)
    EXPECT_EQ(block_middles(blocked_conv_dag(), "conv", seed, 3), (std::vector<int>{3, 1, 5, 6}));
}

TEST(FusedTilingRule, RegisterBlocksKeepTheLoopsOrderWhenEveryBroadcastOperandIsReadThroughTheOuterLoops) {
  // dense[i, j] vectorized over j reads A[i, k] broadcast: i before j, as the loops are.
  ComputeDag dag = testing::dense_relu_dag();
  dag.stages[3].accesses = {testing::access(0, {{{"i", 1}}, {{"k", 1}}}), testing::access(1, {{{"j", 1}}, {{"k", 1}}})};
  for (uint64_t seed = 1; seed <= 10; ++seed)
    EXPECT_EQ(block_middles(dag, "dense", seed, 2), (std::vector<int>{1, 3, 4}));
}

TEST(RandomDraws, BlocksWithCheapTailsAreTheDivisorsThenSizesThatSpareLittle) {
  EXPECT_EQ(blocks_with_cheap_tails(196, 12, 0.05), (std::vector<int64_t>{1, 2, 4, 7, 3, 5, 6, 8, 9, 10, 11, 12}));
  EXPECT_EQ(blocks_with_cheap_tails(14, 6, 0.05), (std::vector<int64_t>{1, 2})) << "a 14-wide row spares too much";
  EXPECT_EQ(blocks_with_cheap_tails(49, 12, 0), (std::vector<int64_t>{1, 7}));
  EXPECT_EQ(blocks_with_cheap_tails(5, 12, 0.5), (std::vector<int64_t>{1, 5, 2, 3})) << "never past the loop";
}

TEST(FusedTilingRule, LooksThroughInlinedStagesForTheConsumer) {
  SpaceOptions o;
  o.inline_probability = 1;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    RuleRun run(testing::dense_add_relu_dag(), o, seed);
    InlineElementwiseRule().apply(run.ctx);
    FusedTilingRule().apply(run.ctx);
    const StageState &dense = run.ctx.stage(stage_named(run.ctx, "dense"));
    EXPECT_EQ(dense.location, ComputeLocation::At);
    EXPECT_EQ(dense.attach_stage, stage_named(run.ctx, "relu")) << run.ctx.schedule().to_text();
  }
}

TEST(FusedTilingRule, LeavesAReductionWithTwoConsumersAtRootUntouched) {
  RuleRun run(testing::softmax_dag(), SpaceOptions{}, 1);  // max is read by sum and out
  FusedTilingRule().apply(run.ctx);
  const StageState &max = run.ctx.stage(stage_named(run.ctx, "max"));
  EXPECT_EQ(max.location, ComputeLocation::Root);
  EXPECT_FALSE(max.transformed);
  EXPECT_EQ(run.ctx.stage(stage_named(run.ctx, "sum")).location, ComputeLocation::At);
}

TEST(RootTilingRule, TilesEveryUntouchedReductionAtRootSSRRS) {
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    RuleRun run(testing::matmul_dag(), SpaceOptions{}, seed);
    RootTilingRule().apply(run.ctx);
    const StageState &c = run.ctx.stage(stage_named(run.ctx, "C"));
    EXPECT_TRUE(c.transformed);
    EXPECT_EQ(c.iters[0].annotation, Annotation::Parallel);
    // Spatial loops, then the two parts of the reduction loop, then the inner spatial ones.
    std::string kinds;
    for (const LoopIter &it : c.iters) kinds += it.kind == IterKind::Spatial ? 'S' : 'R';
    const size_t first_r = kinds.find('R');
    ASSERT_NE(first_r, std::string::npos);
    EXPECT_EQ(kinds.substr(first_r, 3), "RRS") << kinds << ": " << run.ctx.schedule().to_text();
    EXPECT_EQ(kinds.find_first_of('R', first_r + 2), std::string::npos) << kinds;
  }
}

TEST(RootTilingRule, LeavesReductionsFusedIntoAConsumerAlone) {
  RuleRun run(testing::softmax_dag(), SpaceOptions{}, 1);
  FusedTilingRule().apply(run.ctx);
  const size_t before = run.ctx.schedule().steps.size();
  RootTilingRule().apply(run.ctx);
  const int max = stage_named(run.ctx, "max");
  for (const Step &st : steps_since(run.ctx, before)) EXPECT_EQ(st.stage, max) << st.to_text();
  EXPECT_TRUE(run.ctx.stage(max).transformed);
}

TEST(RfactoredParallelRule, ParallelizesRfactoredStagesLeftAtRootAndNothingElse) {
  SpaceOptions o;
  o.rfactor_probability = 1;
  RuleRun run(testing::softmax_dag(), o, 1);
  RfactorRule().apply(run.ctx);
  ASSERT_EQ(run.ctx.rfactored(), (std::vector<std::string>{"max", "sum"}));
  const size_t before = run.ctx.schedule().steps.size();
  RfactoredParallelRule().apply(run.ctx);
  const std::vector<Step> added = steps_since(run.ctx, before);
  EXPECT_EQ(added.size(), 2u);
  for (const Step &st : added) {
    EXPECT_EQ(st.kind, StepKind::AN);
    EXPECT_EQ(st.annotation, Annotation::Parallel);
    EXPECT_EQ(st.iter, 0);
  }
  for (const std::string name : {"max", "sum"})
    EXPECT_EQ(run.ctx.stage(stage_named(run.ctx, name)).iters[0].annotation, Annotation::Parallel) << name;
}

TEST(RfactoredParallelRule, EmitsNothingWithoutRfactoredStages) {
  RuleRun run(testing::matmul_dag(), SpaceOptions{}, 1);
  RfactoredParallelRule().apply(run.ctx);
  EXPECT_TRUE(run.ctx.schedule().steps.empty());
}

TEST(AutoUnrollRule, OnlyEmitsValuesFromTheOptionsOnComputedStages) {
  SpaceOptions o;
  o.auto_unroll_values = {0, 32, 128};
  o.inline_probability = 1;
  for (const NamedDag &nd : all_fixture_dags()) {
    for (uint64_t seed = 1; seed <= 10; ++seed) {
      RuleRun run(nd.dag, o, seed);
      InlineElementwiseRule().apply(run.ctx);
      const size_t before = run.ctx.schedule().steps.size();
      AutoUnrollRule().apply(run.ctx);
      for (const Step &st : steps_since(run.ctx, before)) {
        EXPECT_EQ(st.kind, StepKind::PR);
        EXPECT_TRUE(st.value == 32 || st.value == 128) << st.to_text();
        EXPECT_FALSE(run.ctx.stage(st.stage).placeholder) << st.to_text();
        EXPECT_NE(run.ctx.stage(st.stage).location, ComputeLocation::Inline) << st.to_text();
      }
    }
  }
}

TEST(AutoUnrollRule, ZeroMeansNoPragma) {
  SpaceOptions o;
  o.auto_unroll_values = {0};
  RuleRun run(testing::conv_dag(), o, 1);
  AutoUnrollRule().apply(run.ctx);
  EXPECT_TRUE(run.ctx.schedule().steps.empty()) << run.ctx.schedule().to_text();
}

}  // namespace
}  // namespace tlp
