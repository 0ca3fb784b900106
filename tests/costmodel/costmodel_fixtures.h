// Shared helpers for the costmodel tests: small networks (fast on 2 cores) and a
// synthetic tuning problem whose cost depends on one split factor only.
#pragma once

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "costmodel/tlp_dataset.h"
#include "costmodel/tlp_featurizer.h"
#include "costmodel/tlp_network.h"
#include "measure/measure_record.h"
#include "search/schedule.h"

namespace tlp::testing {

// A small network for quick tests; the architecture is the paper's with a
// narrower hidden width.
inline TlpNetworkConfig small_config(TlpArch arch = TlpArch::Attention, int seq_len = 4, int emb_size = 22) {
  TlpNetworkConfig c;
  c.arch = arch;
  c.seq_len = seq_len;
  c.emb_size = emb_size;
  c.hidden = 64;
  c.heads = 4;
  return c;
}

inline FeaturizerOptions featurizer_for(const TlpNetworkConfig &c, FeatureScaling scaling = FeatureScaling::Log) {
  FeaturizerOptions f;
  f.seq_len = c.seq_len;
  f.emb_size = c.emb_size;
  f.scaling = scaling;
  return f;
}

// An emb_size-wide featurizer whose matrix spends its last rows of seq_len on
// tile rows.
inline FeaturizerOptions featurizer_with_rows(int seq_len, int emb_size, int tile_rows) {
  FeaturizerOptions f;
  f.seq_len = seq_len;
  f.emb_size = emb_size;
  f.tile_rows = tile_rows;
  return f;
}

// The synthetic problem: "SP(2,0,E,[outer,inner]); AN(2,k,vectorize); PR(2,0,u)".
// Only `inner` matters: the cost is lowest at inner = 16 and grows with the
// distance in log2 (a V shape, so no monotone guess gets it right). `outer`, the
// annotated loop and the unroll limit are noise.
inline double synthetic_cost(int inner) { return 1.0 + std::fabs(std::log2(double(inner)) - 4.0); }

inline Schedule synthetic_schedule(std::mt19937_64 &rng, int *inner_out = nullptr) {
  static const int inners[] = {1, 2, 4, 8, 16, 32, 64};
  static const int outers[] = {1, 2, 3, 4, 8};
  static const int unrolls[] = {0, 16, 64, 512};
  const int inner = inners[rng() % 7];
  const int outer = outers[rng() % 5];
  const int extent = 64 * int(1 + rng() % 8);
  const int k = int(rng() % 3);
  const int unroll = unrolls[rng() % 4];
  if (inner_out) *inner_out = inner;
  return Schedule::from_text("SP(2,0," + std::to_string(extent) + ",[" + std::to_string(outer) + "," +
                             std::to_string(inner) + "]); AN(2," + std::to_string(k) + ",vectorize); PR(2,0," +
                             std::to_string(unroll) + ")");
}

inline MeasureRecord make_record(const std::string &workload, const std::string &platform, const Schedule &s,
                                 double cost, MeasureError error = MeasureError::None) {
  MeasureRecord r;
  r.workload_key = workload;
  r.target = "llvm";
  r.platform = platform;
  r.schedule = s;
  r.error = error;
  if (error == MeasureError::None) {
    r.costs = {cost, cost, cost};
    r.median_cost = cost;
  }
  return r;
}

// Records of `workloads` synthetic tasks with `per_task` schedules each; a
// workload's costs are scaled by its own factor (only the order within a task
// matters).
inline std::vector<MeasureRecord> synthetic_records(int workloads, int per_task, uint64_t seed,
                                                    const std::string &prefix = "synth",
                                                    const std::string &platform = "cpu/test") {
  std::mt19937_64 rng(seed);
  std::vector<MeasureRecord> out;
  for (int w = 0; w < workloads; ++w) {
    const double scale = 1e-3 * double(1 + w % 5);
    for (int i = 0; i < per_task; ++i) {
      int inner = 1;
      const Schedule s = synthetic_schedule(rng, &inner);
      out.push_back(make_record(prefix + ":" + std::to_string(w), platform, s, scale * synthetic_cost(inner)));
    }
  }
  return out;
}

// The share of record pairs with different costs that the scores order right.
inline double pairwise_accuracy(const std::vector<double> &costs, const std::vector<float> &scores) {
  size_t right = 0, total = 0;
  for (size_t i = 0; i < costs.size(); ++i)
    for (size_t j = 0; j < costs.size(); ++j) {
      if (!(costs[i] < costs[j])) continue;
      ++total;
      if (scores[i] > scores[j]) ++right;
    }
  return total ? double(right) / double(total) : 1.0;
}

// Random feature matrices that look like featurized schedules: each has 0 to
// seq_len real rows (a one-hot plus numbers), zero rows after them, and rows are
// often repeated across matrices (as steps of one task's candidates are).
inline std::vector<float> random_features(const TlpNetworkConfig &c, size_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> value(0.0f, 8.0f);
  const size_t E = size_t(c.emb_size), L = size_t(c.seq_len);
  std::vector<std::vector<float>> pool;
  for (int i = 0; i < 12; ++i) {
    std::vector<float> row(E, 0.0f);
    row[rng() % std::min<size_t>(E, 12)] = 1.0f;
    for (size_t e = std::min<size_t>(E, 12); e < E; ++e) row[e] = (rng() % 3 == 0) ? 0.0f : value(rng);
    pool.push_back(row);
  }
  std::vector<float> out(n * L * E, 0.0f);
  for (size_t i = 0; i < n; ++i) {
    const size_t rows = (i % 7 == 0) ? (i % 2 ? 0 : L) : size_t(rng() % (L + 1));
    for (size_t r = 0; r < rows; ++r) {
      std::vector<float> row = pool[rng() % pool.size()];
      if (rng() % 4 == 0) row[E - 1] = value(rng);  // a fresh row now and then
      std::copy(row.begin(), row.end(), out.begin() + (i * L + r) * E);
    }
  }
  return out;
}

}  // namespace tlp::testing
