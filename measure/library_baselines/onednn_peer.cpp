// oneDNN's forward-inference convolution (fp32) on the convolution workloads.
// The primitive chooses its own layouts (format_tag::any); the user's data stays
// in the operator's layout (NCHW/KCRS, or NHWC/RSCK), and the reorders between
// the two happen outside the timed region, once.
#include <omp.h>

#include <stdexcept>
#include <unordered_map>

#include <oneapi/dnnl/dnnl.hpp>

#include "measure/library_baselines/peer_bench.h"

namespace tlp {
namespace peer {

BenchResult bench_onednn(const PeerWorkload &w, const std::vector<std::vector<float>> &inputs,
                         const TimingOptions &timing, int threads) {
  using namespace dnnl;
  using tag = memory::format_tag;
  using dt = memory::data_type;
  const ConvShape c = conv_shape(w);
  const std::vector<int64_t> sizes = conv_input_sizes(c);
  if (inputs.size() != sizes.size()) throw std::runtime_error("expected " + std::to_string(sizes.size()) + " inputs");
  for (size_t i = 0; i < sizes.size(); ++i)
    if (int64_t(inputs[i].size()) != sizes[i])
      throw std::runtime_error("input " + std::to_string(i) + " has " + std::to_string(inputs[i].size()) +
                               " elements; " + w.key + " needs " + std::to_string(sizes[i]));
  omp_set_num_threads(threads);

  BenchResult r;
  r.threads = threads;
  r.output.assign(size_t(conv_output_size(c)), 0.0f);
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
    primitive_attr attr;
    if (c.bias_relu) {
      post_ops ops;
      ops.append_eltwise(1.0f, algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    const auto desc = c.bias_relu ? convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                                              src_any, wei_any, bias_md, dst_any, strides, dilates,
                                                              pad_l, pad_r)
                                  : convolution_forward::desc(prop_kind::forward_inference, algorithm::convolution_direct,
                                                              src_any, wei_any, dst_any, strides, dilates, pad_l, pad_r);
    convolution_forward::primitive_desc pd(desc, attr, eng);

    // Into the primitive's layouts, before timing.
    memory src = user_src, wei = user_wei, dst = user_dst;
    if (pd.src_desc() != user_src.get_desc()) {
      src = memory(pd.src_desc(), eng);
      reorder(user_src, src).execute(strm, user_src, src);
    }
    if (pd.weights_desc() != user_wei.get_desc()) {
      wei = memory(pd.weights_desc(), eng);
      reorder(user_wei, wei).execute(strm, user_wei, wei);
    }
    if (pd.dst_desc() != user_dst.get_desc()) dst = memory(pd.dst_desc(), eng);
    strm.wait();

    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, wei}, {DNNL_ARG_DST, dst}};
    if (c.bias_relu) args[DNNL_ARG_BIAS] = memory(bias_md, eng, const_cast<float *>(inputs[2].data()));
    convolution_forward conv(pd);
    r.costs = time_runs(
                  [&] {
                    conv.execute(strm, args);
                    strm.wait();
                  },
                  timing)
                  .costs;

    // Back into the operator's layout, after timing, for the correctness check.
    if (dst != user_dst) {
      reorder(dst, user_dst).execute(strm, dst, user_dst);
      strm.wait();
    }
    const dnnl_version_t *v = dnnl_version();
    const std::string version = std::to_string(v->major) + "." + std::to_string(v->minor) + "." + std::to_string(v->patch);
    const std::string impl = pd.impl_info_str();
    r.kernel = "oneDNN " + version + " convolution_forward " + impl;
    r.details = {{"impl", impl}, {"version", version}};
    if (src != user_src || dst != user_dst || wei != user_wei)
      r.note = "layouts chosen by oneDNN; reorders from/to the operator's layout are not timed";
  } catch (const dnnl::error &e) {
    throw std::runtime_error(std::string("oneDNN failed: ") + e.what() + " (status " + std::to_string(int(e.status)) + ")");
  }
  return r;
}

}  // namespace peer
}  // namespace tlp
