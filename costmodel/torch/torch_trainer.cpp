#include <torch/optim/adam.h>
#include <torch/nn/utils/clip_grad.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <stdexcept>

#include "costmodel/torch/tlp_torch_internal.h"

namespace tlp::torch_side {

namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

// All records of a task list, flattened: features [N, L, E], labels and which
// of them exist [N, heads] (one head for TLP), and the range of each task.
struct Flat {
  torch::Tensor x, y, labeled;
  std::vector<std::pair<int64_t, int64_t>> task_range;  // [begin, end)
  int64_t n = 0;
};

template <typename Task>
void check_task(const Task &t, size_t per, size_t heads, const TlpNetworkConfig &cfg, const char *what) {
  if (t.features.size() != t.size() * per)
    throw std::invalid_argument(std::string(what) + " task '" + t.workload_key + "' has " +
                                std::to_string(t.features.size()) + " feature values for " +
                                std::to_string(t.size()) + " records; featurize it with the network's seq_len " +
                                std::to_string(cfg.seq_len) + " x emb_size " + std::to_string(cfg.emb_size));
  if (t.labels.size() != t.size() * heads)
    throw std::invalid_argument(std::string(what) + " task '" + t.workload_key + "' has no labels");
}

Flat empty_flat(int64_t n, int64_t heads, const TlpNetworkConfig &cfg) {
  Flat f;
  f.n = n;
  f.x = torch::empty({n, cfg.seq_len, cfg.emb_size}, torch::kFloat);
  f.y = torch::empty({n, heads}, torch::kFloat);
  f.labeled = torch::ones({n, heads}, torch::kBool);
  return f;
}

Flat flatten(const std::vector<TlpTask> &tasks, const TlpNetworkConfig &cfg, const char *what) {
  const int64_t per = int64_t(cfg.seq_len) * cfg.emb_size;
  int64_t n = 0;
  for (const TlpTask &t : tasks) n += int64_t(t.size());
  Flat f = empty_flat(n, 1, cfg);
  float *xp = f.x.data_ptr<float>();
  float *yp = f.y.data_ptr<float>();
  int64_t at = 0;
  for (const TlpTask &t : tasks) {
    check_task(t, size_t(per), 1, cfg, what);
    std::copy(t.features.begin(), t.features.end(), xp + at * per);
    std::copy(t.labels.begin(), t.labels.end(), yp + at);
    f.task_range.emplace_back(at, at + int64_t(t.size()));
    at += int64_t(t.size());
  }
  return f;
}

Flat flatten(const std::vector<MtlTask> &tasks, const TlpNetworkConfig &cfg, const char *what) {
  const int64_t per = int64_t(cfg.seq_len) * cfg.emb_size, P = cfg.output_heads;
  int64_t n = 0;
  for (const MtlTask &t : tasks) {
    if (t.platforms != size_t(P))
      throw std::invalid_argument(std::string(what) + " task '" + t.workload_key + "' has labels for " +
                                  std::to_string(t.platforms) + " platforms but the network has " +
                                  std::to_string(P) + " heads");
    n += int64_t(t.size());
  }
  Flat f = empty_flat(n, P, cfg);
  std::vector<uint8_t> labeled;
  labeled.reserve(size_t(n * P));
  int64_t at = 0;
  for (const MtlTask &t : tasks) {
    check_task(t, size_t(per), size_t(P), cfg, what);
    std::copy(t.features.begin(), t.features.end(), f.x.data_ptr<float>() + at * per);
    std::copy(t.labels.begin(), t.labels.end(), f.y.data_ptr<float>() + at * P);
    labeled.insert(labeled.end(), t.labeled.begin(), t.labeled.end());
    f.task_range.emplace_back(at, at + int64_t(t.size()));
    at += int64_t(t.size());
  }
  if (n > 0) f.labeled = torch::tensor(std::vector<int64_t>(labeled.begin(), labeled.end())).to(torch::kBool).view({n, P});
  return f;
}

using Group = std::vector<int64_t>;  // record indices of one task
using Batch = std::vector<Group>;

uint64_t draw(std::mt19937_64 &rng, uint64_t bound) { return rng() % bound; }

template <typename T>
void shuffle(std::vector<T> &v, std::mt19937_64 &rng) {
  for (size_t i = v.size(); i > 1; --i) std::swap(v[i - 1], v[draw(rng, i)]);
}

// Groups of at most `batch` records of one task, packed into batches of at most
// `batch` records. With a generator, everything is shuffled; without, the order
// is the data's (for evaluation).
std::vector<Batch> make_batches(const Flat &f, TlpLoss loss, int batch, std::mt19937_64 *rng) {
  const size_t B = size_t(std::max(1, batch));
  std::vector<Group> groups;
  if (loss == TlpLoss::Mse) {
    Group all(size_t(f.n));
    std::iota(all.begin(), all.end(), int64_t(0));
    if (rng) shuffle(all, *rng);
    for (size_t i = 0; i < all.size(); i += B)
      groups.emplace_back(all.begin() + i, all.begin() + std::min(all.size(), i + B));
  } else {
    for (const auto &r : f.task_range) {
      Group g(size_t(r.second - r.first));
      std::iota(g.begin(), g.end(), r.first);
      if (rng) shuffle(g, *rng);
      for (size_t i = 0; i < g.size(); i += B) groups.emplace_back(g.begin() + i, g.begin() + std::min(g.size(), i + B));
    }
    if (rng) shuffle(groups, *rng);
  }
  std::vector<Batch> batches;
  size_t filled = B;
  for (Group &g : groups) {
    if (filled + g.size() > B) {
      batches.emplace_back();
      filled = 0;
    }
    filled += g.size();
    batches.back().push_back(std::move(g));
  }
  return batches;
}

// The batch's records in order, and the [G, n] padded layout of its groups:
// position of each entry in the record list (padding points at an extra slot).
struct BatchTensors {
  std::vector<int64_t> records_in_order;
  torch::Tensor index;  // [B] record indices
  torch::Tensor slot;   // [G * n] positions into scores (B = padding)
  torch::Tensor valid;  // [G, n] bool
  int64_t groups = 0, width = 0, records = 0;
};

BatchTensors batch_tensors(const Batch &b) {
  BatchTensors t;
  t.groups = int64_t(b.size());
  for (const Group &g : b) {
    t.width = std::max(t.width, int64_t(g.size()));
    t.records += int64_t(g.size());
  }
  std::vector<int64_t> index, slot(size_t(t.groups * t.width), t.records);
  index.reserve(size_t(t.records));
  std::vector<uint8_t> valid(size_t(t.groups * t.width), 0);
  for (size_t gi = 0; gi < b.size(); ++gi)
    for (size_t j = 0; j < b[gi].size(); ++j) {
      slot[gi * size_t(t.width) + j] = int64_t(index.size());
      valid[gi * size_t(t.width) + j] = 1;
      index.push_back(b[gi][j]);
    }
  t.index = torch::tensor(index, torch::kLong);
  t.records_in_order = std::move(index);
  t.slot = torch::tensor(slot, torch::kLong);
  t.valid = torch::tensor(std::vector<int64_t>(valid.begin(), valid.end()), torch::kLong)
                .to(torch::kBool)
                .reshape({t.groups, t.width});
  return t;
}

// The loss of one batch from the scores of its records (in bt.index order):
// scores, labels and which labels exist, all [B, heads], laid out as the batch's
// groups [G, width, heads] (padding is not valid).
torch::Tensor batch_loss(const torch::Tensor &scores, const torch::Tensor &labels, const torch::Tensor &labeled,
                         const BatchTensors &bt, TlpLoss loss) {
  const int64_t P = scores.size(1);
  auto grouped = [&](const torch::Tensor &v) {
    return torch::cat({v, torch::zeros({1, P}, v.options())}).index_select(0, bt.slot).reshape({bt.groups, bt.width, P});
  };
  const torch::Tensor valid = grouped(labeled) & bt.valid.unsqueeze(2);
  return detail::multi_head_loss(grouped(scores), grouped(labels), valid, loss == TlpLoss::Rank);
}

// The packed steps of some records of f.
detail::PackedSteps pack(const Flat &f, const std::vector<int64_t> &records) {
  const int64_t L = f.x.size(1), E = f.x.size(2);
  const float *x = f.x.data_ptr<float>();
  std::vector<const float *> mats(records.size());
  for (size_t i = 0; i < records.size(); ++i) mats[i] = x + records[i] * L * E;
  return detail::pack_steps(mats, L, E);
}

// Scores of all records, no gradients, in chunks: [N, 1] by one head, or
// [N, heads] by every head (head < 0).
torch::Tensor score_all(detail::TlpNetModule &m, const Flat &f, int head = 0, int64_t chunk = 1024) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> parts;
  for (int64_t i = 0; i < f.n; i += chunk) {
    std::vector<int64_t> records;
    for (int64_t j = i; j < std::min(f.n, i + chunk); ++j) records.push_back(j);
    const torch::Tensor s = m->forward_packed_heads(pack(f, records));
    parts.push_back(head < 0 ? s : s.select(1, head).unsqueeze(1));
  }
  const int64_t width = head < 0 ? m->config.output_heads : 1;
  return parts.empty() ? torch::zeros({0, width}) : torch::cat(parts);
}

