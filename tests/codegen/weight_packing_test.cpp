// The packing pipelines: what the runner and exported kernels call once at load
// time compiles, and moves every weight exactly where the kernel reads it.
#include "codegen/weight_packing.h"

#include <gtest/gtest.h>

#include "tests/codegen/codegen_test_util.h"
#include "tests/temp_dir.h"

namespace tlp {
namespace {

TEST(WeightPacking, ConvWeightsLandInOIhwBlocks) {
  auto op = make_operator("conv2d:N=1,C=16,H=4,W=4,K=32,R=3,S=2,layout=NCHW8c");
  std::vector<std::vector<float>> in = random_inputs(*op);
  const std::vector<std::vector<float>> packed = kernel_inputs(*op, in);
  const int64_t C = 16, K = 32, R = 3, S = 2, b = 8;
  ASSERT_EQ(packed[1].size(), in[1].size());
  for (int64_t k = 0; k < K; ++k)
    for (int64_t c = 0; c < C; ++c)
      for (int64_t r = 0; r < R; ++r)
        for (int64_t s = 0; s < S; ++s) {
          // OIhw8i8o, outermost first: K/b, C/b, R, S, c%b, k%b.
          const int64_t at = ((((k / b * (C / b) + c / b) * R + r) * S + s) * b + c % b) * b + k % b;
          ASSERT_EQ(packed[1][size_t(at)], in[1][size_t(((k * C + c) * R + r) * S + s)]);
        }
  EXPECT_EQ(packed[0], in[0]) << "the data is not packed";
}

TEST(WeightPacking, MatrixBLandsInColumnPanels) {
  auto op = make_operator("matmul:M=2,N=48,K=5,layout=NK16n");
  std::vector<std::vector<float>> in = random_inputs(*op);
  const std::vector<std::vector<float>> packed = kernel_inputs(*op, in);
  const int64_t N = 48, K = 5, b = 16;
  ASSERT_EQ(packed[1].size(), in[1].size());
  for (int64_t k = 0; k < K; ++k)
    for (int64_t n = 0; n < N; ++n)  // NK16n, outermost first: N/b, K, n%b
      ASSERT_EQ(packed[1][size_t((n / b * K + k) * b + n % b)], in[1][size_t(k * N + n)]);
  EXPECT_EQ(packed[0], in[0]) << "A is not packed";
}

TEST(WeightPacking, EntryPointsAreNamedAfterTheKernelsAndTheInput) {
  auto op = make_operator("depthwise_conv2d:C=16,layout=NCHW16c");
  ASSERT_EQ(op->packed_inputs().size(), 1u);
  EXPECT_EQ(packing_entry("tlp_kernel", op->packed_inputs()[0]), "tlp_kernel_pack1");
}

TEST(WeightPacking, EveryPackingCompilesToAnObjectAndAUsersLibrary) {
  testing::TempDir dir;
  auto op = make_operator("conv2d_bias_relu:C=16,H=8,W=8,K=16,layout=NCHW16c");
  const Halide::Target host = Halide::get_host_target();
  const std::vector<std::string> objects = compile_packing_objects(*op, host, dir.file("k"), "k");
  ASSERT_EQ(objects.size(), 1u);
  EXPECT_TRUE(std::filesystem::exists(objects[0]));
  EXPECT_EQ(compile_packing_static_libraries(*op, host, dir.file("lib"), "lib"), std::vector<std::string>{"lib_pack1"});
  EXPECT_TRUE(std::filesystem::exists(dir.file("lib_pack1.a")));
  EXPECT_TRUE(std::filesystem::exists(dir.file("lib_pack1.h")));
  EXPECT_TRUE(compile_packing_objects(*make_operator("conv2d:C=16,K=16"), host, dir.file("p"), "p").empty());
}

}  // namespace
}  // namespace tlp
