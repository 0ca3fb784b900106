// layout=any names the layouts worth searching for the target: the plain ones and
// the channel blocks of one and two vectors that divide the channels.
#include "codegen/layout_choice.h"

#include <gtest/gtest.h>

#include "codegen/target.h"
#include "codegen/workload.h"

namespace tlp {
namespace {

std::vector<std::string> layouts(const std::string &spec, const std::string &target) {
  std::vector<std::string> out;
  for (const std::string &key : layout_variants(spec, parse_target(target)))
    out.push_back(parse_workload(key).get_str("layout"));
  return out;
}

TEST(LayoutChoice, OnlyLayoutEqualsAnyChoosesTheLayout) {
  EXPECT_TRUE(chooses_layout("conv2d:C=64,layout=any"));
  EXPECT_TRUE(chooses_layout("conv2d:layout=any,C=64"));
  EXPECT_TRUE(chooses_layout("conv2d: layout = any"));
  EXPECT_FALSE(chooses_layout("conv2d:layout=NCHW"));
  EXPECT_FALSE(chooses_layout("conv2d:layout=anyway"));
}

TEST(LayoutChoice, BlocksAreOneOrTwoVectorsOfTheTarget) {
  EXPECT_EQ(layouts("conv2d:C=64,K=128,layout=any", "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"),
            (std::vector<std::string>{"NCHW", "NHWC", "NCHW16c", "NCHW32c"}));
  EXPECT_EQ(layouts("conv2d:C=64,K=128,layout=any", "x86-64-linux-avx-avx2-f16c-fma-sse41"),
            (std::vector<std::string>{"NCHW", "NHWC", "NCHW8c", "NCHW16c"}));
}

TEST(LayoutChoice, BlocksThatDoNotDivideTheChannelsAreLeftOut) {
  EXPECT_EQ(layouts("conv2d_bias_relu:C=3,K=64,R=7,S=7,layout=any", "x86-64-linux-avx-avx2-f16c-fma-sse41"),
            (std::vector<std::string>{"NCHW", "NHWC"}));
  EXPECT_EQ(layouts("depthwise_conv2d:C=24,layout=any", "x86-64-linux-avx-avx2-f16c-fma-sse41"),
            (std::vector<std::string>{"NCHW", "NHWC", "NCHW8c"}));
}

TEST(LayoutChoice, AOneByOneConvolutionAlsoTriesItsMatrixProductForms) {
  const std::string avx2 = "x86-64-linux-avx-avx2-f16c-fma-sse41";
  EXPECT_EQ(layouts("conv2d:C=64,K=256,R=1,S=1,pad=0,layout=any", avx2),
            (std::vector<std::string>{"NCHW", "NHWC", "NCHW8c", "NCHW16c", "NCHWgemm", "NCHW8cgemm", "NCHW16cgemm"}));
  EXPECT_EQ(layouts("conv2d_bias_relu:C=1024,H=14,W=14,K=256,R=1,S=1,pad=0,layout=any", avx2).back(), "NCHW16cgemm");
  EXPECT_EQ(layouts("conv2d_residual:C=64,K=256,R=1,S=1,pad=0,layout=any", avx2).back(), "NCHW16cgemm");
  EXPECT_EQ(layouts("conv2d:C=24,K=48,R=1,S=1,pad=0,layout=any", avx2).back(), "NCHW8cgemm") << "16 divides no 24";
  // Not for a 3x3, a strided or a padded one.
  for (const char *spec : {"conv2d:C=64,K=64,layout=any", "conv2d:R=1,S=1,pad=0,stride=2,layout=any",
                           "conv2d:R=1,S=1,pad=1,layout=any"})
    EXPECT_EQ(layouts(spec, avx2).back(), "NCHW16c") << spec;
}

TEST(LayoutChoice, TheMatrixProductFormsKeepActivationsInTheirLayout) {
  EXPECT_EQ(activation_memory_layout("NCHWgemm"), "NCHW");
  EXPECT_EQ(activation_memory_layout("NCHW16cgemm"), "NCHW16c");
  EXPECT_EQ(layout_block("NCHW16cgemm"), 16);
  EXPECT_FALSE(is_gemm_layout("gemm"));
  EXPECT_EQ(plain_layout_form(parse_workload("conv2d:R=1,S=1,pad=0,layout=NCHW8cgemm")).get_str("layout"), "NCHW");
  EXPECT_EQ(activation_memory_layout("NCHW16c"), "NCHW16c");
  EXPECT_EQ(activation_memory_layout("NHWC"), "NHWC");
  EXPECT_EQ(layout_block("NCHWgemm"), 0);
  EXPECT_EQ(plain_layout_form(parse_workload("conv2d:R=1,S=1,pad=0,layout=NCHWgemm")).get_str("layout"), "NCHW");
}

TEST(LayoutChoice, TheVariantsAreCanonicalKeys) {
  const auto keys = layout_variants("max_pool2d:C=64,layout=any", parse_target("x86-64-linux-avx-avx2-f16c-fma-sse41"));
  ASSERT_EQ(keys.size(), 4u);
  EXPECT_EQ(keys[0], "max_pool2d:N=1,C=64,H=112,W=112,R=3,S=3,stride=2,pad=1");
  EXPECT_EQ(keys[2], "max_pool2d:N=1,C=64,H=112,W=112,R=3,S=3,stride=2,pad=1,layout=NCHW8c");
}

TEST(LayoutChoice, AnOperatorWithoutALayoutIsRefusedSayingSo) {
  try {
    layout_variants("softmax:M=64,layout=any", parse_target("host"));
    FAIL() << "expected a WorkloadError";
  } catch (const WorkloadError &e) {
    EXPECT_NE(std::string(e.what()).find("softmax has no layout to choose"), std::string::npos) << e.what();
  }
}

TEST(LayoutChoice, AnotherFaultInTheSpecIsStillReported) {
  EXPECT_THROW(layout_variants("conv2d:C=0,layout=any", parse_target("host")), WorkloadError);
}

TEST(LayoutChoice, EveryVariantOfAnOperatorIsEveryLayoutItsChannelsAllowWhateverTheTarget) {
  std::vector<std::string> names;
  for (const std::string &key : every_layout_variant("depthwise_conv2d:C=24,layout=NHWC"))
    names.push_back(parse_workload(key).get_str("layout"));
  EXPECT_EQ(names, (std::vector<std::string>{"NCHW", "NHWC", "NCHW8c"}));
  EXPECT_EQ(every_layout_variant("conv2d:C=64,K=128").size(), 5u);  // NCHW, NHWC, 8c, 16c, 32c
  EXPECT_EQ(every_layout_variant("softmax:M=64"), (std::vector<std::string>{parse_workload("softmax:M=64").key()}));
}

TEST(LayoutChoice, AMatrixChoosesHowItReadsItsBPlainOrInPanelsOfOneOrTwoVectors) {
  EXPECT_EQ(layouts("matmul:M=64,N=96,layout=any", "x86-64-linux-avx-avx2-avx512-avx512_skylake-f16c-fma-sse41"),
            (std::vector<std::string>{"KN", "NK16n", "NK32n"}));
  EXPECT_EQ(layouts("dense_bias_relu:N=40,layout=any", "x86-64-linux-avx-avx2-f16c-fma-sse41"),
            (std::vector<std::string>{"KN", "NK8n"}));
  EXPECT_EQ(layout_variants("matmul:M=64,layout=any", parse_target("x86-64-linux-avx-avx2-f16c-fma-sse41")).front(),
            "matmul:M=64,N=512,K=512");
}

TEST(LayoutChoice, OnlyAMatrixsLayoutIsItsWeightsAlone) {
  EXPECT_TRUE(layout_is_weights_only("matmul"));
  EXPECT_TRUE(layout_is_weights_only("dense_bias_relu"));
  EXPECT_FALSE(layout_is_weights_only("conv2d"));
  EXPECT_FALSE(layout_is_weights_only("softmax"));
}

TEST(LayoutChoice, TheRepresentativeOfAnyIsTheOperatorsDefaultLayout) {
  EXPECT_EQ(representative_spec("matmul:M=64,layout=any"), "matmul:M=64,layout=KN");
  EXPECT_EQ(representative_spec("conv2d:C=64,layout=any"), "conv2d:C=64,layout=NCHW");
  EXPECT_EQ(plain_layout_form(parse_workload("dense_bias_relu:N=64,layout=NK32n")).key(),
            parse_workload("dense_bias_relu:N=64").key());
  EXPECT_EQ(layout_block("NK32n"), 32);
  EXPECT_EQ(layout_block("NCHW8c"), 8);
  EXPECT_EQ(layout_block("NHWC"), 0);
}

}  // namespace
}  // namespace tlp
