// The GPU sketch rules and the launch-limit check: sampled GPU schedules bind
// blocks outside threads within the limits, accumulate in a per-thread local
// stage; the check names each kind of violation; the CPU space is unchanged.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "search/gpu_launch_limits.h"
#include "search/loop_state.h"
#include "search/schedule_space.h"
#include "search/sketch/sketch_context.h"
#include "search/sketch/sketch_rules.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

using testing::all_fixture_dags;
using testing::NamedDag;

SpaceOptions gpu_options(GpuLimits limits = GpuLimits{}, double shared_staging = 0.5, double cross_thread = 0.5) {
  SpaceOptions o;
  o.gpu = limits;
  o.gpu_shared_staging_probability = shared_staging;
  o.gpu_cross_thread_probability = cross_thread;
  return o;
}

struct GpuLoops {
  std::vector<int> blocks, threads;
  int64_t thread_count = 1;
};

GpuLoops gpu_loops(const StageState &st) {
  GpuLoops g;
  for (int i = 0; i < int(st.iters.size()); ++i) {
    if (st.iters[i].annotation == Annotation::GpuBlock) g.blocks.push_back(i);
    if (st.iters[i].annotation == Annotation::GpuThread) {
      g.threads.push_back(i);
      g.thread_count *= st.iters[i].extent;
    }
  }
  return g;
}

// Checks one sampled GPU schedule's loop state; returns how many threads its
// kernels' blocks have, each.
void expect_well_bound(const std::string &what, const LoopState &state, const GpuLimits &limits) {
  EXPECT_EQ(gpu_launch_limit_violation(state, limits), "") << what;
  for (const StageState &st : state.stages()) {
    if (st.placeholder || st.location == ComputeLocation::Inline) continue;
    const GpuLoops g = gpu_loops(st);
    if (st.location == ComputeLocation::Root) {
      // Every kernel at root is on the GPU, blocks first.
      ASSERT_FALSE(g.blocks.empty()) << what << ": " << st.name << " runs on the host";
      if (g.threads.empty()) {
        // Only a cross-thread reduction: its threads are the partial stage's, inside the block.
        const int partial = state.find_stage(st.name + ".rf");
        ASSERT_GE(partial, 0) << what << ": " << st.name << " has no threads";
        EXPECT_FALSE(gpu_loops(state.stage(partial)).threads.empty()) << what;
        continue;
      }
      EXPECT_LT(g.blocks.back(), g.threads.front()) << what << ": " << st.name;
      EXPECT_LE(int(g.blocks.size()), limits.max_block_dims) << what;
      EXPECT_LE(int(g.threads.size()), limits.max_thread_dims) << what;
      EXPECT_LE(g.thread_count, limits.max_threads_per_block) << what << ": " << st.name;
    } else if (st.scope == MemScope::Shared) {
      // A shared cache is loaded by the whole block: its own thread loops, attached
      // at a serial loop between the kernel's block and thread loops.
      ASSERT_FALSE(g.threads.empty()) << what << ": " << st.name;
      EXPECT_TRUE(g.blocks.empty()) << what << ": " << st.name;
      const StageState &host = state.stage(st.attach_stage);
      const GpuLoops hg = gpu_loops(host);
      EXPECT_EQ(host.iters[st.attach_iter].annotation, Annotation::None) << what << ": " << st.name;
      ASSERT_FALSE(hg.blocks.empty() || hg.threads.empty()) << what << ": " << st.name;
      EXPECT_GT(st.attach_iter, hg.blocks.back()) << what << ": " << st.name;
      EXPECT_LT(st.attach_iter, hg.threads.front()) << what << ": " << st.name;
    } else if (st.origin == StageOrigin::RFactor && !g.threads.empty()) {
      // A cross-thread reduction's partials: one per thread, computed in the block of their row.
      EXPECT_TRUE(g.blocks.empty()) << what << ": " << st.name;
      const StageState &host = state.stage(st.attach_stage);
      EXPECT_EQ(host.iters[st.attach_iter].annotation, Annotation::GpuBlock) << what << ": " << st.name;
    } else {
      // A stage inside a kernel runs in one thread: no GPU loops of its own, attached at a thread loop.
      EXPECT_TRUE(g.blocks.empty() && g.threads.empty()) << what << ": " << st.name;
      const StageState &host = state.stage(st.attach_stage);
      EXPECT_EQ(host.iters[st.attach_iter].annotation, Annotation::GpuThread) << what << ": " << st.name;
      EXPECT_EQ(st.attach_iter + 1 < int(host.iters.size()) ? host.iters[st.attach_iter + 1].annotation : Annotation::None,
                Annotation::None)
          << what << ": " << st.name << " is not at the innermost thread loop";
    }
  }
}

