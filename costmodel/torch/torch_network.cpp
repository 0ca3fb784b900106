#include "costmodel/tlp_network.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <sstream>
#include <stdexcept>

#include "costmodel/torch/tlp_torch_internal.h"

namespace tlp {

namespace detail {

TlpNetModuleImpl::TlpNetModuleImpl(const TlpNetworkConfig &c) : config(c) {
  namespace nn = torch::nn;
  const int H = c.hidden;
  enc0 = register_module("enc0", nn::Linear(c.emb_size, 64));
  enc1 = register_module("enc1", nn::Linear(64, 128));
  enc2 = register_module("enc2", nn::Linear(128, H));
  enc3 = register_module("enc3", nn::Linear(H, H));
  switch (c.arch) {
    case TlpArch::Attention:
      attn = register_module("attn", nn::MultiheadAttention(nn::MultiheadAttentionOptions(H, c.heads)));
      break;
    case TlpArch::Lstm:
      lstm = register_module("lstm", nn::LSTM(nn::LSTMOptions(H, H).batch_first(true)));
      break;
    case TlpArch::Transformer: {
      const auto opts = nn::TransformerEncoderLayerOptions(H, c.heads).dim_feedforward(H).dropout(0.0);
      tf0 = register_module("tf0", nn::TransformerEncoderLayer(opts));
      tf1 = register_module("tf1", nn::TransformerEncoderLayer(opts));
      break;
    }
  }
  res0 = register_module("res0", nn::Linear(H, H));
  res1 = register_module("res1", nn::Linear(H, H));
  dec0 = register_module("dec0", nn::Linear(H, H));
  dec1 = register_module("dec1", nn::Linear(H, 128));
  dec2 = register_module("dec2", nn::Linear(128, 64));
  dec3 = register_module("dec3", nn::Linear(64, 1));
  for (int k = 1; k < c.output_heads; ++k) {
    const std::string p = "head" + std::to_string(k) + "_dec";
    more_decoders.push_back({register_module(p + "0", nn::Linear(H, H)), register_module(p + "1", nn::Linear(H, 128)),
                             register_module(p + "2", nn::Linear(128, 64)), register_module(p + "3", nn::Linear(64, 1))});
  }
}

torch::Tensor real_step_mask(const torch::Tensor &x) {
  const int64_t L = x.size(1);
  const torch::Tensor nonzero = (x.abs().sum(-1) > 0).to(torch::kFloat);           // [N, L]
  const torch::Tensor pos = torch::arange(1, L + 1, x.options().dtype(torch::kFloat));  // 1..L
  const torch::Tensor count = (nonzero * pos).amax(1, /*keepdim=*/true);              // [N, 1]
  return torch::arange(L, x.options().dtype(torch::kFloat)).unsqueeze(0) < count;     // [N, L]
}

// Padding keys are ignored; the first key never is, so a schedule without steps
// does not turn the softmax into NaN (its score is 0 through the mask on the sum).
torch::Tensor padding_keys(const torch::Tensor &real) {
  torch::Tensor m = real.logical_not();
  m.select(1, 0).fill_(false);
  return m;
}

// The two residual blocks and the per-step decoder, shared by both forwards.
torch::Tensor TlpNetModuleImpl::residual_blocks(torch::Tensor h) {
  h = h + torch::relu(res0(h));
  return h + torch::relu(res1(h));
}

torch::Tensor TlpNetModuleImpl::decode(const torch::Tensor &h, int head) {
  std::array<torch::nn::Linear, 4> d = head == 0 ? std::array<torch::nn::Linear, 4>{dec0, dec1, dec2, dec3}
                                                 : more_decoders.at(size_t(head - 1));
  torch::Tensor y = torch::relu(d[0](h));
  y = torch::relu(d[1](y));
  y = torch::relu(d[2](y));
  return d[3](y).squeeze(-1);
}

torch::Tensor TlpNetModuleImpl::step_scores(torch::Tensor h) { return decode(residual_blocks(std::move(h)), 0); }

torch::Tensor TlpNetModuleImpl::forward(const torch::Tensor &x) {
  const torch::Tensor real = real_step_mask(x);
  torch::Tensor h = torch::relu(enc0(x));
  h = torch::relu(enc1(h));
  h = torch::relu(enc2(h));
  h = torch::relu(enc3(h));  // [N, L, H]
  switch (config.arch) {
    case TlpArch::Attention: {
      const torch::Tensor t = h.transpose(0, 1);  // [L, N, H]
      const torch::Tensor a = std::get<0>(attn(t, t, t, padding_keys(real), /*need_weights=*/false));
      h = h + a.transpose(0, 1);
      break;
    }
    case TlpArch::Lstm:
      h = std::get<0>(lstm(h));
      break;
    case TlpArch::Transformer: {
      const torch::Tensor keys = padding_keys(real);
      torch::Tensor t = h.transpose(0, 1);
      t = tf0(t, torch::Tensor(), keys);
      t = tf1(t, torch::Tensor(), keys);
      h = t.transpose(0, 1);
      break;
    }
  }
  const torch::Tensor y = step_scores(h);  // [N, L]
  return (y * real.to(y.dtype())).sum(1);
}

PackedSteps pack_steps(const std::vector<const float *> &matrices, int64_t L, int64_t E) {
  const int64_t N = int64_t(matrices.size());
  PackedSteps p;
  p.map = torch::zeros({N, L}, torch::kLong);
  torch::Tensor real = torch::zeros({N, L}, torch::kUInt8);
  int64_t *map = p.map.data_ptr<int64_t>();
  uint8_t *rl = real.data_ptr<uint8_t>();
  // Keys view the callers' rows, which outlive this function.
  std::unordered_map<std::string_view, int64_t> ids;
  std::vector<const float *> distinct;
  const size_t row_bytes = size_t(E) * sizeof(float);
  for (int64_t i = 0; i < N; ++i) {
    const float *m = matrices[size_t(i)];
    int64_t count = 0;
    for (int64_t r = L - 1; r >= 0 && count == 0; --r)
      for (int64_t e = 0; e < E; ++e)
        if (m[r * E + e] != 0.0f) {
          count = r + 1;
          break;
        }
    for (int64_t r = 0; r < count; ++r) {
      const float *row = m + r * E;
      const auto it = ids.emplace(std::string_view(reinterpret_cast<const char *>(row), row_bytes),
                                  int64_t(distinct.size()));
      if (it.second) distinct.push_back(row);
      map[i * L + r] = it.first->second;
      rl[i * L + r] = 1;
    }
  }
  p.rows = torch::zeros({std::max<int64_t>(1, int64_t(distinct.size())), E}, torch::kFloat);
  float *rows = p.rows.data_ptr<float>();
  for (size_t u = 0; u < distinct.size(); ++u) std::copy_n(distinct[u], E, rows + int64_t(u) * E);
  p.real = real.to(torch::kBool);
  return p;
}

std::pair<torch::Tensor, torch::Tensor> TlpNetModuleImpl::packed_hidden(const PackedSteps &p) {
  const int64_t N = p.map.size(0), L = p.map.size(1), H = config.hidden;
  const torch::Tensor flat_map = p.map.reshape({N * L});
  const torch::Tensor real_pos = p.real.reshape({N * L}).nonzero().squeeze(1);  // positions of real rows
  const torch::Tensor sample_of = torch::div(real_pos, L, "floor");
  const torch::Tensor real_rows = flat_map.index_select(0, real_pos);  // their distinct row
  torch::Tensor u = torch::relu(enc0(p.rows));
  u = torch::relu(enc1(u));
  u = torch::relu(enc2(u));
  u = torch::relu(enc3(u));  // [U, H]
  torch::Tensor h;           // [R, H]: the real rows after the sequence layer
  switch (config.arch) {
    case TlpArch::Attention: {
      // MultiheadAttention's own computation, on its own weights, with q/k/v
      // projected once per distinct row.
      const int64_t heads = config.heads, dh = H / heads;
      const torch::Tensor qkv_u = torch::nn::functional::linear(u, attn->in_proj_weight, attn->in_proj_bias);
      const torch::Tensor qkv = qkv_u.index_select(0, flat_map).view({N, L, 3, heads, dh});
      const torch::Tensor q = qkv.select(2, 0).permute({0, 2, 1, 3});  // [N, heads, L, dh]
      const torch::Tensor k = qkv.select(2, 1).permute({0, 2, 1, 3});
      const torch::Tensor v = qkv.select(2, 2).permute({0, 2, 1, 3});
      torch::Tensor scores = torch::matmul(q, k.transpose(-2, -1)) / std::sqrt(double(dh));  // [N, heads, L, L]
      scores = scores.masked_fill(padding_keys(p.real).view({N, 1, 1, L}), -std::numeric_limits<float>::infinity());
      const torch::Tensor o = torch::matmul(torch::softmax(scores, -1), v).permute({0, 2, 1, 3}).reshape({N * L, H});
      h = u.index_select(0, real_rows) + attn->out_proj(o.index_select(0, real_pos));
      break;
    }
    case TlpArch::Lstm: {
      const torch::Tensor h0 = u.index_select(0, flat_map).view({N, L, H});
      h = std::get<0>(lstm(h0)).reshape({N * L, H}).index_select(0, real_pos);
      break;
    }
    case TlpArch::Transformer: {
      const torch::Tensor keys = padding_keys(p.real);
      torch::Tensor t = u.index_select(0, flat_map).view({N, L, H}).transpose(0, 1);
      t = tf0(t, torch::Tensor(), keys);
      t = tf1(t, torch::Tensor(), keys);
      h = t.transpose(0, 1).reshape({N * L, H}).index_select(0, real_pos);
      break;
    }
  }
  return {h, sample_of};
}

torch::Tensor TlpNetModuleImpl::forward_packed(const PackedSteps &p) {
  const auto [h, sample_of] = packed_hidden(p);
  const torch::Tensor y = step_scores(h);  // [R]
  return torch::zeros({p.map.size(0)}, y.options()).index_add(0, sample_of, y);
}

torch::Tensor TlpNetModuleImpl::forward_packed_heads(const PackedSteps &p) {
  const auto [h0, sample_of] = packed_hidden(p);
  const torch::Tensor h = residual_blocks(h0);
  std::vector<torch::Tensor> per_head;
  for (int k = 0; k < config.output_heads; ++k) {
    const torch::Tensor y = decode(h, k);  // [R]
    per_head.push_back(torch::zeros({p.map.size(0)}, y.options()).index_add(0, sample_of, y));
  }
  return torch::stack(per_head, 1);
}

namespace {

std::vector<float> values(const torch::Tensor &t) {
  const torch::Tensor c = t.detach().to(torch::kFloat).contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}

FastLinear fast_linear(const torch::nn::Linear &l) {
  FastLinear f;
  f.in = int(l->weight.size(1));
  f.out = int(l->weight.size(0));
  f.w = values(l->weight);
  f.b = values(l->bias);
  return f;
}

FastAttention fast_attention(const torch::nn::MultiheadAttention &m, int heads) {
  FastAttention f;
  f.heads = heads;
  f.in_proj.in = int(m->in_proj_weight.size(1));
  f.in_proj.out = int(m->in_proj_weight.size(0));
  f.in_proj.w = values(m->in_proj_weight);
  f.in_proj.b = values(m->in_proj_bias);
  f.out_proj = fast_linear(m->out_proj);
  return f;
}

FastLayerNorm fast_norm(const torch::nn::LayerNorm &n) {
  FastLayerNorm f;
  f.gamma = values(n->weight);
  f.beta = values(n->bias);
  f.eps = float(n->options.eps());
  return f;
}

FastTransformerLayer fast_transformer(const torch::nn::TransformerEncoderLayer &l, int heads) {
  FastTransformerLayer f;
  f.attn = fast_attention(l->self_attn, heads);
  f.lin1 = fast_linear(l->linear1);
  f.lin2 = fast_linear(l->linear2);
  f.norm1 = fast_norm(l->norm1);
  f.norm2 = fast_norm(l->norm2);
  return f;
}

std::unique_ptr<FastNet> build_fast(const TlpNetModuleImpl &m) {
  auto f = std::make_unique<FastNet>();
  f->config = m.config;
  const torch::nn::Linear enc[4] = {m.enc0, m.enc1, m.enc2, m.enc3};
  const torch::nn::Linear dec[4] = {m.dec0, m.dec1, m.dec2, m.dec3};
  for (int i = 0; i < 4; ++i) {
    f->enc[i] = fast_linear(enc[i]);
    f->dec[i] = fast_linear(dec[i]);
  }
  f->res[0] = fast_linear(m.res0);
  f->res[1] = fast_linear(m.res1);
  switch (m.config.arch) {
    case TlpArch::Attention:
      f->attn = fast_attention(m.attn, m.config.heads);
      break;
    case TlpArch::Lstm: {
      auto p = m.lstm->named_parameters();
      f->lstm.hidden = m.config.hidden;
      f->lstm.w_ih = values(p["weight_ih_l0"]);
      f->lstm.w_hh = values(p["weight_hh_l0"]);
      f->lstm.bias = values(p["bias_ih_l0"] + p["bias_hh_l0"]);
      break;
    }
    case TlpArch::Transformer:
      f->tf[0] = fast_transformer(m.tf0, m.config.heads);
      f->tf[1] = fast_transformer(m.tf1, m.config.heads);
      break;
  }
  return f;
}

}  // namespace
}  // namespace detail

namespace torch_side {

TorchNetwork::TorchNetwork(const TlpNetworkConfig &config) : module(config), config_(config) {}

const TlpNetworkConfig &TorchNetwork::config() const { return config_; }

size_t TorchNetwork::num_parameters() const {
  size_t n = 0;
  for (const torch::Tensor &p : module->parameters()) n += size_t(p.numel());
  return n;
}

const detail::FastNet &TorchNetwork::fast_net() {
  if (!fast_) fast_ = detail::build_fast(*module);
  return *fast_;
}

std::vector<float> TorchNetwork::predict_torch(const float *features, size_t n, const InferenceOptions &options) {
  std::vector<float> out(n, 0.0f);
  torch::NoGradGuard no_grad;
  torch::set_num_threads(options.threads);
  const int64_t L = config_.seq_len, E = config_.emb_size;
  const size_t per = size_t(L * E);
  const size_t chunk = size_t(options.chunk);
  module->eval();
  for (size_t i = 0; i < n; i += chunk) {
    const int64_t m = int64_t(std::min(n - i, chunk));
    // from_blob does not copy; the forward only reads it.
    torch::Tensor y;
    if (options.path == InferencePath::TorchPacked) {
      std::vector<const float *> mats(static_cast<size_t>(m));
      for (int64_t j = 0; j < m; ++j) mats[size_t(j)] = features + (i + size_t(j)) * per;
      y = module->forward_packed(detail::pack_steps(mats, L, E)).contiguous();
    } else {
      const torch::Tensor x = torch::from_blob(const_cast<float *>(features + i * per), {m, L, E}, torch::kFloat);
      y = module->forward(x).contiguous();
    }
    std::copy_n(y.data_ptr<float>(), m, out.data() + i);
  }
  return out;
}

std::string TorchNetwork::save_weights() const {
  torch::serialize::OutputArchive archive;
  module->save(archive);
  std::ostringstream os;
  archive.save_to(os);
  return os.str();
}

void TorchNetwork::load_weights(const std::string &bytes) {
  // Load into a fresh module first, so a failure leaves this network untouched,
  // and check every shape (LibTorch's load would silently take other shapes).
  detail::TlpNetModule fresh(config_);
  try {
    torch::serialize::InputArchive archive;
    std::istringstream is(bytes);
    archive.load_from(is);
    fresh->load(archive);
  } catch (const std::exception &e) {
    std::string what = e.what();
    const size_t nl = what.find('\n');
    if (nl != std::string::npos) what = what.substr(0, nl);
    throw std::runtime_error(std::string("the weights do not fit a TLP ") + tlp_arch_name(config_.arch) +
                             " network of this shape: " + what);
  }
  const auto want = detail::TlpNetModule(config_)->named_parameters();
  const auto got = fresh->named_parameters();
  for (const auto &item : want) {
    const torch::Tensor *t = got.find(item.key());
    if (t == nullptr || t->sizes() != item.value().sizes())
      throw std::runtime_error("the weights do not fit a TLP " + std::string(tlp_arch_name(config_.arch)) +
                               " network of this shape: parameter '" + item.key() + "' is missing or has another shape");
  }
  module = fresh;
  weights_changed();
}

std::unique_ptr<TlpNetwork::Impl> TorchNetwork::clone() const {
  auto copy = std::make_unique<TorchNetwork>(config_);
  torch::NoGradGuard no_grad;
  auto dst = copy->module->named_parameters();
  for (const auto &item : module->named_parameters()) dst[item.key()].copy_(item.value());
  return copy;
}

std::vector<float> TorchNetwork::parameter(const std::string &name) const {
  const auto params = module->named_parameters();
  const torch::Tensor *t = params.find(name);
  if (t == nullptr) throw std::out_of_range("the network has no parameter '" + name + "'");
  return detail::values(*t);
}

std::unique_ptr<TlpNetwork::Impl> TorchNetwork::single_head(int head) const {
  TlpNetworkConfig one = config_;
  one.output_heads = 1;
  auto net = std::make_unique<TorchNetwork>(one);
  const std::string prefix = "head" + std::to_string(head) + "_";
  torch::NoGradGuard no_grad;
  const auto src = module->named_parameters();
  for (auto &item : net->module->named_parameters()) {
    const bool decoder = item.key().rfind("dec", 0) == 0;
    const std::string from = decoder && head > 0 ? prefix + item.key() : item.key();
    item.value().copy_(src[from]);
  }
  return net;
}

std::unique_ptr<TlpNetwork::Impl> new_network(const TlpNetworkConfig &config, uint64_t seed) {
  torch::manual_seed(seed);
  return std::make_unique<TorchNetwork>(config);
}

}  // namespace torch_side
}  // namespace tlp
