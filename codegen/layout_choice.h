// Layout as a search decision: a workload written with layout=any names every
// layout its operator offers that suits the target, and the tuner searches them
// all, giving its budget to the ones that can win (search/variant_scheduler.h).
// The record of every kernel names its concrete layout, so what a kernel expects
// is never in doubt; layout=NCHW (the default) still means exactly NCHW.
#pragma once

#include <string>
#include <vector>

#include "Halide.h"

namespace tlp {

// True when the spec asks for the layout to be chosen (layout=any).
bool chooses_layout(const std::string &spec);

// The canonical workload keys of the concrete variants of a layout=any spec for
// `target`: the plain layouts, and the blocks of one and two fp32 vectors that
// divide the operator's channels (or, for a matrix's packed B, its columns). Throws WorkloadError for an operator without
// a layout, or when the spec is otherwise wrong.
std::vector<std::string> layout_variants(const std::string &spec, const Halide::Target &target);

// Every concrete layout variant of the spec's operator whose channels its blocks
// divide, whatever the target (plain layouts and every block size), as canonical
// workload keys; the spec's own layout is ignored. The spec's own key when its
// operator has no layout. For matching records of any target to a network.
std::vector<std::string> every_layout_variant(const std::string &spec);

// Whether operators of this kind have a layout parameter.
bool has_layout(const std::string &kind);

// Whether that layout is only how the operator reads its weights (matmul's and
// dense_bias_relu's B): its activations stay plain, so its neighbours in a
// network never convert for it.
bool layout_is_weights_only(const std::string &kind);

// The form of NCHW that 1x1 convolutions (stride 1, pad 0) offer: the same memory,
// read as a matrix product (codegen/ops/conv2d.cpp). The blocked layouts have theirs
// too, NCHW<b>c + "gemm": every image's pixels as one loop.
extern const char *const kGemmLayout;

// Whether the layout is a gemm form (NCHWgemm, NCHW16cgemm, ...).
bool is_gemm_layout(const std::string &layout);

// The activation layout a kernel of layout `layout` reads and writes in memory:
// the layout without its "gemm" (NCHW for NCHWgemm, NCHW16c for NCHW16cgemm), the
// layout itself otherwise. Neighbours in a network agree or convert by this.
std::string activation_memory_layout(const std::string &layout);

// The block of a layout name ("NCHW16c", "NK16n": 16); 0 for a plain layout.
int layout_block(const std::string &layout);

// The spec with its layout freed (layout=any) when its operator has a layout;
// otherwise the spec as it is.
std::string with_any_layout(const std::string &spec);

// The spec with layout=any read as the operator's default layout (NCHW, or KN for a
// matrix's B): the same computation (its FLOPs, what peers that pick their own
// layouts are given); other specs as they are.
std::string representative_spec(const std::string &spec);

}  // namespace tlp
