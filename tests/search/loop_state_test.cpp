// LoopState: what each step does to the loop nests, and which steps it refuses.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "search/loop_state.h"
#include "search/schedule.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

using testing::conv_dag;
using testing::dense_add_relu_dag;
using testing::dense_relu_dag;
using testing::matmul_dag;
using testing::softmax_dag;

LoopState replay(const ComputeDag &dag, const std::string &text) {
  return LoopState::replay(dag, Schedule::from_text(text));
}

std::vector<std::string> names(const StageState &st) {
  std::vector<std::string> out;
  for (const auto &it : st.iters) out.push_back(it.name);
  return out;
}

std::vector<int64_t> extents(const StageState &st) {
  std::vector<int64_t> out;
  for (const auto &it : st.iters) out.push_back(it.extent);
  return out;
}

std::vector<IterKind> kinds(const StageState &st) {
  std::vector<IterKind> out;
  for (const auto &it : st.iters) out.push_back(it.kind);
  return out;
}

std::vector<std::string> stage_names(const LoopState &s) {
  std::vector<std::string> out;
  for (const auto &st : s.stages()) out.push_back(st.name);
  return out;
}

constexpr IterKind S = IterKind::Spatial;
constexpr IterKind R = IterKind::Reduce;

// Replays `text`, which must fail at step `n`; the message must say "step n",
// the failing step's text and `reason`.
void expect_fails_at(const ComputeDag &dag, const std::string &text, int n, const std::string &reason = "") {
  const Schedule sched = Schedule::from_text(text);
  ASSERT_LT(n, int(sched.steps.size()));
  LoopState state(dag);
  for (int i = 0; i < n; ++i) {
    try {
      state.apply(sched.steps[i]);
    } catch (const ScheduleError &e) {
      FAIL() << "step " << i << " of '" << text << "' should apply but failed: " << e.what();
    }
  }
  try {
    state.apply(sched.steps[n]);
    FAIL() << "step " << n << " of '" << text << "' should fail but applied";
  } catch (const ScheduleError &e) {
    const std::string msg = e.what();
    const std::string where = "step " + std::to_string(n) + " " + sched.steps[n].to_text();
    EXPECT_NE(msg.find(where), std::string::npos) << "message lacks '" << where << "': " << msg;
    if (!reason.empty()) EXPECT_NE(msg.find(reason), std::string::npos) << "message lacks '" << reason << "': " << msg;
  }
  // A failed step leaves no trace in the history.
  EXPECT_EQ(int(state.history().size()), n);
  // And replay fails the same way.
  EXPECT_THROW(LoopState::replay(dag, sched), ScheduleError);
}

TEST(LoopStateInit, MirrorsTheDag) {
  LoopState s(dense_relu_dag());
  ASSERT_EQ(s.num_stages(), 5);
  EXPECT_EQ(stage_names(s), (std::vector<std::string>{"A", "B", "bias", "dense", "relu"}));
  EXPECT_TRUE(s.stage(0).placeholder);
  EXPECT_EQ(names(s.stage(3)), (std::vector<std::string>{"i", "j", "k"}));
  EXPECT_EQ(kinds(s.stage(3)), (std::vector<IterKind>{S, S, R}));
  EXPECT_EQ(s.stage(4).reads, (std::vector<int>{3, 2}));
  EXPECT_TRUE(s.stage(4).is_output);
  EXPECT_EQ(s.stage(3).location, ComputeLocation::Root);
  EXPECT_TRUE(s.history().empty());
}

// ---------------------------------------------------------------------------
// SP / FSP

TEST(LoopStateSplit, MakesOuterThenInnerLoops) {
  LoopState s = replay(matmul_dag(), "SP(2,0,64,[4,8])");
  const StageState &c = s.stage(2);
  EXPECT_EQ(names(c), (std::vector<std::string>{"i_0", "i_1", "i_2", "j", "k"}));
  EXPECT_EQ(extents(c), (std::vector<int64_t>{2, 4, 8, 48, 32}));
  EXPECT_EQ(kinds(c), (std::vector<IterKind>{S, S, S, S, R}));
  EXPECT_TRUE(c.transformed);
  EXPECT_EQ(c.iters[1].origins, (std::set<std::string>{"i"}));
  EXPECT_EQ(s.history().size(), 1u);
}

