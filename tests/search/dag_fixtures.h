// Hand-made ComputeDags for the search tests. They stand in for what codegen
// builds from Halide algorithms: spatial loops of a producer and its consumer
// share names ("i", "j", ...), reduction loops come after the spatial ones.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "search/compute_dag.h"

namespace tlp::testing {

inline DagIter sp(const std::string &name, int64_t extent) { return {name, extent, IterKind::Spatial}; }
inline DagIter rd(const std::string &name, int64_t extent) { return {name, extent, IterKind::Reduce}; }

inline DagStage placeholder(const std::string &name, std::vector<DagIter> iters) {
  DagStage s;
  s.name = name;
  s.placeholder = true;
  s.iters = std::move(iters);
  return s;
}

inline DagStage compute(const std::string &name, std::vector<DagIter> iters, std::vector<int> reads,
                        bool output = false) {
  DagStage s;
  s.name = name;
  s.iters = std::move(iters);
  s.reads = std::move(reads);
  s.is_output = output;
  return s;
}

// How a stage indexes `producer`: per producer loop, the consumer loops and coefficients.
inline DagAccess access(int producer, std::vector<std::vector<std::pair<std::string, int64_t>>> dims) {
  DagAccess a;
  a.producer = producer;
  a.dims = std::move(dims);
  return a;
}

// 0 A[i,k]  1 B[k,j]  2 C[i:64, j:48, k~:32] = sum_k A*B (output)
inline ComputeDag matmul_dag(int64_t m = 64, int64_t n = 48, int64_t k = 32) {
  ComputeDag d;
  d.stages.push_back(placeholder("A", {sp("i", m), sp("k", k)}));
  d.stages.push_back(placeholder("B", {sp("k", k), sp("j", n)}));
  d.stages.push_back(compute("C", {sp("i", m), sp("j", n), rd("k", k)}, {0, 1}, true));
  d.stages[2].accesses = {access(0, {{{"i", 1}}, {{"k", 1}}}), access(1, {{{"k", 1}}, {{"j", 1}}})};
  return d;
}

// 0 A  1 B  2 bias  3 dense[i:64, j:48, k~:32]  4 relu[i, j] reads dense, bias (output)
inline ComputeDag dense_relu_dag() {
  ComputeDag d;
  d.stages.push_back(placeholder("A", {sp("i", 64), sp("k", 32)}));
  d.stages.push_back(placeholder("B", {sp("j", 48), sp("k", 32)}));
  d.stages.push_back(placeholder("bias", {sp("j", 48)}));
  d.stages.push_back(compute("dense", {sp("i", 64), sp("j", 48), rd("k", 32)}, {0, 1}));
  d.stages.push_back(compute("relu", {sp("i", 64), sp("j", 48)}, {3, 2}, true));
  return d;
}

// dense -> add (elementwise, inlinable) -> relu (output): the reduction's only
// consumer is reached through an inlined stage.
// 0 A  1 B  2 bias  3 dense  4 add[i, j] reads dense, bias  5 relu[i, j] reads add (output)
inline ComputeDag dense_add_relu_dag() {
  ComputeDag d;
  d.stages.push_back(placeholder("A", {sp("i", 32), sp("k", 64)}));
  d.stages.push_back(placeholder("B", {sp("j", 40), sp("k", 64)}));
  d.stages.push_back(placeholder("bias", {sp("j", 40)}));
  d.stages.push_back(compute("dense", {sp("i", 32), sp("j", 40), rd("k", 64)}, {0, 1}));
  d.stages.push_back(compute("add", {sp("i", 32), sp("j", 40)}, {3, 2}));
  d.stages.push_back(compute("relu", {sp("i", 32), sp("j", 40)}, {4}, true));
  return d;
}

// 0 x[i,j]  1 max[i:16, k~:100]  2 sum[i, k~] reads x, max  3 out[i, j:100] reads x, max, sum (output)
inline ComputeDag softmax_dag() {
  ComputeDag d;
  d.stages.push_back(placeholder("x", {sp("i", 16), sp("j", 100)}));
  d.stages.push_back(compute("max", {sp("i", 16), rd("k", 100)}, {0}));
  d.stages.push_back(compute("sum", {sp("i", 16), rd("k", 100)}, {0, 1}));
  // Each row reduction reads only its own row: nothing for a block to share.
  d.stages[1].accesses = {access(0, {{{"i", 1}}, {{"k", 1}}})};
  d.stages[2].accesses = {access(0, {{{"i", 1}}, {{"k", 1}}}), access(1, {{{"i", 1}}})};
  d.stages.push_back(compute("out", {sp("i", 16), sp("j", 100)}, {0, 1, 2}, true));
  return d;
}

// 0 data[n,c,h,w]  1 pad[n:1, c:8, h:18, w:18] reads data  2 weight[f,c,ry,rx]
// 3 conv[n:1, f:16, y:16, x:16, rc~:8, ry~:3, rx~:3] reads pad, weight (output)
inline ComputeDag conv_dag() {
  ComputeDag d;
  d.stages.push_back(placeholder("data", {sp("n", 1), sp("c", 8), sp("h", 16), sp("w", 16)}));
  d.stages.push_back(compute("pad", {sp("n", 1), sp("c", 8), sp("h", 18), sp("w", 18)}, {0}));
  d.stages.push_back(placeholder("weight", {sp("f", 16), sp("c", 8), sp("ry", 3), sp("rx", 3)}));
  d.stages.push_back(compute("conv",
                             {sp("n", 1), sp("f", 16), sp("y", 16), sp("x", 16), rd("rc", 8), rd("ry", 3), rd("rx", 3)},
                             {1, 2}, true));
  d.stages[1].accesses = {access(0, {{{"n", 1}}, {{"c", 1}}, {{"h", 1}}, {{"w", 1}}})};
  d.stages[3].accesses = {access(1, {{{"n", 1}}, {{"rc", 1}}, {{"y", 1}, {"ry", 1}}, {{"x", 1}, {"rx", 1}}}),
                          access(2, {{{"f", 1}}, {{"rc", 1}}, {{"ry", 1}}, {{"rx", 1}}})};
  return d;
}

// A space with only a handful of schedules: 0 A[i:1, k:1]  1 C[i:1, k~:1] (output)
inline ComputeDag tiny_dag() {
  ComputeDag d;
  d.stages.push_back(placeholder("A", {sp("i", 1), sp("k", 1)}));
  d.stages.push_back(compute("C", {sp("i", 1), rd("k", 1)}, {0}, true));
  return d;
}

struct NamedDag {
  std::string name;
  ComputeDag dag;
};

inline std::vector<NamedDag> all_fixture_dags() {
  return {{"matmul", matmul_dag()},
          {"dense_relu", dense_relu_dag()},
          {"dense_add_relu", dense_add_relu_dag()},
          {"softmax", softmax_dag()},
          {"conv", conv_dag()}};
}

}  // namespace tlp::testing