// Evaluation loss from precomputed scores: the mean over groups (rank) or over
// records (MSE), with groups made as in training but unshuffled.
double loss_of_scores(const torch::Tensor &scores, const Flat &f, TlpLoss loss, int batch) {
  torch::NoGradGuard no_grad;
  double total = 0, weight = 0;
  for (const Batch &b : make_batches(f, loss, batch, nullptr)) {
    const BatchTensors bt = batch_tensors(b);
    const double l = batch_loss(scores.index_select(0, bt.index), f.y.index_select(0, bt.index),
                                f.labeled.index_select(0, bt.index), bt, loss)
                         .item<double>();
    const double w = loss == TlpLoss::Rank ? double(bt.groups) : double(bt.records);
    total += l * w;
    weight += w;
  }
  return weight > 0 ? total / weight : 0.0;
}

std::vector<TopkTask> topk_tasks(const torch::Tensor &scores, const Flat &f, const std::vector<TlpTask> &tasks,
                                 const std::vector<std::string> &groups) {
  const torch::Tensor s = scores.contiguous();
  const float *p = s.data_ptr<float>();
  std::vector<TopkTask> out(tasks.size());
  for (size_t i = 0; i < tasks.size(); ++i) {
    out[i].latencies = tasks[i].costs;
    out[i].predictions.assign(p + f.task_range[i].first, p + f.task_range[i].second);
    if (i < groups.size()) out[i].group = groups[i];
  }
  return out;
}

