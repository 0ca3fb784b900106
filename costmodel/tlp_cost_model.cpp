#include "costmodel/tlp_cost_model.h"

#include <map>
#include <stdexcept>

#include "costmodel/tlp_dataset.h"

namespace tlp {

struct TlpCostModel::State {
  TlpNetwork net;
  TlpModelInfo info;
  TlpCostModelOptions options;
  std::map<std::string, TlpTask> tasks;                // usable records per task, featurized
  std::map<std::string, std::vector<uint64_t>> order;  // arrival number of each record
  uint64_t arrived = 0;
  int updates = 0;
  TrainResult last;
  int64_t file_records = 0;  // records the loaded model was trained on

  State(TlpNetwork n, TlpModelInfo i, TlpCostModelOptions o)
      : net(std::move(n)), info(std::move(i)), options(std::move(o)) {}
};

TlpCostModel::TlpCostModel(TlpNetwork network, TlpModelInfo info, TlpCostModelOptions options)
    : s_(std::make_unique<State>(std::move(network), std::move(info), std::move(options))) {
  const TlpNetworkConfig &c = s_->net.config();
  if (c.seq_len != s_->info.featurizer.seq_len || c.emb_size != s_->info.featurizer.emb_size)
    throw std::invalid_argument("TLP cost model: the featurizer's " + std::to_string(s_->info.featurizer.seq_len) +
                                " x " + std::to_string(s_->info.featurizer.emb_size) +
                                " matrices do not fit the network's " + std::to_string(c.seq_len) + " x " +
                                std::to_string(c.emb_size));
  s_->info.network = c;
  s_->file_records = s_->info.training.records;
}

TlpCostModel::~TlpCostModel() = default;

std::vector<float> TlpCostModel::predict(const std::string &, const std::vector<Schedule> &schedules) {
  const FeaturizerOptions &fo = s_->info.featurizer;
  const size_t per = size_t(fo.seq_len) * size_t(fo.emb_size);
  std::vector<float> features(schedules.size() * per);
  for (size_t i = 0; i < schedules.size(); ++i) {
    const std::vector<float> m = featurize(schedules[i], fo);
    std::copy(m.begin(), m.end(), features.begin() + i * per);
  }
  return s_->net.predict(features.data(), schedules.size(), s_->options.inference);
}

void TlpCostModel::update(const std::string &task_key, const std::vector<Schedule> &schedules,
                          const std::vector<double> &costs) {
  if (schedules.size() != costs.size())
    throw std::invalid_argument("TLP cost model update: " + std::to_string(schedules.size()) + " schedules but " +
                                std::to_string(costs.size()) + " costs");
  const FeaturizerOptions &fo = s_->info.featurizer;
  TlpTask &task = s_->tasks[task_key];
  task.workload_key = task_key;
  task.platform = s_->info.platform;
  std::vector<uint64_t> &order = s_->order[task_key];
  for (size_t i = 0; i < schedules.size(); ++i) {
    if (!usable_cost(costs[i])) continue;  // a failed measurement: nothing to rank
    task.schedules.push_back(schedules[i]);
    task.costs.push_back(costs[i]);
    const std::vector<float> m = featurize(schedules[i], fo);
    task.features.insert(task.features.end(), m.begin(), m.end());
    order.push_back(s_->arrived++);
  }
  compute_labels(task);
  if (s_->options.update.epochs <= 0 || num_records() == 0) return;

  // The training set: every task's records (or only the most recent ones).
  const size_t limit = s_->options.max_update_records;
  const uint64_t first = (limit > 0 && s_->arrived > limit) ? s_->arrived - limit : 0;
  const size_t per = size_t(fo.seq_len) * size_t(fo.emb_size);
  std::vector<TlpTask> train;
  for (const auto &item : s_->tasks) {
    const TlpTask &t = item.second;
    const std::vector<uint64_t> &ord = s_->order.at(item.first);
    if (first == 0) {
      if (t.size() > 0) train.push_back(t);
      continue;
    }
    TlpTask recent;
    recent.workload_key = t.workload_key;
    recent.platform = t.platform;
    for (size_t i = 0; i < t.size(); ++i) {
      if (ord[i] < first) continue;
      recent.schedules.push_back(t.schedules[i]);
      recent.costs.push_back(t.costs[i]);
      recent.features.insert(recent.features.end(), t.features.begin() + i * per, t.features.begin() + (i + 1) * per);
    }
    if (recent.size() == 0) continue;
    compute_labels(recent);
    train.push_back(std::move(recent));
  }
  TrainOptions o = s_->options.update;
  o.arch = s_->net.config().arch;
  o.featurizer = fo;
  o.seed = o.seed + uint64_t(s_->updates++);
  s_->last = train_tlp(s_->net, train, {}, o);
}

std::string TlpCostModel::name() const { return std::string("tlp-") + tlp_arch_name(s_->net.config().arch); }

void TlpCostModel::save(const std::string &path) const {
  TlpModelInfo info = s_->info;
  if (num_records() > 0) {
    info.training.records = s_->file_records + int64_t(num_records());
    info.training.created = utc_now();
    if (!info.training.note.empty()) info.training.note += "; ";
    info.training.note += "fine-tuned online on " + std::to_string(num_records()) + " records";
  }
  save_tlp_model(path, s_->net, info);
}

const TlpModelInfo &TlpCostModel::info() const { return s_->info; }

size_t TlpCostModel::num_records() const { return size_t(s_->arrived); }

const TrainResult &TlpCostModel::last_update() const { return s_->last; }

TlpNetwork &TlpCostModel::network() { return s_->net; }

std::unique_ptr<TlpCostModel> make_tlp_cost_model(const std::string &model_path, const std::string &platform,
                                                  const TlpCostModelOptions &options) {
  LoadedTlpModel m = load_tlp_model(model_path, platform);
  return std::make_unique<TlpCostModel>(std::move(m.network), std::move(m.info), options);
}

std::unique_ptr<TlpCostModel> make_untrained_tlp_cost_model(const TlpNetworkConfig &network,
                                                            const FeaturizerOptions &featurizer,
                                                            const std::string &platform,
                                                            const TlpCostModelOptions &options, uint64_t seed) {
  TlpModelInfo info;
  info.network = network;
  info.featurizer = featurizer;
  info.platform = platform;
  info.training.created = utc_now();
  info.training.note = "untrained at start";
  return std::make_unique<TlpCostModel>(TlpNetwork(network, seed), std::move(info), options);
}

}  // namespace tlp
