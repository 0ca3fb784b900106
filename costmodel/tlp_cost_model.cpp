#include "costmodel/tlp_cost_model.h"

#include <algorithm>
#include <map>
#include <random>
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

std::vector<float> TlpCostModel::predict(const std::string &task_key, const std::vector<Schedule> &schedules) {
  const FeaturizerOptions &fo = s_->info.featurizer;
  const std::vector<float> features =
      featurize_all(schedules, fo, dag_for_features(fo, s_->options.dags, task_key));
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
  const ComputeDag *dag = dag_for_features(fo, s_->options.dags, task_key);
  for (size_t i = 0; i < schedules.size(); ++i) {
    if (!usable_cost(costs[i])) continue;  // a failed measurement: nothing to rank
    task.schedules.push_back(schedules[i]);
    task.costs.push_back(costs[i]);
    const std::vector<float> m = featurize(schedules[i], fo, dag);
    task.features.insert(task.features.end(), m.begin(), m.end());
    order.push_back(s_->arrived++);
  }
  compute_labels(task);
  if (s_->options.update.epochs <= 0 || num_records() == 0) return;

  // The training set: every task's records, or a sample of them under the cap.
  TrainOptions o = s_->options.update;
  o.seed = o.seed + uint64_t(s_->updates++);
  const size_t limit = s_->options.max_update_records;
  const bool capped = limit > 0 && s_->arrived > limit;
  std::vector<char> keep;
  if (capped) {
    keep.assign(size_t(s_->arrived), 0);
    for (uint64_t a : detail::update_sample(s_->arrived, limit, o.seed)) keep[size_t(a)] = 1;
  }
  const size_t per = size_t(fo.seq_len) * size_t(fo.emb_size);
  std::vector<TlpTask> train;
  for (const auto &item : s_->tasks) {
    const TlpTask &t = item.second;
    const std::vector<uint64_t> &ord = s_->order.at(item.first);
    if (!capped) {
      if (t.size() > 0) train.push_back(t);
      continue;
    }
    TlpTask kept;
    kept.workload_key = t.workload_key;
    kept.platform = t.platform;
    for (size_t i = 0; i < t.size(); ++i) {
      if (!keep[size_t(ord[i])]) continue;
      kept.schedules.push_back(t.schedules[i]);
      kept.costs.push_back(t.costs[i]);
      kept.features.insert(kept.features.end(), t.features.begin() + i * per, t.features.begin() + (i + 1) * per);
    }
    if (kept.size() == 0) continue;
    compute_labels(kept);
    train.push_back(std::move(kept));
  }
  o.arch = s_->net.config().arch;
  o.featurizer = fo;
  s_->last = train_tlp(s_->net, train, {}, o);
}

namespace detail {
std::vector<uint64_t> update_sample(uint64_t arrived, size_t limit, uint64_t seed) {
  std::vector<uint64_t> out;
  if (limit == 0 || arrived <= limit) {
    for (uint64_t a = 0; a < arrived; ++a) out.push_back(a);
    return out;
  }
  const uint64_t recent = limit / 2;
  std::vector<uint64_t> older(size_t(arrived - recent));
  for (uint64_t a = 0; a < older.size(); ++a) older[size_t(a)] = a;
  std::mt19937_64 rng(seed);
  const size_t draw = limit - size_t(recent);
  for (size_t i = 0; i < draw; ++i) {  // partial Fisher-Yates: the first `draw` entries
    std::uniform_int_distribution<size_t> pick(i, older.size() - 1);
    std::swap(older[i], older[pick(rng)]);
  }
  out.assign(older.begin(), older.begin() + long(draw));
  for (uint64_t a = arrived - recent; a < arrived; ++a) out.push_back(a);
  std::sort(out.begin(), out.end());
  return out;
}
}  // namespace detail

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