TEST(GpuSketchRules, SampledSchedulesBindBlocksOutsideThreadsWithinTheLimits) {
  for (const NamedDag &nd : all_fixture_dags()) {
    ScheduleSpace space(nd.dag, gpu_options());
    std::mt19937_64 rng(7);
    for (int i = 0; i < 200; ++i) {
      const Schedule s = space.sample(rng);
      expect_well_bound(nd.name + " " + s.to_text(), LoopState::replay(nd.dag, s), *space.options().gpu);
    }
  }
}

TEST(GpuSketchRules, ReductionOutputsAccumulateInALocalStageAtTheInnermostThreadLoop) {
  for (const NamedDag &nd : {NamedDag{"matmul", testing::matmul_dag()}, NamedDag{"conv", testing::conv_dag()}}) {
    ScheduleSpace space(nd.dag, gpu_options(GpuLimits{}, 0.0));
    std::mt19937_64 rng(3);
    for (int i = 0; i < 50; ++i) {
      const Schedule s = space.sample(rng);
      const LoopState state = LoopState::replay(nd.dag, s);
      const std::string out = nd.dag.stages[nd.dag.output()].name;
      const int local = state.find_stage(out + ".local");
      ASSERT_GE(local, 0) << nd.name << ": " << s.to_text();
      EXPECT_EQ(state.stage(local).scope, MemScope::Local);
      ASSERT_EQ(state.stage(local).location, ComputeLocation::At) << s.to_text();
      EXPECT_EQ(state.stage(state.stage(local).attach_stage).name, out);
      // R R S: the reduction loops, split in two, come before the per-thread tile.
      EXPECT_EQ(state.stage(local).iters.front().kind, IterKind::Reduce) << s.to_text();
      EXPECT_EQ(state.stage(local).iters.back().kind, IterKind::Spatial) << s.to_text();
    }
  }
}

// The thread loops of a stage, outermost first, with their extents.
std::vector<int64_t> thread_extents(const StageState &st) {
  std::vector<int64_t> out;
  for (const LoopIter &it : st.iters)
    if (it.annotation == Annotation::GpuThread) out.push_back(it.extent);
  return out;
}

TEST(GpuSketchRules, SharedStagingLoadsEachReusedInputPerReductionChunk) {
  ScheduleSpace space(testing::matmul_dag(), gpu_options(GpuLimits{}, 1.0));
  std::mt19937_64 rng(9);
  for (int i = 0; i < 50; ++i) {
    const Schedule s = space.sample(rng);
    const LoopState state = LoopState::replay(space.dag(), s);
    const std::string what = s.to_text();
    EXPECT_LT(state.find_stage("C.local"), 0) << what << ": the reduction accumulates in its own buffer";
    const int c = state.find_stage("C");
    const StageState &out = state.stage(c);
    EXPECT_EQ(out.location, ComputeLocation::Root);
    // Blocks, then the reduction's outer loop (serial), then threads, then the chunk and the tile.
    const GpuLoops g = gpu_loops(out);
    ASSERT_EQ(g.blocks.size(), 2u) << what;
    ASSERT_EQ(g.threads.size(), 2u) << what;
    const int outer_k = g.blocks.back() + 1;
    EXPECT_EQ(out.iters[outer_k].kind, IterKind::Reduce) << what;
    EXPECT_EQ(g.threads.front(), outer_k + 1) << what;
    EXPECT_EQ(out.iters[g.threads.back() + 1].kind, IterKind::Reduce) << what;
    int64_t rows = 1, cols = 1;  // the block's tile
    for (size_t j = g.threads.front(); j < out.iters.size(); ++j) {
      if (out.iters[j].origins.count("i")) rows *= out.iters[j].extent;
      if (out.iters[j].origins.count("j")) cols *= out.iters[j].extent;
    }
    const int64_t chunk = out.iters[g.threads.back() + 1].extent;
    for (const char *input : {"A.cache", "B.cache"}) {
      const int k = state.find_stage(input);
      ASSERT_GE(k, 0) << what;
      const StageState &cache = state.stage(k);
      EXPECT_EQ(cache.scope, MemScope::Shared);
      EXPECT_EQ(cache.attach_stage, c);
      EXPECT_EQ(cache.attach_iter, outer_k) << what;
      // Loaded by threads in the block's shape.
      EXPECT_EQ(thread_extents(cache).size(), g.threads.size()) << what;
      int64_t points = 1;
      for (const LoopIter &it : cache.iters) points *= it.extent;
      // The region one chunk needs: A's tile rows x chunk, B's chunk x tile columns
      // (the fused and split loops may round it up to whole thread groups).
      EXPECT_GE(points, (std::string(input) == "A.cache" ? rows : cols) * chunk) << what;
    }
  }
}

