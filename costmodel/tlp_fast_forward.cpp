#include "costmodel/tlp_fast_forward.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <thread>

namespace tlp::detail {
namespace {

// Per-worker buffers, grown as needed and reused across chunks.
struct Scratch {
  std::vector<int> count, offset;
  std::vector<int> uniq;   // packed row -> its distinct row
  std::vector<int> table;  // open-addressing hash table of distinct rows
  std::vector<float> x0, ux, uh, h, a, b, c, qkv;
  std::vector<float> hs, cs, hp, gates;  // LSTM state
  std::vector<float> probs;
};

void ensure(std::vector<float> &v, size_t n) {
  if (v.size() < n) v.resize(n);
}

// Y[rows x out] = X[rows x in] * W^T + b, then ReLU if asked.
void linear(const FastLinear &l, const float *X, int rows, float *Y, bool relu) {
  if (rows == 0) return;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, rows, l.out, l.in, 1.0f, X, l.in, l.w.data(), l.in, 0.0f, Y,
              l.out);
  const float *b = l.b.data();
  for (int r = 0; r < rows; ++r) {
    float *y = Y + size_t(r) * l.out;
    if (relu) {
      for (int o = 0; o < l.out; ++o) y[o] = std::max(y[o] + b[o], 0.0f);
    } else {
      for (int o = 0; o < l.out; ++o) y[o] += b[o];
    }
  }
}

// h[r] += relu(t[r]) elementwise over n values.
void add_relu(float *h, const float *t, size_t n) {
  for (size_t i = 0; i < n; ++i) h[i] += std::max(t[i], 0.0f);
}

// Self-attention of each schedule's own rows. qkv: rows x 3H (q | k | v);
// out: rows x H, the heads concatenated (before the output projection).
// Hot loops outside BLAS get an AVX2 clone, picked at run time (the build itself
// targets baseline x86-64); the `omp simd` reductions (-fopenmp-simd, no OpenMP
// runtime) let the compiler vectorize the dot products.
#if defined(__GNUC__) && defined(__x86_64__) && !defined(__clang__)
#define TLP_VECTOR_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TLP_VECTOR_CLONES
#endif

// With `map`, row r's q, k, v are in qkv's row map[r] (distinct rows computed once).
TLP_VECTOR_CLONES void attention(const Scratch &s, int samples, int hidden, int heads, const float *qkv, const int *map, float *out,
               std::vector<float> &probs) {
  const int dh = hidden / heads;
  const float scale = 1.0f / std::sqrt(float(dh));
  const size_t stride = size_t(3) * hidden;
  auto at = [&](size_t row) { return qkv + size_t(map ? map[row] : int(row)) * stride; };
  for (int si = 0; si < samples; ++si) {
    const int c = s.count[si];
    const size_t off = size_t(s.offset[si]);
    ensure(probs, size_t(c));
    float *p = probs.data();
    for (int hd = 0; hd < heads; ++hd) {
      for (int i = 0; i < c; ++i) {
        const float *q = at(off + i) + size_t(hd) * dh;
        float mx = -INFINITY;
        for (int j = 0; j < c; ++j) {
          const float *k = at(off + j) + hidden + size_t(hd) * dh;
          float dot = 0.0f;
#pragma omp simd reduction(+ : dot)
          for (int d = 0; d < dh; ++d) dot += q[d] * k[d];
          p[j] = dot * scale;
          mx = std::max(mx, p[j]);
        }
        float sum = 0.0f;
        for (int j = 0; j < c; ++j) {
          p[j] = std::exp(p[j] - mx);
          sum += p[j];
        }
        const float inv = 1.0f / sum;
        for (int j = 0; j < c; ++j) p[j] *= inv;
        // out = sum_j p_j v_j
        float *o = out + (off + i) * size_t(hidden) + size_t(hd) * dh;
        for (int d = 0; d < dh; ++d) o[d] = 0.0f;
        for (int j = 0; j < c; ++j) {
          const float *v = at(off + j) + 2 * size_t(hidden) + size_t(hd) * dh;
          const float w = p[j];
#pragma omp simd
          for (int d = 0; d < dh; ++d) o[d] += w * v[d];
        }
      }
    }
  }
}

// Multi-head attention: out (rows x H) = out_proj(attention(in_proj(h))). With
// `map`, h holds distinct rows only (hrows of them) and map[r] is row r's.
void mha(const FastAttention &m, Scratch &s, int samples, int rows, int hidden, const float *h, int hrows,
         const int *map, float *out) {
  ensure(s.qkv, size_t(hrows) * 3 * hidden);
  ensure(s.c, size_t(rows) * hidden);
  linear(m.in_proj, h, hrows, s.qkv.data(), false);
  attention(s, samples, hidden, m.heads, s.qkv.data(), map, s.c.data(), s.probs);
  linear(m.out_proj, s.c.data(), rows, out, false);
}

// h = LayerNorm(h + t), row by row.
void add_layer_norm(const FastLayerNorm &ln, float *h, const float *t, int rows, int hidden) {
  for (int r = 0; r < rows; ++r) {
    float *x = h + size_t(r) * hidden;
    const float *y = t + size_t(r) * hidden;
    double mean = 0;
    for (int i = 0; i < hidden; ++i) {
      x[i] += y[i];
      mean += x[i];
    }
    mean /= hidden;
    double var = 0;
    for (int i = 0; i < hidden; ++i) var += (x[i] - mean) * (x[i] - mean);
    var /= hidden;
    const float inv = float(1.0 / std::sqrt(var + ln.eps));
    const float m = float(mean);
    for (int i = 0; i < hidden; ++i) x[i] = (x[i] - m) * inv * ln.gamma[i] + ln.beta[i];
  }
}

float sigmoid(float x) { return 1.0f / (1.0f + std::exp(-x)); }

// LSTM over each schedule's rows, writing the outputs to h (rows x H). Its
// input, uh, holds the distinct rows (urows of them); map[r] is row r's.
void lstm(const FastLstm &m, Scratch &s, int samples, const float *uh, int urows, const int *map, float *h) {
  const int H = m.hidden;
  const size_t G = size_t(4) * H;
  ensure(s.gates, size_t(urows) * G);
  // Input contributions of every distinct row at once.
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, urows, int(G), H, 1.0f, uh, H, m.w_ih.data(), H, 0.0f,
              s.gates.data(), int(G));
  ensure(s.hs, size_t(samples) * H);
  ensure(s.cs, size_t(samples) * H);
  ensure(s.hp, size_t(samples) * H);
  ensure(s.b, size_t(samples) * G);
  std::fill(s.hs.begin(), s.hs.begin() + size_t(samples) * H, 0.0f);
  std::fill(s.cs.begin(), s.cs.begin() + size_t(samples) * H, 0.0f);
  int max_count = 0;
  for (int si = 0; si < samples; ++si) max_count = std::max(max_count, s.count[si]);
  std::vector<int> active;
  for (int t = 0; t < max_count; ++t) {
    active.clear();
    for (int si = 0; si < samples; ++si)
      if (s.count[si] > t) active.push_back(si);
    const int A = int(active.size());
    for (int a = 0; a < A; ++a)
      std::copy_n(s.hs.data() + size_t(active[a]) * H, H, s.hp.data() + size_t(a) * H);
    if (t > 0) {
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, A, int(G), H, 1.0f, s.hp.data(), H, m.w_hh.data(), H,
                  0.0f, s.b.data(), int(G));
    } else {
      std::fill(s.b.begin(), s.b.begin() + size_t(A) * G, 0.0f);  // h_0 = 0
    }
    for (int a = 0; a < A; ++a) {
      const int si = active[a];
      const size_t row = size_t(s.offset[si]) + t;
      const float *gx = s.gates.data() + size_t(map[row]) * G;
      const float *gh = s.b.data() + size_t(a) * G;
      float *hh = s.hs.data() + size_t(si) * H;
      float *cc = s.cs.data() + size_t(si) * H;
      float *y = h + row * H;
      for (int i = 0; i < H; ++i) {
        const float gi = sigmoid(gx[i] + gh[i] + m.bias[i]);
        const float gf = sigmoid(gx[H + i] + gh[H + i] + m.bias[H + i]);
        const float gg = std::tanh(gx[2 * H + i] + gh[2 * H + i] + m.bias[2 * H + i]);
        const float go = sigmoid(gx[3 * H + i] + gh[3 * H + i] + m.bias[3 * H + i]);
        cc[i] = gf * cc[i] + gi * gg;
        hh[i] = go * std::tanh(cc[i]);
        y[i] = hh[i];
      }
    }
  }
}

