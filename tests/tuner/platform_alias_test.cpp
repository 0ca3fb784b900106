// --platform-alias: records of a machine named the old way read as a named
// machine's, only when the user says so.
#include "tuner/platform_alias.h"

#include <gtest/gtest.h>

#include "measure/machine_identity.h"

namespace tlp {
namespace {

TEST(PlatformAlias, ParsesOldEqualsNewAndHostIsThisMachine) {
  const PlatformAlias a = parse_platform_alias("AMD EPYC=zen5-epyc-2c-avx512");
  EXPECT_EQ(a.from, "AMD EPYC");
  EXPECT_EQ(a.to, "zen5-epyc-2c-avx512");
  EXPECT_EQ(parse_platform_alias("AMD EPYC=host").to, this_machine().short_name());
}

TEST(PlatformAlias, AMalformedAliasIsRefusedWithAnExample) {
  for (const char *bad : {"AMD EPYC", "=zen5", "AMD EPYC=", "a=b/c"}) {
    SCOPED_TRACE(bad);
    try {
      parse_platform_alias(bad);
      FAIL() << "expected an error";
    } catch (const std::runtime_error &e) {
      EXPECT_NE(std::string(e.what()).find("--platform-alias"), std::string::npos) << e.what();
    }
  }
}

TEST(PlatformAlias, RenamesOnlyTheMachinePartOfPlatformsItNames) {
  const std::vector<PlatformAlias> aliases = {{"AMD EPYC", "zen5-epyc-2c-avx512"}};
  EXPECT_EQ(aliased_platform("cpu/AMD EPYC/x86-64-linux-avx2/threads=2", aliases),
            "cpu/zen5-epyc-2c-avx512/x86-64-linux-avx2/threads=2");
  EXPECT_EQ(aliased_platform("cpu/AMD EPYC 7571/x86-64-linux-avx2/threads=2", aliases),
            "cpu/AMD EPYC 7571/x86-64-linux-avx2/threads=2");
  EXPECT_EQ(aliased_platform("cuda/AMD EPYC/sm_90", aliases), "cuda/AMD EPYC/sm_90");
}

TEST(PlatformAlias, AppliedToRecordsItCountsWhatChanged) {
  std::vector<MeasureRecord> records(3);
  records[0].platform = "cpu/AMD EPYC/t/threads=2";
  records[1].platform = "cpu/zen4-epyc-2c-avx512/t/threads=2";
  records[2].platform = "cpu/AMD EPYC/t/threads=1";
  EXPECT_EQ(apply_platform_aliases(records, {{"AMD EPYC", "zen5-epyc-2c-avx512"}}), 2u);
  EXPECT_EQ(records[0].platform, "cpu/zen5-epyc-2c-avx512/t/threads=2");
  EXPECT_EQ(records[1].platform, "cpu/zen4-epyc-2c-avx512/t/threads=2");
  EXPECT_EQ(records[2].platform, "cpu/zen5-epyc-2c-avx512/t/threads=1");
  EXPECT_EQ(apply_platform_aliases(records, {}), 0u);
}

}  // namespace
}  // namespace tlp