TEST(GpuSketchRules, SharedStagingLeavesReductionsWithoutReuseAlone) {
  ScheduleSpace space(testing::softmax_dag(), gpu_options(GpuLimits{}, 1.0));
  std::mt19937_64 rng(4);
  for (int i = 0; i < 30; ++i) {
    const Schedule s = space.sample(rng);
    EXPECT_EQ(s.to_text().find("CHR"), std::string::npos) << s.to_text();
  }
}

TEST(GpuSketchRules, SharedStagingCachesAnInputThatAWindowSlidesOver) {
  // A 1-D depthwise convolution: every output row reads a 3-row window of `in`
  // (rows y + ry), and `w` is shared by all rows.
  using testing::access;
  ComputeDag dag;
  dag.stages.push_back(testing::placeholder("in", {testing::sp("c", 8), testing::sp("h", 18)}));
  dag.stages.push_back(testing::placeholder("w", {testing::sp("c", 8), testing::sp("ry", 3)}));
  dag.stages.push_back(
      testing::compute("dw", {testing::sp("c", 8), testing::sp("y", 16), testing::rd("ry", 3)}, {0, 1}, true));
  dag.stages[2].accesses = {access(0, {{{"c", 1}}, {{"y", 1}, {"ry", 1}}}), access(1, {{{"c", 1}}, {{"ry", 1}}})};
  ScheduleSpace space(dag, gpu_options(GpuLimits{}, 1.0));
  std::mt19937_64 rng(3);
  for (int i = 0; i < 20; ++i) {
    const Schedule s = space.sample(rng);
    const LoopState state = LoopState::replay(dag, s);
    EXPECT_GE(state.find_stage("in.cache"), 0) << s.to_text();
    EXPECT_GE(state.find_stage("w.cache"), 0) << s.to_text();
    expect_well_bound(s.to_text(), state, *space.options().gpu);
  }
}

TEST(GpuSketchRules, SharedStagingOfConvCachesThePaddedInputWithItsHalo) {
  ScheduleSpace space(testing::conv_dag(), gpu_options(GpuLimits{}, 1.0));
  std::mt19937_64 rng(2);
  int staged = 0;
  for (int i = 0; i < 30; ++i) {
    const Schedule s = space.sample(rng);
    const LoopState state = LoopState::replay(space.dag(), s);
    expect_well_bound(s.to_text(), state, *space.options().gpu);
    staged += state.find_stage("pad.cache") >= 0 && state.find_stage("weight.cache") >= 0;
  }
  EXPECT_EQ(staged, 30);
}

TEST(GpuSketchRules, ConvWithFourSpatialLoopsFusesThemIntoThreeBlockAndThreeThreadLoops) {
  ScheduleSpace space(testing::conv_dag(), gpu_options());
  std::mt19937_64 rng(5);
  for (int i = 0; i < 50; ++i) {
    const Schedule s = space.sample(rng);
    const LoopState state = LoopState::replay(space.dag(), s);
    const GpuLoops g = gpu_loops(state.stage(state.find_stage("conv")));
    EXPECT_EQ(g.blocks.size(), 3u) << s.to_text();
    EXPECT_EQ(g.threads.size(), 3u) << s.to_text();
  }
}