uint64_t row_hash(const float *row, int n) {
  uint64_t h = 0xcbf29ce484222325ull;
  const unsigned char *b = reinterpret_cast<const unsigned char *>(row);
  for (size_t i = 0; i < size_t(n) * sizeof(float); ++i) {
    h ^= b[i];
    h *= 0x100000001b3ull;
  }
  return h ^ (h >> 29);
}

// Finds the distinct rows of s.x0 (rows x E): copies them to s.ux, sets s.uniq[r]
// to row r's index among them, and returns how many there are.
int distinct_rows(Scratch &s, int rows, int E) {
  size_t cap = 16;
  while (cap < size_t(rows) * 2) cap *= 2;
  s.table.assign(cap, -1);  // -> index into ux
  s.uniq.resize(size_t(rows));
  ensure(s.ux, size_t(rows) * E);
  int n = 0;
  for (int r = 0; r < rows; ++r) {
    const float *row = s.x0.data() + size_t(r) * E;
    size_t slot = size_t(row_hash(row, E)) & (cap - 1);
    for (;;) {
      const int u = s.table[slot];
      if (u < 0) {
        s.table[slot] = n;
        std::copy_n(row, E, s.ux.data() + size_t(n) * E);
        s.uniq[size_t(r)] = n++;
        break;
      }
      if (std::equal(row, row + E, s.ux.data() + size_t(u) * E)) {
        s.uniq[size_t(r)] = u;
        break;
      }
      slot = (slot + 1) & (cap - 1);
    }
  }
  return n;
}

