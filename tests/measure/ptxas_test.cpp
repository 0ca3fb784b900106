// ptxas as the GPU build's validator: its verbose report is read right (the
// worst kernel counts), good PTX passes with its register count, and bad PTX is
// refused with ptxas's own message.
#include "measure/ptxas.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/temp_dir.h"

namespace tlp {
namespace {

const char *kTwoKernels = R"(ptxas info    : 0 bytes gmem
ptxas info    : Compiling entry function '_kernel_a' for 'sm_80'
ptxas info    : Function properties for _kernel_a
    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads
ptxas info    : Used 32 registers, used 1 barriers, 412 bytes cmem[0]
ptxas info    : Compiling entry function '_kernel_b' for 'sm_80'
ptxas info    : Function properties for _kernel_b
    16 bytes stack frame, 24 bytes spill stores, 8 bytes spill loads
ptxas info    : Used 255 registers, 4096 bytes smem, 380 bytes cmem[0]
ptxas info    : Compile time = 39.449 ms
)";

TEST(Ptxas, VerboseReportKeepsTheWorstKernel) {
  const PtxasReport r = parse_ptxas_verbose(kTwoKernels);
  EXPECT_EQ(r.kernels, 2);
  EXPECT_EQ(r.registers, 255);
  EXPECT_EQ(r.spill_store_bytes, 24);
  EXPECT_EQ(r.spill_load_bytes, 8);
  EXPECT_EQ(r.stack_bytes, 16);
  EXPECT_EQ(r.static_shared_bytes, 4096);
  EXPECT_EQ(PtxasReport::from_json(r.to_json()), r);
  EXPECT_EQ(parse_ptxas_verbose("").kernels, 0);
}

// A kernel that adds one to each element of an array, as LLVM's NVPTX back end writes PTX.
const char *kAddOne = R"(.version 7.0
.target sm_80
.address_size 64

.visible .entry add_one(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .f32 %f<3>;
	.reg .b64 %rd<5>;
	ld.param.u64 %rd1, [p];
	cvta.to.global.u64 %rd2, %rd1;
	mov.u32 %r1, %tid.x;
	mul.wide.u32 %rd3, %r1, 4;
	add.s64 %rd4, %rd2, %rd3;
	ld.global.f32 %f1, [%rd4];
	add.f32 %f2, %f1, 0f3F800000;
	st.global.f32 [%rd4], %f2;
	ret;
}
)";

TEST(Ptxas, ValidPtxPassesWithItsResourceUse) {
  if (find_ptxas().empty()) GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine";
  testing::TempDir d;
  const PtxasReport r = validate_ptx(kAddOne, 80, d / "scratch");
  EXPECT_EQ(r.kernels, 1);
  EXPECT_GT(r.registers, 0);
  EXPECT_EQ(r.spill_store_bytes, 0);
}

TEST(Ptxas, InvalidPtxIsRefusedWithPtxassOwnMessage) {
  if (find_ptxas().empty()) GTEST_SKIP() << "no ptxas (CUDA toolkit) on this machine";
  testing::TempDir d;
  std::string bad = kAddOne;
  bad.replace(bad.find("add.f32"), 7, "add.q32");
  try {
    validate_ptx(bad, 80, d / "scratch");
    FAIL() << "ptxas accepted an unknown instruction";
  } catch (const PtxasError &e) {
    EXPECT_NE(std::string(e.what()).find("sm_80"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(".q32"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace tlp