TEST(GpuSketchRules, TighterLimitsAreHonoured) {
  GpuLimits tight;
  tight.max_threads_per_block = 64;
  tight.max_block_dims = 2;
  tight.max_thread_dims = 1;
  for (const NamedDag &nd : all_fixture_dags()) {
    ScheduleSpace space(nd.dag, gpu_options(tight));
    std::mt19937_64 rng(9);
    for (int i = 0; i < 100; ++i) {
      const Schedule s = space.sample(rng);
      expect_well_bound(nd.name + " " + s.to_text(), LoopState::replay(nd.dag, s), tight);
    }
  }
}

TEST(GpuSketchRules, ThreadCountsAreMostlyWarpMultiplesWhenTheExtentsAllow) {
  // matmul's 64 x 48 output admits a warp multiple for every budget.
  ScheduleSpace space(testing::matmul_dag(), gpu_options());
  std::mt19937_64 rng(11);
  int warp_multiples = 0;
  const int samples = 200;
  for (int i = 0; i < samples; ++i) {
    const LoopState state = LoopState::replay(space.dag(), space.sample(rng));
    warp_multiples += gpu_loops(state.stage(state.find_stage("C"))).thread_count % 32 == 0;
  }
  EXPECT_GT(warp_multiples, samples / 2);
}

TEST(GpuSketchRules, RowReductionsStayAtRootWithRowsOnThreads) {
  // softmax's max feeds sum and out, and out broadcasts sum over a row: both
  // stay at root, rows on threads, the reduction serial in each thread (unless
  // reduced across threads, next test).
  ScheduleSpace space(testing::softmax_dag(), gpu_options(GpuLimits{}, 0.5, 0.0));
  std::mt19937_64 rng(13);
  for (int i = 0; i < 50; ++i) {
    const Schedule s = space.sample(rng);
    const LoopState state = LoopState::replay(space.dag(), s);
    for (const char *name : {"max", "sum"}) {
      const StageState &st = state.stage(state.find_stage(name));
      EXPECT_EQ(st.location, ComputeLocation::Root) << name << ": " << s.to_text();
      ASSERT_EQ(st.iters.size(), 3u) << s.to_text();
      EXPECT_EQ(st.iters[0].annotation, Annotation::GpuBlock);
      EXPECT_EQ(st.iters[1].annotation, Annotation::GpuThread);
      EXPECT_EQ(st.iters[2].kind, IterKind::Reduce);
      EXPECT_EQ(st.iters[0].extent * st.iters[1].extent, 16);
    }
  }
}

TEST(GpuSketchRules, LongRowsAreReducedAcrossTheThreadsOfABlock) {
  ScheduleSpace space(testing::softmax_dag(), gpu_options(GpuLimits{}, 0.5, 1.0));
  std::mt19937_64 rng(13);
  for (int i = 0; i < 50; ++i) {
    const Schedule s = space.sample(rng);
    const std::string what = s.to_text();
    const LoopState state = LoopState::replay(space.dag(), s);
    expect_well_bound(what, state, *space.options().gpu);
    for (const std::string name : {"max", "sum"}) {
      // The row's reduction: one block per row, adding up one partial per thread.
      const int out = state.find_stage(name);
      const StageState &st = state.stage(out);
      ASSERT_EQ(st.iters.size(), 2u) << what;
      EXPECT_EQ(st.iters[0].annotation, Annotation::GpuBlock) << what;
      EXPECT_EQ(st.iters[0].extent, 16) << what;
      EXPECT_EQ(st.iters[1].kind, IterKind::Reduce) << what;
      const int64_t threads = st.iters[1].extent;
      EXPECT_EQ(100 % threads, 0) << what;
      // The partials: in that block, a thread loop of that many threads, each summing 100 / threads values.
      const StageState &part = state.stage(state.find_stage(name + ".rf"));
      EXPECT_EQ(part.attach_stage, out) << what;
      EXPECT_EQ(part.attach_iter, 0) << what;
      ASSERT_EQ(thread_extents(part), std::vector<int64_t>{threads}) << what;
      EXPECT_EQ(part.iters.back().kind, IterKind::Reduce) << what;
      EXPECT_EQ(part.iters.back().extent * threads, 100) << what;
    }
  }
}