// One pass over `samples` schedules. Kept as one function on purpose: it is
// the network's layers in order, each reading the scratch the one before wrote,
// and reads like the LibTorch module it must match number for number.
void forward_chunk(const FastNet &net, const float *x, int samples, float *out, Scratch &s) {
  const TlpNetworkConfig &cfg = net.config;
  const int L = cfg.seq_len, E = cfg.emb_size, H = cfg.hidden;
  s.count.resize(samples);
  s.offset.resize(samples);
  int rows = 0;
  for (int si = 0; si < samples; ++si) {
    const float *m = x + size_t(si) * L * E;
    int c = 0;
    for (int r = L - 1; r >= 0 && c == 0; --r)
      for (int e = 0; e < E; ++e)
        if (m[size_t(r) * E + e] != 0.0f) {
          c = r + 1;
          break;
        }
    s.count[si] = c;
    s.offset[si] = rows;
    rows += c;
  }
  if (rows == 0) {
    std::fill(out, out + samples, 0.0f);
    return;
  }
  ensure(s.x0, size_t(rows) * E);
  for (int si = 0; si < samples; ++si)
    std::copy_n(x + size_t(si) * L * E, size_t(s.count[si]) * E, s.x0.data() + size_t(s.offset[si]) * E);

  // The candidates of one task share most of their steps, so a chunk holds few
  // distinct rows (about 10% in chunks of 256). Everything a row's own content
  // decides (the per-step MLP, then the attention's q/k/v or the LSTM's input
  // gates) is computed once per distinct row.
  const int urows = distinct_rows(s, rows, E);
  const int *map = s.uniq.data();
  const size_t wide = size_t(rows) * std::max(H, 128);
  ensure(s.h, wide);
  ensure(s.a, wide);
  ensure(s.b, wide);
  ensure(s.uh, size_t(urows) * H);
  linear(net.enc[0], s.ux.data(), urows, s.a.data(), true);
  linear(net.enc[1], s.a.data(), urows, s.b.data(), true);
  linear(net.enc[2], s.b.data(), urows, s.a.data(), true);
  linear(net.enc[3], s.a.data(), urows, s.uh.data(), true);
  float *h = s.h.data();
  const size_t hn = size_t(rows) * H;
  auto expand = [&]() {
    for (int r = 0; r < rows; ++r) std::copy_n(s.uh.data() + size_t(map[r]) * H, H, h + size_t(r) * H);
  };

  switch (cfg.arch) {
    case TlpArch::Attention:
      mha(net.attn, s, samples, rows, H, s.uh.data(), urows, map, s.a.data());
      expand();
      for (size_t i = 0; i < hn; ++i) h[i] += s.a[i];
      break;
    case TlpArch::Transformer:
      expand();
      for (int l = 0; l < 2; ++l) {
        const FastTransformerLayer &layer = net.tf[l];
        if (l == 0) mha(layer.attn, s, samples, rows, H, s.uh.data(), urows, map, s.a.data());
        else mha(layer.attn, s, samples, rows, H, h, rows, nullptr, s.a.data());
        add_layer_norm(layer.norm1, h, s.a.data(), rows, H);
        ensure(s.c, size_t(rows) * layer.lin1.out);
        linear(layer.lin1, h, rows, s.c.data(), true);
        linear(layer.lin2, s.c.data(), rows, s.a.data(), false);
        add_layer_norm(layer.norm2, h, s.a.data(), rows, H);
      }
      break;
    case TlpArch::Lstm:
      lstm(net.lstm, s, samples, s.uh.data(), urows, map, h);
      break;
  }
  for (const FastLinear &r : net.res) {
    linear(r, h, rows, s.a.data(), false);
    add_relu(h, s.a.data(), hn);
  }
  linear(net.dec[0], h, rows, s.a.data(), true);
  linear(net.dec[1], s.a.data(), rows, s.b.data(), true);
  linear(net.dec[2], s.b.data(), rows, s.a.data(), true);
  const FastLinear &last = net.dec[3];  // 64 -> 1: a dot product per row
  for (int si = 0; si < samples; ++si) {
    double total = 0;
    for (int r = 0; r < s.count[si]; ++r) {
      const float *v = s.a.data() + size_t(s.offset[si] + r) * last.in;
      float y = last.b[0];
      for (int i = 0; i < last.in; ++i) y += v[i] * last.w[i];
      total += y;
    }
    out[si] = float(total);
  }
}