void check_sizes(const TlpNetwork &net, const FeaturizerOptions &fo) {
  const TlpNetworkConfig &c = net.config();
  if (c.seq_len != fo.seq_len || c.emb_size != fo.emb_size)
    throw std::invalid_argument("the featurizer's " + std::to_string(fo.seq_len) + " x " +
                                std::to_string(fo.emb_size) + " matrices do not fit a network built for " +
                                std::to_string(c.seq_len) + " x " + std::to_string(c.emb_size));
}

}  // namespace

namespace {

// An exponential moving average of the weights, updated after every optimizer
// step. On a small dataset one epoch's weights jump around (validation loss
// swings by a third between epochs), so a validation split of a few tasks picks
// an epoch by luck; the average of the last few epochs' steps moves smoothly.
class WeightEma {
 public:
  // `horizon_steps`: the average's time constant, in optimizer steps.
  WeightEma(const std::vector<torch::Tensor> &params, double horizon_steps)
      : decay_(1.0 - 1.0 / std::max(1.0, horizon_steps)) {
    torch::NoGradGuard no_grad;
    for (const torch::Tensor &p : params) shadow_.push_back(p.detach().clone());
  }
  void update(const std::vector<torch::Tensor> &params) {
    torch::NoGradGuard no_grad;
    ++updates_;
    // The early steps weigh more while the average has seen few of them, so the
    // random initial weights fade out fast.
    const double d = std::min(decay_, (1.0 + updates_) / (10.0 + updates_));
    for (size_t i = 0; i < params.size(); ++i) shadow_[i].mul_(d).add_(params[i].detach(), 1.0 - d);
  }
  // Exchanges the live weights with the average; a second call undoes it.
  void swap_with(const std::vector<torch::Tensor> &params) {
    torch::NoGradGuard no_grad;
    for (size_t i = 0; i < params.size(); ++i) {
      torch::Tensor live = params[i].detach().clone();
      params[i].copy_(shadow_[i]);
      shadow_[i].copy_(live);
    }
  }