TEST(GpuSketchRules, AReductionIsFusedThroughAnInlinedStage) {
  // dense -> add -> relu with add inlined: dense is computed in relu's threads.
  ScheduleSpace space(testing::dense_add_relu_dag(), gpu_options());
  std::mt19937_64 rng(17);
  int fused = 0;
  for (int i = 0; i < 50; ++i) {
    const LoopState state = LoopState::replay(space.dag(), space.sample(rng));
    const StageState &dense = state.stage(state.find_stage("dense"));
    const StageState &add = state.stage(state.find_stage("add"));
    const std::string host = dense.location == ComputeLocation::At ? state.stage(dense.attach_stage).name : "";
    EXPECT_EQ(host, add.location == ComputeLocation::Inline ? "relu" : "add");
    fused += host == "relu";
  }
  EXPECT_GT(fused, 0);
}

TEST(GpuSketchRules, SameSeedGivesTheSameSchedules) {
  for (const NamedDag &nd : all_fixture_dags()) {
    ScheduleSpace space(nd.dag, gpu_options());
    std::mt19937_64 a(21), b(21);
    for (int i = 0; i < 20; ++i) EXPECT_EQ(space.sample(a).to_text(), space.sample(b).to_text()) << nd.name;
  }
}

TEST(GpuSketchRules, GpuRulesRefuseToRunWithoutGpuLimits) {
  const ComputeDag dag = testing::matmul_dag();
  const SpaceOptions cpu;
  std::mt19937_64 rng(1);
  SketchContext ctx(dag, cpu, rng);
  EXPECT_THROW(GpuTilingRule().apply(ctx), ScheduleError);
}

