// TLP behind the search's CostModel interface.
//
// predict() featurizes the schedules with the model's featurizer settings and
// scores them (by default with our own plain-C++ forward; see tlp_network.h).
// update() keeps the measured records of the task and fine-tunes the network on
// the records seen so far, at most `max_update_records` of them (labels per
// task: min cost / cost; failed measurements are kept out of training), for
// `update.epochs` epochs. With update.epochs = 0
// the model never changes (the paper's "tlp-no-update").
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "costmodel/model_file.h"
#include "costmodel/tlp_featurizer.h"
#include "costmodel/tlp_network.h"
#include "costmodel/tlp_trainer.h"
#include "search/cost_model.h"

namespace tlp {

struct TlpCostModelOptions {
  InferenceOptions inference;  // path, chunk, threads for predict()
  // Online fine-tuning. Used: loss, epochs, batch, lr, weight_decay, grad_clip,
  // seed, threads (arch and featurizer come from the model; no validation).
  TrainOptions update = default_update();
  // Fine-tune on at most this many usable records (0 = all seen): the most
  // recent half of the cap plus a fresh draw from the older ones at each update.
  // The cap bounds an update's time, which otherwise grows with every round
  // (a 1,000-trial run would retrain on all 1,000 records 62 times).
  size_t max_update_records = 256;
  // The operators of the tasks, for a model whose features describe the loop
  // nest or the operator (FeaturizerOptions::needs_dag); such a model refuses to score without.
  DagLookup dags;

  // 2 epochs in batches of 64 (more steps than the offline 1024: an update sees
  // a few hundred records), one LibTorch thread, the paper's Adam settings otherwise.
  // Online updates must stay a small share of a round: 5 epochs over 512
  // records took about half of it on a 1024^3 matmul, 2 over 256 under a tenth.
  static TrainOptions default_update() {
    TrainOptions t;
    t.epochs = 2;
    t.batch = 64;
    t.threads = 1;  // small steps: a second OpenMP thread mostly spins (and the builder may be busy)
    return t;
  }
};

class TlpCostModel final : public CostModel {
 public:
  TlpCostModel(TlpNetwork network, TlpModelInfo info, TlpCostModelOptions options);
  ~TlpCostModel() override;

  std::vector<float> predict(const std::string &task_key, const std::vector<Schedule> &schedules) override;
  void update(const std::string &task_key, const std::vector<Schedule> &schedules,
              const std::vector<double> &costs) override;
  std::string name() const override;  // "tlp-attention", "tlp-lstm", "tlp-transformer"

  // The current model (with the records seen online counted in its training info).
  void save(const std::string &path) const;
  const TlpModelInfo &info() const;
  size_t num_records() const;  // usable records kept from update()
  // The history of the last fine-tuning (empty before the first).
  const TrainResult &last_update() const;
  TlpNetwork &network();

 private:
  struct State;
  std::unique_ptr<State> s_;
};

namespace detail {
// The arrival numbers (0..arrived-1) an update trains on under `limit`: the
// newest limit/2, and limit - limit/2 drawn without replacement from the
// older ones by `seed`. Everything when limit is 0 or not exceeded. Sorted.
std::vector<uint64_t> update_sample(uint64_t arrived, size_t limit, uint64_t seed);
}  // namespace detail

// From a model file; with a non-empty platform, a model trained for another one
// is refused (ModelFileError).
std::unique_ptr<TlpCostModel> make_tlp_cost_model(const std::string &model_path, const std::string &platform,
                                                  const TlpCostModelOptions &options = {});

// A fresh, untrained network (--model none) that learns from update() alone.
std::unique_ptr<TlpCostModel> make_untrained_tlp_cost_model(const TlpNetworkConfig &network,
                                                            const FeaturizerOptions &featurizer,
                                                            const std::string &platform,
                                                            const TlpCostModelOptions &options = {},
                                                            uint64_t seed = 0);

}  // namespace tlp
