// oneDNN's forward-inference convolution (fp32) on the convolution workloads, and
// its matmul on the GEMM workloads. The primitive chooses its own layouts
// (format_tag::any: blocked activations, packed weights, a packed B); the user's
// data stays in the operator's layout (NCHW/KCRS or NHWC/RSCK; row-major
// matrices), and the reorders between the two happen outside the timed region, once.
#include <omp.h>

#include <stdexcept>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "measure/library_baselines/peer_bench.h"

namespace tlp {
namespace peer {

namespace {

std::string onednn_version() {
  const dnnl_version_t *v = dnnl_version();
  return std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
}

void check_sizes(const PeerWorkload &w, const std::vector<std::vector<float>> &inputs,
                 const std::vector<int64_t> &sizes) {
  if (inputs.size() != sizes.size()) throw std::runtime_error("expected " + std::to_string(sizes.size()) + " inputs");
  for (size_t i = 0; i < sizes.size(); ++i)
    if (int64_t(inputs[i].size()) != sizes[i])
      throw std::runtime_error("input " + std::to_string(i) + " has " + std::to_string(inputs[i].size()) +
                               " elements; " + w.key + " needs " + std::to_string(sizes[i]));
}

// The result of a run on `inputs` (checked against `sizes`), its output zeroed.
BenchResult start_result(const PeerWorkload &w, const std::vector<std::vector<float>> &inputs,
                         const std::vector<int64_t> &sizes, int64_t output_size, int threads) {
  check_sizes(w, inputs, sizes);
  omp_set_num_threads(threads);
  BenchResult r;
  r.threads = threads;
  r.output.assign(size_t(output_size), 0.0f);
  return r;
}

// A ReLU after the primitive (its bias comes as an argument) when `relu`.
dnnl::primitive_attr relu_after(bool relu) {
  dnnl::primitive_attr attr;
  if (relu) {
    dnnl::post_ops ops;
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
  }
  return attr;
}

// Times `p` by the protocol, each run waiting for the stream.
std::vector<double> time_primitive(const dnnl::primitive &p, dnnl::stream &strm,
                                   const std::unordered_map<int, dnnl::memory> &args, const TimingOptions &timing) {
  return time_runs(
             [&] {
               p.execute(strm, args);
               strm.wait();
             },
             timing)
      .costs;
}

std::runtime_error onednn_failed(const dnnl::error &e) {
  return std::runtime_error(std::string("oneDNN failed: ") + e.what() + " (status " + std::to_string(int(e.status)) + ")");
}

// Into the primitive's layout (`want`) before timing, when it differs from the user's.
dnnl::memory in_layout(dnnl::memory user, const dnnl::memory::desc &want, const dnnl::engine &eng,
                       dnnl::stream &strm) {
  if (want == user.get_desc()) return user;
  dnnl::memory m(want, eng);
  dnnl::reorder(user, m).execute(strm, user, m);
  return m;
}

BenchResult bench_onednn_matmul(const PeerWorkload &w, const std::vector<std::vector<float>> &inputs,
                                const TimingOptions &timing, int threads) {
  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  const GemmShape g = gemm_shape(w);
  BenchResult r = start_result(w, inputs, gemm_input_sizes(g), gemm_output_size(g), threads);
  try {
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    const bool batched = g.batch > 1;
    const memory::dims a_dims = batched ? memory::dims{g.batch, g.M, g.K} : memory::dims{g.M, g.K};
    const memory::dims b_dims = batched ? memory::dims{g.batch, g.K, g.N} : memory::dims{g.K, g.N};
    const memory::dims c_dims = batched ? memory::dims{g.batch, g.M, g.N} : memory::dims{g.M, g.N};
    const tag rows = batched ? tag::abc : tag::ab;
    memory user_a({a_dims, dt::f32, rows}, eng, const_cast<float *>(inputs[0].data()));
    memory user_b({b_dims, dt::f32, rows}, eng, const_cast<float *>(inputs[1].data()));
    memory user_c({c_dims, dt::f32, rows}, eng, r.output.data());
    const memory::desc bias_md({1, g.N}, dt::f32, tag::ab);
    // B is the weight side: oneDNN may keep it packed (tag::any), reordered once.
    const memory::desc b_any(b_dims, dt::f32, tag::any);
    const auto desc = g.bias_relu ? matmul::desc(user_a.get_desc(), b_any, bias_md, user_c.get_desc())
                                  : matmul::desc(user_a.get_desc(), b_any, user_c.get_desc());
    matmul::primitive_desc pd(desc, relu_after(g.bias_relu), eng);
    memory b = in_layout(user_b, pd.weights_desc(), eng, strm);
    strm.wait();
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, user_a}, {DNNL_ARG_WEIGHTS, b}, {DNNL_ARG_DST, user_c}};
    if (g.bias_relu) args[DNNL_ARG_BIAS] = memory(bias_md, eng, const_cast<float *>(inputs[2].data()));
    r.costs = time_primitive(matmul(pd), strm, args, timing);
    const std::string impl = pd.impl_info_str();
    r.kernel = "oneDNN " + onednn_version() + " matmul " + impl;
    r.details = {{"impl", impl}, {"version", onednn_version()}};
    if (b != user_b) r.note = "B packed by oneDNN; the reorder from row-major is not timed";
  } catch (const dnnl::error &e) {
    throw onednn_failed(e);
  }
  return r;
}

}  // namespace