// The CPU space must not change when GPU rules are added: these were sampled
// (SpaceOptions{}, seed 2024, two per fixture) before the GPU rules existed.
struct Golden {
  const char *fixture;
  int index;
  const char *text;
};
const Golden kCpuGolden[] = {
    {"matmul", 0,
     "CHW(2,local); SP(3,1,48,[1,48]); SP(3,0,64,[1,2]); RE(3,[0,3,1,4,2,5]); FU(3,[0,1]); AN(3,0,parallel); AN(3,4,vectorize); CA(2,3,2); SP(2,1,48,[3,8]); SP(2,0,2,[1]); SP(2,5,32,[4]); RE(2,[5,6,0,2,1,3,4]); AN(2,6,vectorize); AN(2,5,unroll); PR(2,0,16); PR(3,0,512)"},
    {"matmul", 1,
     "CHW(2,local); SP(3,1,48,[1,40]); SP(3,0,64,[1,64]); RE(3,[0,3,1,4,2,5]); AN(3,0,parallel); AN(3,5,vectorize); CA(2,3,3); SP(2,1,40,[1,8]); SP(2,0,64,[4]); SP(2,5,32,[1]); RE(2,[5,6,0,2,1,3,4]); AN(2,6,vectorize); AN(2,4,unroll); PR(2,0,512); PR(3,0,16)"},
    {"dense_relu", 0,
     "SP(4,1,48,[4,8]); SP(4,0,64,[1,32]); RE(4,[0,3,1,4,2,5]); AN(4,0,parallel); AN(4,5,vectorize); CA(3,4,3); SP(3,1,8,[1,8]); SP(3,0,32,[4]); SP(3,5,32,[1]); RE(3,[5,0,2,6,1,3,4]); AN(3,6,vectorize); PR(3,0,512); PR(4,0,16)"},
    {"dense_relu", 1,
     "SP(4,1,48,[2,24]); SP(4,0,64,[2,30]); RE(4,[0,3,1,4,2,5]); FU(4,[0,1]); AN(4,0,parallel); AN(4,4,vectorize); CA(3,4,2); SP(3,1,24,[1,8]); SP(3,0,30,[1]); SP(3,5,32,[16]); RE(3,[5,0,2,6,1,3,4]); AN(3,6,vectorize); PR(3,0,64)"},
    {"dense_add_relu", 0,
     "SP(4,1,40,[1,40]); SP(4,0,32,[1,2]); RE(4,[0,3,1,4,2,5]); FU(4,[0,1]); AN(4,0,parallel); AN(4,4,vectorize); CA(3,4,2); SP(3,1,40,[5,8]); SP(3,0,2,[1]); SP(3,5,64,[4]); RE(3,[5,6,0,2,1,3,4]); AN(3,6,vectorize); AN(3,5,unroll); SP(5,1,40,[4,5]); SP(5,0,32,[1,32]); RE(5,[0,3,1,4,2,5]); FU(5,[0,1]); AN(5,0,parallel); AN(5,4,vectorize); PR(4,0,16); PR(5,0,64)"},
    {"dense_add_relu", 1,
     "CI(4); SP(5,1,40,[1,24]); SP(5,0,32,[1,8]); RE(5,[0,3,1,4,2,5]); AN(5,0,parallel); AN(5,5,vectorize); CA(3,5,3); SP(3,1,24,[1,8]); SP(3,0,8,[2]); SP(3,5,64,[36]); RE(3,[5,6,0,2,1,3,4]); AN(3,6,vectorize); AN(3,4,unroll); PR(3,0,64); PR(5,0,512)"},
    {"softmax", 0,
     "SP(3,1,100,[5,2]); SP(3,0,16,[1,2]); RE(3,[0,3,1,4,2,5]); FU(3,[0,1]); AN(3,0,parallel); AN(3,4,vectorize); CA(2,3,0); SP(2,0,2,[1,2]); SP(2,3,100,[50]); RE(2,[3,4,0,1,2]); AN(2,4,vectorize); SP(1,0,16,[1,4]); RE(1,[0,1,2,3]); SP(1,3,100,[7]); RE(1,[0,1,3,4,2]); AN(1,0,parallel); AN(1,4,vectorize); PR(1,0,16); PR(2,0,64); PR(3,0,64)"},
    {"softmax", 1,
     "SP(2,1,100,[5]); RF(2,2,1); RE(2,[0,1,2]); AN(2,0,parallel); AN(2,2,vectorize); SP(4,1,100,[1,2]); SP(4,0,16,[4,2]); RE(4,[0,3,1,4,2,5]); FU(4,[0,1]); AN(4,0,parallel); AN(4,4,vectorize); CA(3,4,2); SP(3,0,2,[1,2]); SP(3,3,5,[5]); RE(3,[3,4,0,1,2]); AN(3,4,vectorize); SP(1,0,16,[2,8]); RE(1,[0,1,2,3]); SP(1,3,100,[38]); RE(1,[0,1,3,4,2]); AN(1,0,parallel); AN(1,4,vectorize); PR(1,0,512); PR(2,0,64); PR(3,0,16); PR(4,0,512)"},
    {"conv", 0,
     "CHW(3,local); SP(1,3,18,[2,8]); SP(1,2,18,[3,6]); SP(1,1,8,[1,5]); SP(1,0,1,[1,1]); RE(1,[0,3,6,9,1,4,7,10,2,5,8,11]); FU(1,[0,1,2,3]); AN(1,0,parallel); AN(1,8,vectorize); SP(4,3,16,[2,8]); SP(4,2,16,[1,16]); SP(4,1,16,[4,2]); SP(4,0,1,[1,1]); RE(4,[0,3,6,9,1,4,7,10,2,5,8,11]); FU(4,[0,1,2,3]); AN(4,0,parallel); AN(4,8,vectorize); CA(3,4,4); SP(3,3,8,[1,8]); SP(3,2,16,[1]); SP(3,1,2,[2]); SP(3,0,1,[1]); SP(3,11,3,[1]); SP(3,10,3,[3]); SP(3,9,8,[4]); RE(3,[9,11,13,0,2,4,6,10,12,14,3,1,5,7,8]); AN(3,14,vectorize); AN(3,10,unroll); PR(1,0,512); PR(3,0,64); PR(4,0,512)"},
    {"conv", 1,
     "CHW(3,local); SP(1,3,18,[1,8]); SP(1,2,18,[1,1]); SP(1,1,8,[2,4]); SP(1,0,1,[1,1]); RE(1,[0,3,6,9,1,4,7,10,2,5,8,11]); FU(1,[0,1,2,3]); AN(1,0,parallel); AN(1,8,vectorize); SP(4,3,16,[2,8]); SP(4,2,16,[16,1]); SP(4,1,16,[4,2]); SP(4,0,1,[1,1]); RE(4,[0,3,6,9,1,4,7,10,2,5,8,11]); FU(4,[0,1,2]); AN(4,0,parallel); AN(4,9,vectorize); CA(3,4,5); SP(3,3,8,[1,8]); SP(3,2,1,[1]); SP(3,1,2,[2]); SP(3,0,1,[1]); SP(3,11,3,[1]); SP(3,10,3,[3]); SP(3,9,8,[1]); RE(3,[9,11,13,10,12,14,0,2,4,6,3,1,5,7,8]); AN(3,14,vectorize); AN(3,10,unroll); PR(1,0,512); PR(3,0,512); PR(4,0,64)"},
};