TEST(LoopStateSplit, NonDivisorRoundsTheOuterLoopUp) {
  LoopState s = replay(matmul_dag(), "SP(2,1,48,[5])");
  EXPECT_EQ(names(s.stage(2)), (std::vector<std::string>{"i", "j_0", "j_1", "k"}));
  EXPECT_EQ(extents(s.stage(2)), (std::vector<int64_t>{64, 10, 5, 32}));
  LoopState t = replay(matmul_dag(), "SP(2,0,64,[3,7])");  // ceil(64 / 21) = 4
  EXPECT_EQ(extents(t.stage(2)), (std::vector<int64_t>{4, 3, 7, 48, 32}));
}

// dense (stage 3) computes its rows past their end only where the DAG says the
// extra rows read nothing out of bounds, and never its reduction or the output.
TEST(LoopStateSplit, OnlyAnUntouchedExtendableLoopOfAnInnerStageMayRoundItsTailUp) {
  ComputeDag dag = dense_relu_dag();
  dag.stages[3].iters[0].extendable = true;  // i
  dag.stages[3].iters[2].extendable = true;  // k, a reduction: never rounded
  dag.stages[4].iters[0].extendable = true;  // relu's i: the output
  const LoopState fresh(dag);
  EXPECT_TRUE(fresh.can_round_up(3, 0));
  EXPECT_FALSE(fresh.can_round_up(3, 1));
  EXPECT_FALSE(fresh.can_round_up(3, 2));
  EXPECT_FALSE(fresh.can_round_up(4, 0));
  const LoopState split = replay(dag, "SP(3,0,64,[5])");
  EXPECT_FALSE(split.can_round_up(3, 0));
  EXPECT_FALSE(split.can_round_up(3, 1));
}

TEST(LoopStateSplit, SplittingAReductionLoopKeepsItAReduction) {
  LoopState s = replay(matmul_dag(), "SP(2,2,32,[8])");
  EXPECT_EQ(names(s.stage(2)), (std::vector<std::string>{"i", "j", "k_0", "k_1"}));
  EXPECT_EQ(extents(s.stage(2)), (std::vector<int64_t>{64, 48, 4, 8}));
  EXPECT_EQ(kinds(s.stage(2)), (std::vector<IterKind>{S, S, R, R}));
}

TEST(LoopStateSplit, RejectsAWrongExtentField) {
  expect_fails_at(matmul_dag(), "SP(2,0,32,[4])", 0, "extent 64");
  expect_fails_at(matmul_dag(), "SP(2,0,64,[4]); SP(2,0,64,[2])", 1, "extent 16");
}

TEST(LoopStateSplit, RejectsFactorsBeyondTheExtent) {
  expect_fails_at(matmul_dag(), "SP(2,0,64,[16,8])", 0, "128");
}

TEST(LoopStateSplit, RejectsMissingStagesLoopsAndInputs) {
  expect_fails_at(matmul_dag(), "SP(3,0,64,[4])", 0, "does not exist");
  expect_fails_at(matmul_dag(), "SP(2,3,64,[4])", 0, "no loop 3");
  expect_fails_at(matmul_dag(), "SP(0,0,64,[4])", 0, "input");
}

TEST(LoopStateSplit, RejectsAnAnnotatedLoop) {
  expect_fails_at(matmul_dag(), "AN(2,0,parallel); SP(2,0,64,[4])", 1, "annotated");
}

