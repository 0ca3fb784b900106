// The schedule space (sampling) and the random policy built on it.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <unordered_set>
#include <vector>

#include "search/loop_state.h"
#include "search/random_search.h"
#include "search/schedule_space.h"
#include "tests/search/dag_fixtures.h"

namespace tlp {
namespace {

using testing::all_fixture_dags;
using testing::matmul_dag;
using testing::NamedDag;
using testing::tiny_dag;

int index_of(const LoopState &s, const std::string &name) {
  for (int i = 0; i < s.num_stages(); ++i)
    if (s.stage(i).name == name) return i;
  return -1;
}

// Structural checks of one sampled schedule of `dag`. Returns "" or what is wrong.
std::string check_sample(const ComputeDag &dag, const Schedule &sched) {
  LoopState state(dag);
  try {
    state = LoopState::replay(dag, sched);
  } catch (const ScheduleError &e) {
    return std::string("does not replay: ") + e.what();
  }
  // The text form round-trips and replays to the same history.
  if (Schedule::from_text(sched.to_text()) != sched) return "text form does not round-trip";

  bool parallel = false;
  for (const Step &st : sched.steps)
    if (st.kind == StepKind::AN && st.annotation == Annotation::Parallel) parallel = true;
  if (!parallel) return "no AN parallel step";

  for (size_t s = 0; s < dag.stages.size(); ++s) {
    const DagStage &d = dag.stages[s];
    if (d.placeholder || d.is_output || d.has_reduction()) continue;
    // Inlined, or computed at root with a parallel loop of its own.
    const int now = index_of(state, d.name);
    if (now < 0) return d.name + " disappeared";
    const StageState &st = state.stage(now);
    if (st.location == ComputeLocation::Inline) continue;
    if (st.location != ComputeLocation::Root) return d.name + " is neither inlined nor at root";
    bool own_parallel = false;
    for (const auto &it : st.iters) own_parallel |= it.annotation == Annotation::Parallel;
    if (!own_parallel) return d.name + " is at root without a parallel loop";
  }

  for (const auto &st : state.stages()) {
    if (st.location != ComputeLocation::At) continue;
    if (st.attach_stage < 0 || st.attach_stage >= state.num_stages()) return st.name + " attached to no stage";
    const StageState &t = state.stage(st.attach_stage);
    if (st.attach_iter < 0 || st.attach_iter >= int(t.iters.size())) return st.name + " attached to no loop";
    if (t.location == ComputeLocation::Inline) return st.name + " attached to an inlined stage";
  }
  // The output is computed at root and nothing is left unscheduled.
  const int out = index_of(state, dag.stages[dag.output()].name);
  if (out < 0 || state.stage(out).location != ComputeLocation::Root) return "the output is not at root";
  return "";
}

class SpaceOnFixture : public ::testing::TestWithParam<NamedDag> {};

TEST_P(SpaceOnFixture, ThousandSamplesReplayAndAreWellFormed) {
  const ComputeDag &dag = GetParam().dag;
  ScheduleSpace space(dag, SpaceOptions{});
  std::mt19937_64 rng(1234);
  int failures = 0;
  for (int i = 0; i < 1000; ++i) {
    Schedule s;
    try {
      s = space.sample(rng);
    } catch (const ScheduleError &e) {
      ADD_FAILURE() << "sample " << i << " threw: " << e.what();
      if (++failures > 5) return;
      continue;
    }
    const std::string problem = check_sample(dag, s);
    if (!problem.empty()) {
      ADD_FAILURE() << "sample " << i << ": " << problem << "\n  " << s.to_text();
      if (++failures > 5) return;
    }
  }
}

TEST_P(SpaceOnFixture, SameSeedGivesTheSameSequence) {
  ScheduleSpace space(GetParam().dag, SpaceOptions{});
  std::mt19937_64 a(99), b(99), c(100);
  bool any_different = false;
  for (int i = 0; i < 50; ++i) {
    const std::string sa = space.sample(a).to_text();
    EXPECT_EQ(sa, space.sample(b).to_text()) << "sample " << i;
    if (sa != space.sample(c).to_text()) any_different = true;
  }
  EXPECT_TRUE(any_different) << "a different seed should give a different sequence";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, SpaceOnFixture, ::testing::ValuesIn(all_fixture_dags()),
                         [](const ::testing::TestParamInfo<NamedDag> &info) { return info.param.name; });

TEST(ScheduleSpace, MatmulSamplesAreMostlyDistinct) {
  ScheduleSpace space(matmul_dag(), SpaceOptions{});
  std::mt19937_64 rng(7);
  std::set<std::string> texts;
  for (int i = 0; i < 200; ++i) texts.insert(space.sample(rng).to_text());
  EXPECT_GE(texts.size(), 180u) << "only " << texts.size() << " distinct schedules out of 200";
}

TEST(ScheduleSpace, FusedReductionsAreComputedInsideTheirConsumer) {
  for (const auto &[name, dag] :
       std::vector<NamedDag>{{"dense_relu", testing::dense_relu_dag()}, {"dense_add_relu", testing::dense_add_relu_dag()}}) {
    ScheduleSpace space(dag, SpaceOptions{});
    std::mt19937_64 rng(3);
    for (int i = 0; i < 50; ++i) {
      const Schedule s = space.sample(rng);
      const LoopState st = LoopState::replay(dag, s);
      const int dense = index_of(st, "dense");
      ASSERT_GE(dense, 0);
      EXPECT_EQ(st.stage(dense).location, ComputeLocation::At) << name << ": " << s.to_text();
      // Inside its first non-inlined consumer: relu, or add when add is not inlined.
      const StageState &host = st.stage(st.stage(dense).attach_stage);
      const int add = index_of(st, "add");
      const bool add_inlined = add < 0 || st.stage(add).location == ComputeLocation::Inline;
      EXPECT_EQ(host.name, add_inlined ? "relu" : "add") << name << ": " << s.to_text();
    }
  }
  // softmax: sum has one consumer (out) and is fused; max has two and stays at root.
  const ComputeDag sm = testing::softmax_dag();
  ScheduleSpace space(sm, SpaceOptions{});
  std::mt19937_64 rng(4);
  for (int i = 0; i < 50; ++i) {
    const Schedule s = space.sample(rng);
    const LoopState st = LoopState::replay(sm, s);
    EXPECT_EQ(st.stage(index_of(st, "sum")).location, ComputeLocation::At) << s.to_text();
    EXPECT_EQ(st.stage(index_of(st, "max")).location, ComputeLocation::Root) << s.to_text();
  }
}

TEST(ScheduleSpace, CacheWriteProbabilityIsHonoured) {
  for (double p : {0.0, 1.0}) {
    SpaceOptions o;
    o.cache_write_probability = p;
    ScheduleSpace space(matmul_dag(), o);
    std::mt19937_64 rng(11);
    for (int i = 0; i < 30; ++i) {
      const Schedule s = space.sample(rng);
      int chw = 0;
      for (const Step &st : s.steps) chw += st.kind == StepKind::CHW;
      EXPECT_EQ(chw, p > 0.5 ? 1 : 0) << s.to_text();
    }
  }
}

// softmax rows (16 rows of 100) reduce more than they have rows: rfactor applies,
// as vector partials (innermost, vectorized) or parallel chunks (outermost).
TEST(ScheduleSpace, LongReductionsAreRfactoredIntoVectorsOrParallelChunks) {
  const ComputeDag dag = testing::softmax_dag();
  SpaceOptions o;
  o.rfactor_probability = 1;
  ScheduleSpace space(dag, o);
  std::mt19937_64 rng(8);
  int vector_partials = 0, parallel_chunks = 0;
  for (int i = 0; i < 60; ++i) {
    const Schedule s = space.sample(rng);
    const LoopState st = LoopState::replay(dag, s);
    for (const std::string name : {"max.rf", "sum.rf"}) {
      const int rf = index_of(st, name);
      ASSERT_GE(rf, 0) << name << " missing: " << s.to_text();
      const auto &iters = st.stage(rf).iters;
      if (iters.back().kind == IterKind::Spatial) {
        EXPECT_EQ(iters.back().annotation, Annotation::Vectorize) << s.to_text();
        ++vector_partials;
      } else {
        EXPECT_EQ(iters.front().annotation, Annotation::Parallel) << s.to_text();
        ++parallel_chunks;
      }
    }
  }
  EXPECT_GT(vector_partials, 20);
  EXPECT_GT(parallel_chunks, 20);
}

TEST(ScheduleSpace, ShortReductionsAreNotRfactored) {
  SpaceOptions o;
  o.rfactor_probability = 1;
  ScheduleSpace space(testing::dense_relu_dag(), o);  // 64x48 outputs, 32-long reduction
  std::mt19937_64 rng(9);
  for (int i = 0; i < 30; ++i)
    for (const Step &st : space.sample(rng).steps) EXPECT_NE(st.kind, StepKind::RF);
}

TEST(ScheduleSpace, AutoUnrollValuesComeFromTheOptions) {
  SpaceOptions o;
  o.auto_unroll_values = {32};
  ScheduleSpace space(matmul_dag(), o);
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20; ++i) {
    int pr = 0;
    for (const Step &st : space.sample(rng).steps)
      if (st.kind == StepKind::PR) {
        ++pr;
        EXPECT_EQ(st.value, 32);
      }
    EXPECT_GE(pr, 1);
  }
}

// ---------------------------------------------------------------------------
// random_factors

TEST(RandomFactors, ProductsNeverExceedTheExtent) {
  std::mt19937_64 rng(42);
  for (int64_t extent : {1, 2, 3, 7, 12, 16, 48, 64, 97, 100, 224, 1000, 1024}) {
    for (int levels : {1, 2, 3, 4}) {
      for (int cap : {1, 4, 16, 64}) {
        for (int rep = 0; rep < 40; ++rep) {
          const std::vector<int> f = random_factors(extent, levels, cap, rng);
          ASSERT_EQ(int(f.size()), levels);
          int64_t product = 1;
          for (int v : f) {
            EXPECT_GE(v, 1);
            EXPECT_LE(v, cap) << "extent " << extent << " levels " << levels;
            product *= v;
          }
          EXPECT_LE(product, extent) << "extent " << extent << " levels " << levels << " cap " << cap;
        }
      }
    }
  }
}

TEST(RandomFactors, AreDeterministicGivenTheSeed) {
  std::mt19937_64 a(8), b(8);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(random_factors(96, 3, 16, a), random_factors(96, 3, 16, b));
}

TEST(RandomFactors, ExtentOneGivesOnlyOnes) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20; ++i) EXPECT_EQ(random_factors(1, 3, 64, rng), (std::vector<int>{1, 1, 1}));
}