void predict_range(const FastNet &net, const float *x, size_t n, float *out, int chunk) {
  Scratch s;
  const size_t per = size_t(net.config.seq_len) * net.config.emb_size;
  for (size_t i = 0; i < n; i += size_t(chunk)) {
    const int m = int(std::min(n - i, size_t(chunk)));
    forward_chunk(net, x + i * per, m, out + i, s);
  }
}

}  // namespace

void fast_predict(const FastNet &net, const float *features, size_t n, float *out, int chunk, int threads) {
  if (n == 0) return;
  chunk = std::max(1, chunk);
  threads = std::max(1, std::min<int>(threads, int((n + chunk - 1) / chunk)));
  const int blas_threads = openblas_get_num_threads();
  openblas_set_num_threads(1);
  const size_t per = size_t(net.config.seq_len) * net.config.emb_size;
  if (threads == 1) {
    predict_range(net, features, n, out, chunk);
  } else {
    std::vector<std::thread> workers;
    const size_t slice = (n + threads - 1) / threads;
    for (int t = 0; t < threads; ++t) {
      const size_t begin = std::min(n, slice * t), end = std::min(n, slice * (t + 1));
      if (begin == end) continue;
      workers.emplace_back(predict_range, std::cref(net), features + begin * per, end - begin, out + begin, chunk);
    }
    for (std::thread &w : workers) w.join();
  }
  openblas_set_num_threads(blas_threads);
}

}  // namespace tlp::detail