TEST(LoopStateSplit, RejectsFieldErrorsOfHandBuiltSteps) {
  LoopState s(matmul_dag());
  Step sp = Step::of(StepKind::SP);
  sp.stage = 2, sp.iter = 0, sp.extent = 64, sp.factors = {0};
  try {
    s.apply(sp);
    FAIL() << "expected a ScheduleError";
  } catch (const ScheduleError &e) {
    EXPECT_NE(std::string(e.what()).find("step 0 SP(2,0,64,[0])"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(s.history().empty());
}

TEST(LoopStateFollowSplit, UsesTheSourceSplitFactors) {
  LoopState s = replay(matmul_dag(), "SP(2,0,64,[4,8]); FSP(2,3,0,2)");
  EXPECT_EQ(names(s.stage(2)), (std::vector<std::string>{"i_0", "i_1", "i_2", "j_0", "j_1", "j_2", "k"}));
  EXPECT_EQ(extents(s.stage(2)), (std::vector<int64_t>{2, 4, 8, 2, 4, 8, 32}));  // ceil(48 / 32) = 2
  EXPECT_EQ(s.fsp_factors(Step::from_text("FSP(2,3,0,2)")), (std::vector<int>{4, 8}));
  EXPECT_EQ(s.fsp_factors(Step::from_text("FSP(2,3,0,1)")), (std::vector<int>{4}));
}

TEST(LoopStateFollowSplit, TakesTheFirstNSplitFactors) {
  LoopState s = replay(matmul_dag(), "SP(2,0,64,[4,8]); FSP(2,3,0,1)");
  EXPECT_EQ(extents(s.stage(2)), (std::vector<int64_t>{2, 4, 8, 12, 4, 32}));
}

TEST(LoopStateFollowSplit, RejectsANonSplitSource) {
  expect_fails_at(matmul_dag(), "AN(2,0,parallel); FSP(2,1,0,1)", 1, "not an earlier SP");
  expect_fails_at(matmul_dag(), "SP(2,0,64,[4]); FSP(2,2,1,1)", 1, "not an earlier SP");  // itself
  expect_fails_at(matmul_dag(), "SP(2,0,64,[4]); FSP(2,2,7,1)", 1, "not an earlier SP");
  expect_fails_at(matmul_dag(), "SP(2,0,64,[4]); FSP(2,2,0,2)", 1, "factors");
}

// ---------------------------------------------------------------------------
// RE / FU

TEST(LoopStateReorder, AppliesThePermutation) {
  LoopState s = replay(matmul_dag(), "RE(2,[2,0,1])");
  EXPECT_EQ(names(s.stage(2)), (std::vector<std::string>{"k", "i", "j"}));
  EXPECT_EQ(kinds(s.stage(2)), (std::vector<IterKind>{R, S, S}));
  EXPECT_EQ(extents(s.stage(2)), (std::vector<int64_t>{32, 64, 48}));
}

TEST(LoopStateReorder, MustBeAPermutation) {
  expect_fails_at(matmul_dag(), "RE(2,[0,0,1])", 0, "once");
  expect_fails_at(matmul_dag(), "RE(2,[0,1])", 0, "once");
  expect_fails_at(matmul_dag(), "RE(2,[0,1,3])", 0, "once");
  expect_fails_at(matmul_dag(), "RE(2,[0,1,2,3])", 0, "once");
  expect_fails_at(matmul_dag(), "SP(2,0,64,[4]); RE(2,[0,1,2])", 1, "once");
}

TEST(LoopStateFuse, FusesAdjacentSpatialLoops) {
  LoopState s = replay(matmul_dag(), "FU(2,[0,1])");
  EXPECT_EQ(names(s.stage(2)), (std::vector<std::string>{"i_j_f", "k"}));
  EXPECT_EQ(extents(s.stage(2)), (std::vector<int64_t>{64 * 48, 32}));
  EXPECT_EQ(kinds(s.stage(2)), (std::vector<IterKind>{S, R}));
  EXPECT_EQ(s.stage(2).iters[0].origins, (std::set<std::string>{"i", "j"}));
}

TEST(LoopStateFuse, FusesSplitPartsAndReductions) {
  LoopState s = replay(matmul_dag(), "SP(2,0,64,[8]); FU(2,[0,1,2])");
  EXPECT_EQ(extents(s.stage(2)), (std::vector<int64_t>{8 * 8 * 48, 32}));
  LoopState r = replay(matmul_dag(), "SP(2,2,32,[4]); FU(2,[2,3])");
  EXPECT_EQ(extents(r.stage(2)), (std::vector<int64_t>{64, 48, 32}));
  EXPECT_EQ(kinds(r.stage(2)), (std::vector<IterKind>{S, S, R}));
}

TEST(LoopStateFuse, RejectsSpatialWithReduce) {
  expect_fails_at(matmul_dag(), "FU(2,[1,2])", 0, "reduction");
}

TEST(LoopStateFuse, RejectsNonAdjacentLoops) {
  expect_fails_at(matmul_dag(), "SP(2,0,64,[4]); FU(2,[0,2])", 1, "adjacent");
  expect_fails_at(matmul_dag(), "FU(2,[1,0])", 0, "adjacent");
  expect_fails_at(matmul_dag(), "FU(2,[1,3])", 0);
}

// ---------------------------------------------------------------------------
// AN

TEST(LoopStateAnnotate, MarksTheLoop) {
  LoopState s = replay(matmul_dag(), "SP(2,1,48,[16]); AN(2,0,parallel); AN(2,2,vectorize); AN(2,3,unroll)");
  EXPECT_EQ(s.stage(2).iters[0].annotation, Annotation::Parallel);
  EXPECT_EQ(s.stage(2).iters[1].annotation, Annotation::None);
  EXPECT_EQ(s.stage(2).iters[2].annotation, Annotation::Vectorize);
  EXPECT_EQ(s.stage(2).iters[3].annotation, Annotation::Unroll);
}

TEST(LoopStateAnnotate, RejectsParallelOrVectorizeOnAReduction) {
  expect_fails_at(matmul_dag(), "AN(2,2,parallel)", 0, "reduction");
  expect_fails_at(matmul_dag(), "AN(2,2,vectorize)", 0, "reduction");
  expect_fails_at(matmul_dag(), "AN(2,2,gpu_thread)", 0, "reduction");
}

TEST(LoopStateAnnotate, VectorizeIsLimitedTo64Lanes) {
  EXPECT_NO_THROW(replay(matmul_dag(), "AN(2,0,vectorize)"));         // extent 64: the limit itself
  expect_fails_at(softmax_dag(), "AN(3,1,vectorize)", 0, "extent 100");  // extent 100
  expect_fails_at(matmul_dag(), "FU(2,[0,1]); AN(2,0,vectorize)", 1, "extent 3072");
}

TEST(LoopStateAnnotate, RejectsASecondAnnotation) {
  expect_fails_at(matmul_dag(), "AN(2,0,parallel); AN(2,0,unroll)", 1, "already annotated");
  expect_fails_at(matmul_dag(), "AN(2,1,vectorize); AN(2,1,vectorize)", 1, "already annotated");
}

TEST(LoopStateAnnotate, RejectsInputsAndMissingLoops) {
  expect_fails_at(matmul_dag(), "AN(0,0,parallel)", 0);
  expect_fails_at(matmul_dag(), "AN(2,3,parallel)", 0, "no loop 3");
}

// ---------------------------------------------------------------------------
// CA / CI / CR

TEST(LoopStateComputeAt, AttachesToAConsumer) {
  LoopState s = replay(dense_relu_dag(), "CA(3,4,1)");
  EXPECT_EQ(s.stage(3).location, ComputeLocation::At);
  EXPECT_EQ(s.stage(3).attach_stage, 4);
  EXPECT_EQ(s.stage(3).attach_iter, 1);
  EXPECT_EQ(s.attached_at(4, 1), (std::vector<int>{3}));
  EXPECT_TRUE(s.attached_at(4, 0).empty());
  LoopState t = replay(softmax_dag(), "CA(1,2,0)");  // sum reads max
  EXPECT_EQ(t.stage(1).location, ComputeLocation::At);
}

TEST(LoopStateComputeAt, RequiresTheTargetToReadTheStage) {
  expect_fails_at(softmax_dag(), "CA(2,1,0)", 0, "does not read");  // max does not read sum
  expect_fails_at(dense_add_relu_dag(), "CA(3,5,0)", 0, "does not read");  // relu reads add, not dense
  expect_fails_at(dense_relu_dag(), "CA(4,3,0)", 0, "output");
  expect_fails_at(dense_relu_dag(), "CA(0,3,0)", 0, "input");
  expect_fails_at(dense_relu_dag(), "CA(3,4,2)", 0, "no loop 2");
}

TEST(LoopStateComputeAt, AcceptsAConsumerReachedThroughInlinedStages) {
  LoopState s = replay(dense_add_relu_dag(), "CI(4); CA(3,5,1)");
  EXPECT_EQ(s.stage(4).location, ComputeLocation::Inline);
  EXPECT_EQ(s.stage(3).location, ComputeLocation::At);
  EXPECT_EQ(s.stage(3).attach_stage, 5);
  // An inlined stage has no loops to attach to.
  expect_fails_at(dense_add_relu_dag(), "CI(4); CA(3,4,0)", 1, "inlined");
}

TEST(LoopStateComputeAt, BoundsTheAttachedLoopsToTheTile) {
  // relu: i_0(2) j_0(8) i_1(4) j_1(6) i_2(8)
  const std::string tile = "SP(4,1,48,[6]); SP(4,0,64,[4,8]); RE(4,[0,3,1,4,2])";
  LoopState pre = replay(dense_relu_dag(), tile);
  ASSERT_EQ(names(pre.stage(4)), (std::vector<std::string>{"i_0", "j_0", "i_1", "j_1", "i_2"}));
  ASSERT_EQ(extents(pre.stage(4)), (std::vector<int64_t>{2, 8, 4, 6, 8}));

  LoopState at_j0 = replay(dense_relu_dag(), tile + "; CA(3,4,1)");
  EXPECT_EQ(names(at_j0.stage(3)), (std::vector<std::string>{"i", "j", "k"}));
  EXPECT_EQ(extents(at_j0.stage(3)), (std::vector<int64_t>{32, 6, 32}));  // i: 4*8, j: 6, k untouched

  LoopState at_outer = replay(dense_relu_dag(), tile + "; CA(3,4,0)");
  EXPECT_EQ(extents(at_outer.stage(3)), (std::vector<int64_t>{32, 48, 32}));

  LoopState at_inner = replay(dense_relu_dag(), tile + "; CA(3,4,4)");
  EXPECT_EQ(extents(at_inner.stage(3)), (std::vector<int64_t>{1, 1, 32}));

  LoopState at_i1 = replay(dense_relu_dag(), tile + "; CA(3,4,2)");
  EXPECT_EQ(extents(at_i1.stage(3)), (std::vector<int64_t>{8, 6, 32}));
}

TEST(LoopStateComputeAt, BoundsTheWholeLoopsOfAnRfactoredStage) {
  // sum's k is split and rfactored, so sum is transformed; its loop i is still
  // whole and shrinks to out's tile: i_2(4) below the attach loop i_1.
  const std::string rf = "SP(2,1,100,[25]); RF(2,1,1); SP(4,0,16,[2,4]); CA(3,4,1)";
  LoopState s = replay(softmax_dag(), rf);
  ASSERT_EQ(s.stage(3).name, "sum");
  EXPECT_EQ(names(s.stage(3)), (std::vector<std::string>{"i", "k_0_v"}));
  EXPECT_EQ(extents(s.stage(3)), (std::vector<int64_t>{4, 4}));
  // A later split must fit the region, not the whole row count.
  EXPECT_EQ(extents(replay(softmax_dag(), rf + "; SP(3,0,4,[2])").stage(3)), (std::vector<int64_t>{2, 2, 4}));
  expect_fails_at(softmax_dag(), rf + "; SP(3,0,4,[8])", 4, "more than loop i's extent 4");
}

TEST(LoopStateComputeAt, ASplitThatRecordsTheUnboundedExtentIsRefused) {
  // Old logs recorded it; they are migrated when read (tuner/record_migration.h).
  const std::string rf = "SP(2,1,100,[25]); RF(2,1,1); SP(4,0,16,[2,4]); CA(3,4,1)";
  expect_fails_at(softmax_dag(), rf + "; SP(3,0,16,[2])", 4, "has extent 4");
}

TEST(LoopStateComputeAt, AttachedLoopsFollowSplitsAndFusesOfTheTarget) {
  const std::string tile = "SP(4,1,48,[6]); SP(4,0,64,[4,8]); RE(4,[0,3,1,4,2]); CA(3,4,2)";
  // Splitting a loop outside the attach point shifts the attach index.
  LoopState s = replay(dense_relu_dag(), tile + "; SP(4,0,2,[2])");
  EXPECT_EQ(s.stage(3).attach_iter, 3);
  EXPECT_EQ(s.attached_at(4, 3), (std::vector<int>{3}));
  // Fusing outer loops shifts it back.
  LoopState f = replay(dense_relu_dag(), tile + "; FU(4,[0,1])");
  EXPECT_EQ(f.stage(3).attach_iter, 1);
  EXPECT_EQ(f.stage(4).iters[1].name, "i_1");
  // The attach loop itself cannot be split, fused or moved.
  expect_fails_at(dense_relu_dag(), tile + "; SP(4,2,4,[2])", 4, "compute_at");
  expect_fails_at(dense_relu_dag(), tile + "; FU(4,[1,2])", 4, "compute_at");
  expect_fails_at(dense_relu_dag(), tile + "; RE(4,[0,1,3,2,4])", 4, "compute_at");
}

TEST(LoopStateComputeInline, InlinesElementwiseStages) {
  LoopState s = replay(dense_add_relu_dag(), "CI(4)");
  EXPECT_EQ(s.stage(4).location, ComputeLocation::Inline);
  LoopState c = replay(conv_dag(), "CI(1)");
  EXPECT_EQ(c.stage(1).location, ComputeLocation::Inline);
}

TEST(LoopStateComputeInline, RejectsReductionsOutputsAndInputs) {
  expect_fails_at(dense_relu_dag(), "CI(3)", 0, "reduction");
  expect_fails_at(dense_relu_dag(), "CI(4)", 0, "output");
  expect_fails_at(dense_relu_dag(), "CI(0)", 0, "input");
  expect_fails_at(conv_dag(), "CI(3)", 0);
}

TEST(LoopStateComputeInline, InlinedStagesHaveNoLoopsToSchedule) {
  expect_fails_at(dense_add_relu_dag(), "CI(4); SP(4,0,32,[4])", 1, "inlined");
  expect_fails_at(dense_add_relu_dag(), "CI(4); AN(4,0,parallel)", 1);
}

TEST(LoopStateComputeRoot, MovesAStageBackToRoot) {
  LoopState s = replay(dense_relu_dag(), "CA(3,4,1); CR(3)");
  EXPECT_EQ(s.stage(3).location, ComputeLocation::Root);
  EXPECT_EQ(s.stage(3).attach_stage, -1);
  expect_fails_at(dense_relu_dag(), "CR(0)", 0, "input");
}

// ---------------------------------------------------------------------------
// CHW / CHR / RF

TEST(LoopStateCacheWrite, InsertsTheLocalStageAtTheStageIndex) {
  LoopState s = replay(matmul_dag(), "CHW(2,local)");
  ASSERT_EQ(stage_names(s), (std::vector<std::string>{"A", "B", "C.local", "C"}));
  const StageState &local = s.stage(2);
  const StageState &copy = s.stage(3);
  EXPECT_EQ(local.origin, StageOrigin::CacheWriteLocal);
  EXPECT_EQ(local.scope, MemScope::Local);
  EXPECT_FALSE(local.is_output);
  EXPECT_EQ(names(local), (std::vector<std::string>{"i", "j", "k"}));
  EXPECT_EQ(kinds(local), (std::vector<IterKind>{S, S, R}));
  EXPECT_EQ(local.reads, (std::vector<int>{0, 1}));
  EXPECT_TRUE(copy.is_output);
  EXPECT_EQ(names(copy), (std::vector<std::string>{"i", "j"}));  // the copy keeps only spatial loops
  EXPECT_EQ(extents(copy), (std::vector<int64_t>{64, 48}));
  EXPECT_EQ(copy.reads, (std::vector<int>{2}));
}

TEST(LoopStateCacheWrite, ShiftsLaterStageIndices) {
  LoopState s = replay(dense_relu_dag(), "CHW(3,local)");
  ASSERT_EQ(stage_names(s), (std::vector<std::string>{"A", "B", "bias", "dense.local", "dense", "relu"}));
  EXPECT_EQ(s.stage(4).reads, (std::vector<int>{3}));
  EXPECT_EQ(s.stage(5).reads, (std::vector<int>{4, 2}));  // was {3, 2}
  // Later steps use the shifted indices.
  LoopState t = replay(dense_relu_dag(), "CHW(3,local); CA(3,4,1); SP(5,0,64,[8])");
  EXPECT_EQ(t.stage(3).attach_stage, 4);
  EXPECT_EQ(extents(t.stage(5)), (std::vector<int64_t>{8, 8, 48}));
}

TEST(LoopStateCacheWrite, CacheWriteAfterAComputeAtIsRefused) {
  // The accumulator keeps the original loops (in Halide it is the original Func),
  // so attachments would silently move: tlptune asks for CHW before any CA to it.
  LoopState s(softmax_dag());
  s.apply(Schedule::from_text("CA(1,2,0)").steps[0]);
  try {
    s.apply(Schedule::from_text("CHW(2,local)").steps[0]);
    FAIL() << "expected a ScheduleError";
  } catch (const ScheduleError &e) {
    EXPECT_NE(std::string(e.what()).find("cache-write before the compute_at"), std::string::npos) << e.what();
  }
}

// A stage attached at the cached stage's reduction loop: after CHW the original
// stage keeps only its spatial loops, so the attachment would dangle. LoopState
// must either refuse the CHW or leave every attachment on an existing loop.
TEST(LoopStateCacheWrite, NeverLeavesAStageAttachedToAMissingLoop) {
  const Schedule sched = Schedule::from_text("CA(1,2,1); CHW(2,local)");  // max at sum's k
  LoopState s(softmax_dag());
  s.apply(sched.steps[0]);
  try {
    s.apply(sched.steps[1]);
  } catch (const ScheduleError &) {
    return;  // refusing is fine
  }
  for (const auto &st : s.stages()) {
    if (st.location != ComputeLocation::At) continue;
    ASSERT_GE(st.attach_stage, 0);
    ASSERT_LT(st.attach_stage, s.num_stages());
    EXPECT_LT(st.attach_iter, int(s.stage(st.attach_stage).iters.size()))
        << st.name << " is attached at loop " << st.attach_iter << " of " << s.stage(st.attach_stage).name
        << ", which has only " << s.stage(st.attach_stage).iters.size() << " loops";
  }
}

TEST(LoopStateCacheWrite, RejectsStagesWithoutReductionOrAlreadyTransformed) {
  expect_fails_at(dense_relu_dag(), "CHW(4,local)", 0, "no reduction");
  expect_fails_at(dense_relu_dag(), "CHW(0,local)", 0);
  expect_fails_at(matmul_dag(), "SP(2,0,64,[4]); CHW(2,local)", 1, "before transforming");
  expect_fails_at(matmul_dag(), "CHW(2,local); CHW(2,local)", 1);
  expect_fails_at(dense_relu_dag(), "CA(3,4,0); CHW(3,local)", 1, "before moving");
}

TEST(LoopStateCacheRead, InsertsTheCacheAfterTheReadStage) {
  LoopState s = replay(matmul_dag(), "CHR(0,2,shared)");
  ASSERT_EQ(stage_names(s), (std::vector<std::string>{"A", "A.cache", "B", "C"}));
  const StageState &cache = s.stage(1);
  EXPECT_EQ(cache.origin, StageOrigin::CacheRead);
  EXPECT_EQ(cache.scope, MemScope::Shared);
  EXPECT_EQ(cache.reads, (std::vector<int>{0}));
  EXPECT_FALSE(cache.placeholder);
  EXPECT_EQ(names(cache), (std::vector<std::string>{"i", "k"}));
  EXPECT_EQ(extents(cache), (std::vector<int64_t>{64, 32}));
  EXPECT_EQ(s.stage(3).reads, (std::vector<int>{1, 2}));  // C reads the cache and B (shifted)
}

TEST(LoopStateCacheRead, OnlyTheNamedReaderSwitchesToTheCache) {
  LoopState s = replay(softmax_dag(), "CHR(0,3,local)");
  ASSERT_EQ(stage_names(s), (std::vector<std::string>{"x", "x.cache", "max", "sum", "out"}));
  EXPECT_EQ(s.stage(4).reads, (std::vector<int>{1, 2, 3}));  // out reads the cache
  EXPECT_EQ(s.stage(3).reads, (std::vector<int>{0, 2}));     // sum still reads x
  EXPECT_EQ(s.stage(2).reads, (std::vector<int>{0}));
  LoopState b = replay(dense_relu_dag(), "CHR(2,4,local)");
  ASSERT_EQ(stage_names(b), (std::vector<std::string>{"A", "B", "bias", "bias.cache", "dense", "relu"}));
  EXPECT_EQ(b.stage(5).reads, (std::vector<int>{4, 3}));
}

TEST(LoopStateCacheRead, RejectsAReaderThatDoesNotRead) {
  expect_fails_at(matmul_dag(), "CHR(1,0,local)", 0, "does not read");
  expect_fails_at(dense_relu_dag(), "CHR(2,3,local)", 0, "does not read");
  expect_fails_at(matmul_dag(), "CHR(0,5,local)", 0, "does not exist");
}

TEST(LoopStateRFactor, InsertsTheRfStageWithTheFactoredLoopSpatial) {
  LoopState s = replay(matmul_dag(), "SP(2,2,32,[8]); RF(2,3,2)");
  ASSERT_EQ(stage_names(s), (std::vector<std::string>{"A", "B", "C.rf", "C"}));
  const StageState &rf = s.stage(2);
  const StageState &c = s.stage(3);
  EXPECT_EQ(rf.origin, StageOrigin::RFactor);
  EXPECT_FALSE(rf.is_output);
  EXPECT_EQ(names(rf), (std::vector<std::string>{"i", "j", "k_0", "k_1_v"}));
  EXPECT_EQ(kinds(rf), (std::vector<IterKind>{S, S, R, S}));
  EXPECT_EQ(extents(rf), (std::vector<int64_t>{64, 48, 4, 8}));
  EXPECT_EQ(rf.reads, (std::vector<int>{0, 1}));
  EXPECT_TRUE(c.is_output);
  EXPECT_EQ(names(c), (std::vector<std::string>{"i", "j", "k_1_v"}));
  EXPECT_EQ(kinds(c), (std::vector<IterKind>{S, S, R}));
  EXPECT_EQ(extents(c), (std::vector<int64_t>{64, 48, 8}));
  EXPECT_EQ(c.reads, (std::vector<int>{2}));
}

TEST(LoopStateRFactor, ShiftsLaterStages) {
  LoopState s = replay(dense_relu_dag(), "RF(3,2,0)");
  ASSERT_EQ(stage_names(s), (std::vector<std::string>{"A", "B", "bias", "dense.rf", "dense", "relu"}));
  EXPECT_EQ(s.stage(5).reads, (std::vector<int>{4, 2}));
}

TEST(LoopStateRFactor, RejectsSpatialLoopsAndBadFactorIter) {
  expect_fails_at(matmul_dag(), "RF(2,0,0)", 0, "not a reduction");
  expect_fails_at(matmul_dag(), "RF(2,2,3)", 0, "factor_iter");
  expect_fails_at(dense_relu_dag(), "CA(3,4,0); RF(3,2,0)", 1, "before moving");
}

// ---------------------------------------------------------------------------
// PR, history, messages

TEST(LoopStatePragma, RecordsTheAutoUnrollLimit) {
  LoopState s = replay(matmul_dag(), "PR(2,0,64)");
  EXPECT_EQ(s.stage(2).auto_unroll, 64);
  expect_fails_at(matmul_dag(), "PR(0,0,64)", 0, "input");
  expect_fails_at(matmul_dag(), "PR(2,5,64)", 0, "no loop 5");
}

TEST(LoopStateHistory, KeepsEveryAppliedStep) {
  const Schedule sched = Schedule::from_text("SP(2,0,64,[4,8]); AN(2,0,parallel); PR(2,0,16)");
  LoopState s = LoopState::replay(matmul_dag(), sched);
  EXPECT_EQ(s.history(), sched.steps);
  EXPECT_FALSE(s.to_text().empty());
}

TEST(LoopStateErrors, MessagesNameTheStepIndexAndText) {
  expect_fails_at(matmul_dag(), "SP(2,0,64,[4]); RE(2,[0,1,2,3]); FU(2,[2,3])", 2);
  try {
    replay(matmul_dag(), "SP(2,0,64,[4]); RE(2,[0,1,2,3]); FU(2,[2,3])");
    FAIL() << "expected a ScheduleError";
  } catch (const ScheduleError &e) {
    EXPECT_NE(std::string(e.what()).find("step 2 FU(2,[2,3])"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tlp

namespace tlp {
namespace {

// A cache computed inside its reader covers what one iteration there reads,
// through the DAG's accesses: conv reads pad rows y + ry, so 4 rows of output
// and a 3-row window need 6 rows of pad.
TEST(LoopStateCacheRead, CacheAtALoopCoversTheWindowItsReaderReads) {
  const ComputeDag dag = conv_dag();
  const LoopState s = LoopState::replay(dag, Schedule::from_text("SP(3,2,16,[4]); CHR(1,3,shared); CA(2,4,2)"));
  const StageState &cache = s.stage(s.find_stage("pad.cache"));
  ASSERT_EQ(cache.iters.size(), 4u);
  EXPECT_EQ(cache.iters[0].extent, 1);   // n
  EXPECT_EQ(cache.iters[1].extent, 8);   // every input channel (rc is inside)
  EXPECT_EQ(cache.iters[2].extent, 6);   // 4 rows of y, and ry's 3: 4 + 3 - 1
  EXPECT_EQ(cache.iters[3].extent, 18);  // all 16 columns of x and rx's 3: the whole padded row
}

TEST(LoopStateCacheRead, StrideWidensTheWindow) {
  ComputeDag dag = conv_dag();
  dag.stages[3].accesses[0].dims[2] = {{"y", 2}, {"ry", 1}};  // rows 2y + ry, as with stride 2
  const LoopState s = LoopState::replay(dag, Schedule::from_text("SP(3,2,16,[4]); CHR(1,3,shared); CA(2,4,2)"));
  EXPECT_EQ(s.stage(s.find_stage("pad.cache")).iters[2].extent, 9);  // 2 * (4 - 1) + 3
}

}  // namespace
}  // namespace tlp