// ---------------------------------------------------------------------------
// RandomSearch

TEST(RandomSearch, NeverProposesMeasuredSchedulesOrDuplicates) {
  ScheduleSpace space(testing::softmax_dag(), SpaceOptions{});
  // The first samples of seed 7 are exactly what a RandomSearch seeded 7 draws
  // first, so every one of them must be skipped.
  std::unordered_set<std::string> measured;
  {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 30; ++i) measured.insert(space.sample(rng).to_text());
  }
  RandomSearch search(space, 7);
  EXPECT_EQ(search.name(), "random");
  for (int round = 0; round < 3; ++round) {
    const std::vector<Schedule> batch = search.propose(20, measured);
    EXPECT_EQ(batch.size(), 20u);
    std::set<std::string> seen;
    for (const Schedule &s : batch) {
      const std::string t = s.to_text();
      EXPECT_EQ(measured.count(t), 0u) << "proposed a measured schedule: " << t;
      EXPECT_TRUE(seen.insert(t).second) << "duplicate within a batch: " << t;
      EXPECT_NO_THROW(LoopState::replay(space.dag(), s));
    }
    for (const auto &t : seen) measured.insert(t);
  }
}

TEST(RandomSearch, GivesUpOnATinySpaceInsteadOfLoopingForever) {
  ScheduleSpace space(tiny_dag(), SpaceOptions{});
  RandomSearch search(space, 1);
  std::unordered_set<std::string> measured;
  const std::vector<Schedule> first = search.propose(100, measured);
  EXPECT_LT(first.size(), 100u);
  EXPECT_GT(first.size(), 0u);
  std::set<std::string> seen;
  for (const Schedule &s : first) {
    EXPECT_TRUE(seen.insert(s.to_text()).second) << "duplicate: " << s.to_text();
    measured.insert(s.to_text());
  }
  // With everything it found measured, what is left is small, maybe nothing.
  const std::vector<Schedule> second = search.propose(100, measured);
  EXPECT_LT(second.size(), 100u);
  for (const Schedule &s : second) EXPECT_EQ(measured.count(s.to_text()), 0u) << s.to_text();
  EXPECT_TRUE(search.propose(0, measured).empty());
}

}  // namespace
}  // namespace tlp