 private:
  double decay_;
  int64_t updates_ = 0;
  std::vector<torch::Tensor> shadow_;
};

// What one training run works on: the flattened splits and the options.
// `va` (the tasks `val`) is scored by head `val_head` for the top-k scores;
// the validation loss that picks the weights is over `va_all`, all heads, when
// given (MTL), else over `va`.
struct TrainingData {
  const Flat &tr;
  const Flat &va;
  const std::vector<TlpTask> &val;
  int val_head;
  const Flat *va_all;
  bool judged() const { return va_all ? va_all->n > 0 : va.n > 0; }
};

// The loss that picks the weights; `va_scores` reuses the target's scores when at hand.
double picking_loss(detail::TlpNetModule &m, const TrainingData &d, const TrainOptions &o,
                    const torch::Tensor *va_scores) {
  if (d.va_all) return loss_of_scores(score_all(m, *d.va_all, -1), *d.va_all, o.loss, o.batch);
  return loss_of_scores(va_scores ? *va_scores : score_all(m, d.va, d.val_head), d.va, o.loss, o.batch);
}

// One pass over the training records; returns the mean batch loss. The moving
// average (when kept) follows every optimizer step.
double train_one_epoch(detail::TlpNetModule &m, torch::optim::Adam &adam, const Flat &tr, const TrainOptions &o,
                       std::mt19937_64 &rng, std::unique_ptr<WeightEma> &ema) {
  m->train();
  double sum = 0;
  int steps = 0;
  const std::vector<Batch> batches = make_batches(tr, o.loss, o.batch, &rng);
  if (o.ema_epochs > 0 && !ema) ema = std::make_unique<WeightEma>(m->parameters(), o.ema_epochs * batches.size());
  for (const Batch &b : batches) {
    const BatchTensors bt = batch_tensors(b);
    const torch::Tensor scores = m->forward_packed_heads(pack(tr, bt.records_in_order));
    const torch::Tensor loss =
        batch_loss(scores, tr.y.index_select(0, bt.index), tr.labeled.index_select(0, bt.index), bt, o.loss);
    // A batch with no pair to rank (one record of a task, or all of them equal)
    // has a constant loss: nothing to learn from it.
    if (!loss.requires_grad()) continue;
    adam.zero_grad();
    loss.backward();
    if (o.grad_clip > 0) torch::nn::utils::clip_grad_norm_(m->parameters(), o.grad_clip);
    adam.step();
    if (ema) ema->update(m->parameters());
    sum += loss.item<double>();
    ++steps;
  }
  return steps ? sum / steps : 0.0;
}

// Validation loss and top-k scores of the weights in place.
void judge_epoch(detail::TlpNetModule &m, const TrainingData &d, const TrainOptions &o, EpochReport &rep) {
  m->eval();
  if (d.va.n > 0) {
    const torch::Tensor s = score_all(m, d.va, d.val_head);
    if (d.judged()) rep.val_loss = picking_loss(m, d, o, &s);
    const std::vector<TopkTask> tk = topk_tasks(s, d.va, d.val, {});
    rep.val_top1 = topk_score(tk, 1);
    rep.val_top5 = topk_score(tk, 5);
  } else if (d.judged()) {
    rep.val_loss = picking_loss(m, d, o, nullptr);
  }
}

std::vector<torch::Tensor> copy_of(const std::vector<torch::Tensor> &params) {
  torch::NoGradGuard no_grad;
  std::vector<torch::Tensor> out;
  for (const torch::Tensor &p : params) out.push_back(p.detach().clone());
  return out;
}

void assign(const std::vector<torch::Tensor> &params, const std::vector<torch::Tensor> &values) {
  torch::NoGradGuard no_grad;
  for (size_t i = 0; i < params.size(); ++i) params[i].copy_(values[i]);
}

// The training loop shared by TLP and MTL-TLP. The weights kept are the best
// validation epoch's (judged on the moving average when there is one), or the
// last epoch's without validation data.
TrainResult train_flat(TlpNetwork &net, const TrainingData &d, const TrainOptions &o, Clock::time_point start) {
  if (d.tr.n == 0) throw std::invalid_argument("no training records: the training split is empty");
  TrainResult result;
  result.train_records = size_t(d.tr.n);
  result.val_records = size_t(d.va.n);
  result.train_tasks = d.tr.task_range.size();
  result.val_tasks = d.val.size();

  detail::TlpNetModule &m = torch_network(net).module;
  torch::manual_seed(o.seed);
  std::mt19937_64 rng(o.seed ^ 0x5eedull);
  torch::optim::Adam adam(m->parameters(), torch::optim::AdamOptions(o.lr).weight_decay(o.weight_decay));
  std::vector<torch::Tensor> best;
  std::unique_ptr<WeightEma> ema;
  int since_best = 0;
  for (int epoch = 1; epoch <= o.epochs; ++epoch) {
    const auto t0 = Clock::now();
    EpochReport rep;
    rep.epoch = epoch;
    rep.lr = o.lr;
    rep.train_loss = train_one_epoch(m, adam, d.tr, o, rng, ema);
    // Judged and kept below: the moving average in place of the live weights,
    // which come back before the next epoch trains on.
    if (ema) ema->swap_with(m->parameters());
    torch_network(net).weights_changed();
    judge_epoch(m, d, o, rep);
    // Without validation data the last epoch is kept.
    rep.best = !d.judged() ||
               (std::isfinite(rep.val_loss) && (result.best_epoch == 0 || rep.val_loss < result.best_val_loss));
    if (rep.best) {
      result.best_epoch = epoch;
      result.best_val_loss = rep.val_loss;
      if (d.judged()) best = copy_of(m->parameters());
      since_best = 0;
    } else {
      ++since_best;
    }
    // Without validation the average stays in place after the last epoch.
    if (ema && (d.judged() || epoch < o.epochs)) {
      ema->swap_with(m->parameters());
      torch_network(net).weights_changed();
    }
    rep.seconds = since(t0);
    result.history.push_back(rep);
    if (o.on_epoch) o.on_epoch(rep);
    if (o.patience > 0 && since_best >= o.patience && epoch < o.epochs) {
      result.stopped_early = true;
      break;
    }
  }
  if (!best.empty()) assign(m->parameters(), best);
  torch_network(net).weights_changed();
  result.wall_seconds = since(start);
  return result;
}

void check_options(const TlpNetwork &net, const TrainOptions &o) {
  check_sizes(net, o.featurizer);
  if (o.batch < 1) throw std::invalid_argument("training batch must be at least 1, got " + std::to_string(o.batch));
  if (o.threads > 0) torch::set_num_threads(o.threads);
}

}  // namespace