BenchResult bench_onednn(const PeerWorkload &w, const std::vector<std::vector<float>> &inputs,
                         const TimingOptions &timing, int threads) {
  if (is_gemm_kind(w.kind)) return bench_onednn_matmul(w, inputs, timing, threads);
  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  const ConvShape c = conv_shape(w);
  BenchResult r = start_result(w, inputs, conv_input_sizes(c), conv_output_size(c), threads);
  try {
    engine eng(engine::kind::cpu, 0);
    stream strm(eng);
    const memory::dims src_dims = {c.N, c.C, c.H, c.W}, dst_dims = {c.N, c.K, c.OH, c.OW}, bias_dims = {c.K};
    const memory::dims wei_dims = c.groups > 1 ? memory::dims{c.groups, c.K / c.groups, c.C / c.groups, c.R, c.S}
                                               : memory::dims{c.K, c.C, c.R, c.S};
    const tag data_tag = c.nhwc ? tag::nhwc : tag::nchw;
    const tag wei_tag = c.groups > 1 ? tag::goihw : (c.nhwc ? tag::hwio : tag::oihw);
    memory user_src({src_dims, dt::f32, data_tag}, eng, const_cast<float *>(inputs[0].data()));
    memory user_wei({wei_dims, dt::f32, wei_tag}, eng, const_cast<float *>(inputs[1].data()));
    memory user_dst({dst_dims, dt::f32, data_tag}, eng, r.output.data());

    const memory::desc src_any(src_dims, dt::f32, tag::any), wei_any(wei_dims, dt::f32, tag::any),
        dst_any(dst_dims, dt::f32, tag::any), bias_md(bias_dims, dt::f32, tag::a);
    const memory::dims strides = {c.stride, c.stride}, dilates = {c.dilation - 1, c.dilation - 1},
                       pad_l = {c.pad, c.pad}, pad_r = {c.pad, c.pad};
    const auto desc = c.bias ? convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                                         src_any, wei_any, bias_md, dst_any, strides, dilates, pad_l,
                                                         pad_r)
                             : convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                                         src_any, wei_any, dst_any, strides, dilates, pad_l, pad_r);
    // A residual is oneDNN's sum post-op: the convolution adds into what dst holds.
    primitive_attr attr;
    post_ops ops;
    if (c.residual) ops.append_sum(1.0f);
    if (c.relu) ops.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
    attr.set_post_ops(ops);
    convolution_forward::primitive_desc pd(desc, attr, eng);

    // Into the primitive's layouts, before timing.
    memory src = in_layout(user_src, pd.src_desc(), eng, strm), wei = in_layout(user_wei, pd.weights_desc(), eng, strm);
    memory dst = user_dst;
    if (pd.dst_desc() != user_dst.get_desc()) dst = memory(pd.dst_desc(), eng);
    memory user_residual;
    const auto load_residual = [&] {
      reorder(user_residual, dst).execute(strm, user_residual, dst);
      strm.wait();
    };
    if (c.residual) {
      user_residual = memory({dst_dims, dt::f32, data_tag}, eng, const_cast<float *>(inputs[3].data()));
      load_residual();
    }
    strm.wait();

    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
    if (c.bias) args[DNNL_ARG_BIAS] = memory(bias_md, eng, const_cast<float *>(inputs[2].data()));
    const convolution_forward conv(pd);
    // Timed runs add the residual again and again (same work); the checked run starts from it.
    r.costs = time_primitive(conv, strm, args, timing);
    if (c.residual) {
      load_residual();
      conv.execute(strm, args);
      strm.wait();
    }

    // Back into the operator's layout, after timing, for the correctness check.
    if (dst != user_dst) {
      reorder(dst, user_dst).execute(strm, dst, user_dst);
      strm.wait();
    }
    const std::string impl = pd.impl_info_str();
    r.kernel = "oneDNN " + onednn_version() + " convolution_forward " + impl;
    r.details = {{"impl", impl}, {"version", onednn_version()}};
    if (src != user_src || dst != user_dst || wei != user_wei)
      r.note = "layouts chosen by oneDNN; reorders from/to the operator's layout are not timed";
    if (c.residual) r.note += std::string(r.note.empty() ? "" : "; ") + "the residual is oneDNN's sum post-op";
  } catch (const dnnl::error &e) {
    throw onednn_failed(e);
  }
  return r;
}

}  // namespace peer
}  // namespace tlp
