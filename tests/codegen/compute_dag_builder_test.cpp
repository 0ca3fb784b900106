// The DAG built from an operator's Halide algorithm records how each stage
// indexes its producers (loops and coefficients), which the GPU shared-memory
// rule and the cache region estimate rely on.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "codegen/operator.h"

namespace tlp {
namespace {

using Dim = std::vector<std::pair<std::string, int64_t>>;

const DagStage &stage_named(const ComputeDag &dag, const std::string &name) {
  for (const DagStage &st : dag.stages)
    if (st.name == name) return st;
  throw std::runtime_error("no stage " + name + " in\n" + dag.to_text());
}

int index_named(const ComputeDag &dag, const std::string &name) {
  return int(&stage_named(dag, name) - dag.stages.data());
}

TEST(ComputeDagBuilder, MatmulRecordsWhichLoopsIndexEachInput) {
  const ComputeDag dag = make_compute_dag(*make_operator("matmul:M=64,N=48,K=32"));
  const DagStage &c = dag.stages[dag.output()];
  const auto a = c.accesses_of(0);
  const auto b = c.accesses_of(1);
  ASSERT_EQ(a.size(), 1u) << dag.to_text();
  ASSERT_EQ(b.size(), 1u);
  const std::string r = c.iters.back().name;  // the reduction loop
  const std::string i = c.iters[0].name, j = c.iters[1].name;
  // A is M x K (row i, column r); B is K x N (row r, column j); outermost dimension first.
  EXPECT_EQ(a[0]->dims, (std::vector<Dim>{{{i, 1}}, {{r, 1}}}));
  EXPECT_EQ(b[0]->dims, (std::vector<Dim>{{{r, 1}}, {{j, 1}}}));
  EXPECT_TRUE(dag.stages[0].accesses.empty());  // inputs read nothing
}

// NK16n: B[n/16][k][n%16]. The panel is one step per 16 columns (not affine: 0);
// within it the column walks memory densely, as in a plain B.
TEST(ComputeDagBuilder, PackedMatrixBIsReadDenselyWithinItsPanel) {
  const ComputeDag dag = make_compute_dag(*make_operator("matmul:M=64,N=48,K=32,layout=NK16n"));
  const DagStage &c = dag.stages[dag.output()];
  const auto b = c.accesses_of(1);
  ASSERT_EQ(b.size(), 1u) << dag.to_text();
  const std::string r = c.iters.back().name, j = c.iters[1].name;
  EXPECT_EQ(b[0]->dims, (std::vector<Dim>{{{j, 0}}, {{r, 1}}, {{j, 1}}}));
}

TEST(ComputeDagBuilder, StridedConvolutionRecordsCoefficients) {
  const ComputeDag dag = make_compute_dag(*make_operator("conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=2,pad=1,dilation=1"));
  const int pad = index_named(dag, "pad");
  const DagStage &conv = stage_named(dag, "conv");
  const auto sites = conv.accesses_of(pad);
  ASSERT_EQ(sites.size(), 1u) << dag.to_text();
  // NCHW: pad[n][c][oh*2 + ry][ow*2 + rx].
  ASSERT_EQ(sites[0]->dims.size(), 4u);
  EXPECT_EQ(sites[0]->dims[0], (Dim{{"n", 1}}));
  EXPECT_EQ(sites[0]->dims[1], (Dim{{"rc", 1}}));
  Dim rows = sites[0]->dims[2];
  std::sort(rows.begin(), rows.end());
  EXPECT_EQ(rows, (Dim{{"oh", 2}, {"ry", 1}}));
}

std::vector<std::string> extendable_loops(const DagStage &st) {
  std::vector<std::string> out;
  for (const DagIter &it : st.iters)
    if (it.extendable) out.push_back(it.name);
  return out;
}

// The padding clamps its reads of the image, so the convolution may compute
// rows and columns past the output's; its channels and batch index the weights
// and the padded tensor unclamped.
TEST(ComputeDagBuilder, APaddedConvolutionMayRunPastItsImageButNotItsChannels) {
  const ComputeDag dag = make_compute_dag(*make_operator("conv2d:N=1,C=4,H=9,W=9,K=8,R=3,S=3,stride=1,pad=1"));
  EXPECT_EQ(extendable_loops(stage_named(dag, "conv")), (std::vector<std::string>{"oh", "ow"})) << dag.to_text();
  EXPECT_EQ(extendable_loops(stage_named(dag, "pad")), (std::vector<std::string>{"y", "x"}));
}

// Its reads clamp the pixel to the image's last, so register blocks may round the
// pixels up; the channels index the weights unclamped.
TEST(ComputeDagBuilder, TheBlockedMatrixProductMayRunPastItsPixelsButNotItsChannels) {
  const ComputeDag dag =
      make_compute_dag(*make_operator("conv2d_bias_relu:N=1,C=16,H=7,W=7,K=16,R=1,S=1,stride=1,pad=0,layout=NCHW8cgemm"));
  EXPECT_EQ(extendable_loops(stage_named(dag, "conv")), (std::vector<std::string>{"p"})) << dag.to_text();
}

TEST(ComputeDagBuilder, StagesReadingTheirInputsUnclampedMayNotRunPastThem) {
  const ComputeDag unpadded = make_compute_dag(*make_operator("conv2d:N=1,C=4,H=9,W=9,K=8,R=1,S=1,stride=1,pad=0"));
  EXPECT_TRUE(extendable_loops(unpadded.stages[unpadded.output()]).empty()) << unpadded.to_text();
  const ComputeDag matmul = make_compute_dag(*make_operator("matmul:M=64,N=48,K=32"));
  EXPECT_TRUE(extendable_loops(matmul.stages[matmul.output()]).empty());
}

}  // namespace
}  // namespace tlp