TEST(GpuSketchRules, CpuSamplingIsUnchanged) {
  for (const NamedDag &nd : all_fixture_dags()) {
    ScheduleSpace space(nd.dag, SpaceOptions{});
    std::mt19937_64 rng(2024);
    for (int i = 0; i < 2; ++i) {
      const std::string got = space.sample(rng).to_text();
      for (const Golden &g : kCpuGolden)
        if (nd.name == g.fixture && i == g.index) EXPECT_EQ(got, g.text) << nd.name << " " << i;
    }
  }
}

// --- The launch-limit check, one hand-written schedule per violation. ---

std::string violation(const ComputeDag &dag, const std::string &schedule, const GpuLimits &limits = GpuLimits{}) {
  return gpu_launch_limit_violation(LoopState::replay(dag, Schedule::from_text(schedule)), limits);
}

void expect_violation(const std::string &got, const std::string &stage, const std::string &phrase) {
  EXPECT_NE(got.find("stage " + stage + " "), std::string::npos) << got;
  EXPECT_NE(got.find(phrase), std::string::npos) << got;
}

TEST(GpuLaunchLimits, AcceptsAWellBoundSchedule) {
  EXPECT_EQ(violation(testing::matmul_dag(), "CHW(2,local); SP(3,1,48,[16]); SP(3,0,64,[8]); RE(3,[0,2,1,3]); "
                                             "AN(3,0,gpu_block); AN(3,1,gpu_block); AN(3,2,gpu_thread); "
                                             "AN(3,3,gpu_thread); CA(2,3,3)"),
            "");
  EXPECT_EQ(violation(testing::matmul_dag(), ""), "");  // no GPU loops: host code, nothing to launch
}

TEST(GpuLaunchLimits, ReportsTooManyThreadsPerBlock) {
  // 32 x 48 = 1536 threads.
  expect_violation(violation(testing::matmul_dag(), "SP(2,1,48,[48]); SP(2,0,64,[32]); RE(2,[0,2,1,3,4]); "
                                                    "AN(2,0,gpu_block); AN(2,1,gpu_block); AN(2,2,gpu_thread); "
                                                    "AN(2,3,gpu_thread)"),
                   "C", "1536 threads per block, over the limit of 1024");
}

TEST(GpuLaunchLimits, ReportsMoreThanThreeBlockDimensions) {
  expect_violation(violation(testing::conv_dag(), "AN(3,0,gpu_block); AN(3,1,gpu_block); AN(3,2,gpu_block); "
                                                  "AN(3,3,gpu_block)"),
                   "conv", "binds 4 loops to gpu_block; a kernel has at most 3 block dimensions");
}

TEST(GpuLaunchLimits, ReportsMoreThanThreeThreadDimensions) {
  expect_violation(violation(testing::conv_dag(), "SP(3,0,1,[1]); AN(3,0,gpu_block); AN(3,1,gpu_thread); "
                                                  "AN(3,2,gpu_thread); AN(3,3,gpu_thread); AN(3,4,gpu_thread)"),
                   "conv", "binds 4 loops to gpu_thread; a block has at most 3 thread dimensions");
}

TEST(GpuLaunchLimits, ReportsAThreadLoopOutsideAnyBlockLoop) {
  expect_violation(violation(testing::matmul_dag(), "SP(2,0,64,[16]); AN(2,1,gpu_thread)"), "C",
                   "binds loop i_1 to gpu_thread outside any gpu_block loop");
}