TrainResult train_tlp(TlpNetwork &net, const std::vector<TlpTask> &train, const std::vector<TlpTask> &val,
                      const TrainOptions &o) {
  const auto start = Clock::now();
  check_options(net, o);
  if (net.config().output_heads != 1)
    throw std::invalid_argument("a network with several output heads trains on MTL tasks (train_mtl)");
  const Flat tr = flatten(train, net.config(), "training"), va = flatten(val, net.config(), "validation");
  return train_flat(net, TrainingData{tr, va, val, 0, nullptr}, o, start);
}

TrainResult train_mtl(TlpNetwork &net, const std::vector<MtlTask> &train, const std::vector<MtlTask> &val_all,
                      const std::vector<TlpTask> &val, int val_head, const TrainOptions &o) {
  const auto start = Clock::now();
  check_options(net, o);
  if (val_head < 0 || val_head >= net.config().output_heads)
    throw std::invalid_argument("validation head " + std::to_string(val_head) + " of a network with " +
                                std::to_string(net.config().output_heads) + " heads");
  const Flat all = flatten(val_all, net.config(), "validation");
  const Flat tr = flatten(train, net.config(), "training"), va = flatten(val, net.config(), "validation");
  return train_flat(net, TrainingData{tr, va, val, val_head, &all}, o, start);
}

double evaluate_loss(TlpNetwork &net, const std::vector<TlpTask> &tasks, TlpLoss loss, int batch) {
  const Flat f = flatten(tasks, net.config(), "evaluation");
  if (f.n == 0) return 0.0;
  torch_network(net).module->eval();
  return loss_of_scores(score_all(torch_network(net).module, f), f, loss, batch);
}

}  // namespace tlp::torch_side