TEST(GpuLaunchLimits, ReportsABlockLoopInsideAThreadLoop) {
  expect_violation(violation(testing::matmul_dag(), "SP(2,0,64,[16]); AN(2,0,gpu_thread); AN(2,1,gpu_block)"), "C",
                   "binds loop i_1 to gpu_block inside its gpu_thread loop i_0");
}

TEST(GpuLaunchLimits, ReportsANestedLaunchAndNestedThreads) {
  const std::string outer = "CHW(2,local); SP(3,0,64,[16]); AN(3,0,gpu_block); AN(3,1,gpu_thread); CA(2,3,1); ";
  expect_violation(violation(testing::matmul_dag(), outer + "AN(2,0,gpu_block)"), "C.local",
                   "computed inside gpu_thread loop C.i_1 (a nested kernel launch)");
  expect_violation(violation(testing::matmul_dag(), outer + "AN(2,0,gpu_thread)"), "C.local",
                   "computed inside gpu_thread loop C.i_1 (nested thread loops)");
  expect_violation(violation(testing::matmul_dag(), "CHW(2,local); SP(3,0,64,[16]); AN(3,0,gpu_block); "
                                                    "CA(2,3,0); AN(2,0,gpu_block)"),
                   "C.local", "computed inside gpu_block loop C.i_0 (a nested kernel launch)");
}

TEST(GpuLaunchLimits, ReportsAStageComputedBetweenBlockLoops) {
  // A mutant moved A's shared cache from the reduction's outer loop to the first block loop.
  const std::string tiled = "SP(2,2,32,[8]); SP(2,1,48,[16]); SP(2,0,64,[16]); RE(2,[0,2,4,1,3,5]); "
                            "AN(2,0,gpu_block); AN(2,1,gpu_block); AN(2,3,gpu_thread); AN(2,4,gpu_thread); "
                            "CHR(0,2,shared); CA(1,3,";
  EXPECT_EQ(violation(testing::matmul_dag(), tiled + "2)"), "");
  EXPECT_EQ(violation(testing::matmul_dag(), tiled + "1)"), "");  // the innermost block loop: fine
  expect_violation(violation(testing::matmul_dag(), tiled + "0)"), "A.cache", "outside its gpu_block loop j_0");
}

TEST(GpuLaunchLimits, SharedMemoryOfOneKernelIsSummedOverItsCaches) {
  GpuLimits small;
  small.max_shared_bytes_per_block = 3000;
  // Blocks of 16 x 16 outputs, k in chunks of 8: A's chunk 16 x 8 and B's 8 x 16,
  // 512 bytes each: within 3000 bytes together.
  const std::string tiled = "SP(2,2,32,[8]); SP(2,1,48,[16]); SP(2,0,64,[16]); RE(2,[0,2,4,1,3,5]); "
                            "AN(2,0,gpu_block); AN(2,1,gpu_block); AN(2,3,gpu_thread); AN(2,4,gpu_thread); "
                            "CHR(0,2,shared); CA(1,3,2); CHR(2,3,shared); CA(3,4,2)";
  EXPECT_EQ(violation(testing::matmul_dag(), tiled, small), "");
  const LoopState state = LoopState::replay(testing::matmul_dag(), Schedule::from_text(tiled));
  EXPECT_EQ(state.stage(state.find_stage("A.cache")).iters[0].extent, 16);
  EXPECT_EQ(state.stage(state.find_stage("A.cache")).iters[1].extent, 8);
  EXPECT_EQ(state.stage(state.find_stage("B.cache")).iters[0].extent, 8);
  EXPECT_EQ(state.stage(state.find_stage("B.cache")).iters[1].extent, 16);
  small.max_shared_bytes_per_block = 1000;  // each fits alone, not both
  expect_violation(violation(testing::matmul_dag(), tiled, small), "C", "1024 bytes in shared memory");
}

TEST(GpuLaunchLimits, ReportsSharedMemoryOverTheLimit) {
  GpuLimits small;
  small.max_shared_bytes_per_block = 4096;
  // A[64, 32] staged whole in shared memory: 8192 bytes.
  expect_violation(violation(testing::matmul_dag(), "CHR(0,2,shared)", small), "A.cache",
                   "8192 bytes in shared memory, over the limit of 4096");
  EXPECT_EQ(violation(testing::matmul_dag(), "CHR(0,2,shared)"), "");
}

}  // namespace
}  // namespace tlp
