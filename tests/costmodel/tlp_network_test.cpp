// The TLP network: our plain-C++ forward against LibTorch's, padding masks, the
// config and the weights' bytes.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "costmodel/tlp_network.h"
#include "costmodel_fixtures.h"

namespace tlp {
namespace {

using testing::random_features;
using testing::small_config;

InferenceOptions torch_path(int chunk = 64, int threads = 1) {
  InferenceOptions o;
  o.path = InferencePath::Torch;
  o.chunk = chunk;
  o.threads = threads;
  return o;
}

InferenceOptions fast_path(int chunk = 64, int threads = 1) {
  InferenceOptions o;
  o.path = InferencePath::Fast;
  o.chunk = chunk;
  o.threads = threads;
  return o;
}

// |a - b| <= 1e-4 relative to the score's magnitude (at least 1).
void expect_close(const std::vector<float> &a, const std::vector<float> &b, const std::string &what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_TRUE(std::isfinite(a[i]) && std::isfinite(b[i])) << what << " score " << i;
    EXPECT_LE(std::fabs(a[i] - b[i]), 1e-4 * std::max(1.0f, std::fabs(b[i])))
        << what << " score " << i << ": " << a[i] << " vs " << b[i];
  }
}

class FastForwardTest : public ::testing::TestWithParam<TlpArch> {};

// The paper-sized network: hidden 256, 8 heads, 25 x 22.
TEST_P(FastForwardTest, EqualsTheTorchForwardAtThePapersSize) {
  TlpNetworkConfig c;
  c.hidden = 256;
  c.arch = GetParam();
  TlpNetwork net(c, 3);
  const size_t n = 150;
  const std::vector<float> x = random_features(c, n, 17);
  const std::vector<float> reference = net.predict(x, torch_path(64));
  expect_close(net.predict(x, fast_path(64, 1)), reference, "fast, chunk 64, 1 thread");
  expect_close(net.predict(x, fast_path(37, 2)), reference, "fast, chunk 37, 2 threads");
  expect_close(net.predict(x, fast_path(1024, 2)), reference, "fast, one chunk");
  // Scores are not all alike (the comparison means something).
  const auto mm = std::minmax_element(reference.begin(), reference.end());
  EXPECT_GT(*mm.second - *mm.first, 1e-3f);
}

TEST_P(FastForwardTest, EqualsTheTorchForwardForASmallNetwork) {
  const TlpNetworkConfig c = small_config(GetParam(), 7, 16);
  TlpNetwork net(c, 5);
  const std::vector<float> x = random_features(c, 200, 23);
  expect_close(net.predict(x, fast_path(16, 2)), net.predict(x, torch_path(50)), "small network");
}

// The LibTorch forward that training runs (padding skipped, repeated rows once)
// computes the same function as the padded reference.
TEST_P(FastForwardTest, PackedTorchForwardEqualsThePaddedOne) {
  const TlpNetworkConfig c = small_config(GetParam(), 9, 22);
  TlpNetwork net(c, 6);
  const std::vector<float> x = random_features(c, 120, 29);
  InferenceOptions packed = torch_path(50);
  packed.path = InferencePath::TorchPacked;
  expect_close(net.predict(x, packed), net.predict(x, torch_path(50)), "packed");
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, FastForwardTest,
                         ::testing::Values(TlpArch::Attention, TlpArch::Lstm, TlpArch::Transformer),
                         [](const ::testing::TestParamInfo<TlpArch> &i) { return std::string(tlp_arch_name(i.param)); });

class PaddingTest : public ::testing::TestWithParam<TlpArch> {};

// A network's weights do not depend on seq_len, so the same weights can score a
// schedule with no padding and with lots of it: masked padding changes nothing.
TEST_P(PaddingTest, PaddingRowsDoNotChangeTheScore) {
  const TlpNetworkConfig tight = small_config(GetParam(), 3, 22);
  TlpNetworkConfig loose = tight;
  loose.seq_len = 12;
  TlpNetwork a(tight, 9), b(loose, 10);
  b.load_weights(a.save_weights());
  const std::vector<float> x3 = random_features(tight, 40, 31);  // up to 3 real rows of 3
  std::vector<float> x12(40 * 12 * 22, 0.0f);
  for (size_t i = 0; i < 40; ++i) std::copy_n(x3.begin() + i * 3 * 22, 3 * 22, x12.begin() + i * 12 * 22);
  for (InferencePath path : {InferencePath::Torch, InferencePath::Fast}) {
    InferenceOptions o;
    o.path = path;
    expect_close(b.predict(x12, o), a.predict(x3, o), path == InferencePath::Torch ? "torch" : "fast");
  }
}

TEST_P(PaddingTest, AScheduleWithoutStepsScoresZero) {
  const TlpNetworkConfig c = small_config(GetParam());
  TlpNetwork net(c, 1);
  const std::vector<float> zeros(size_t(c.seq_len) * c.emb_size * 3, 0.0f);
  for (InferencePath path : {InferencePath::Torch, InferencePath::TorchPacked, InferencePath::Fast}) {
    InferenceOptions o;
    o.path = path;
    EXPECT_EQ(net.predict(zeros, o), std::vector<float>(3, 0.0f));
  }
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, PaddingTest,
                         ::testing::Values(TlpArch::Attention, TlpArch::Lstm, TlpArch::Transformer),
                         [](const ::testing::TestParamInfo<TlpArch> &i) { return std::string(tlp_arch_name(i.param)); });

TEST(TlpNetwork, ScoresDoNotDependOnChunkOrThreads) {
  const TlpNetworkConfig c = small_config();
  TlpNetwork net(c, 2);
  const std::vector<float> x = random_features(c, 90, 3);
  const std::vector<float> one = net.predict(x, fast_path(1, 1));
  expect_close(net.predict(x, fast_path(90, 2)), one, "chunk 90");
  expect_close(net.predict(x, fast_path(7, 2)), one, "chunk 7");
  // Each schedule alone gives its score within the batch.
  for (size_t i = 0; i < 90; i += 13) {
    const std::vector<float> xi(x.begin() + i * 4 * 22, x.begin() + (i + 1) * 4 * 22);
    EXPECT_NEAR(net.predict(xi, torch_path())[0], one[i], 1e-4);
  }
}

TEST(TlpNetwork, SameSeedSameWeights) {
  const TlpNetworkConfig c = small_config();
  TlpNetwork a(c, 42), b(c, 42), d(c, 43);
  const std::vector<float> x = random_features(c, 20, 1);
  EXPECT_EQ(a.predict(x), b.predict(x));
  EXPECT_NE(a.predict(x), d.predict(x));
  EXPECT_EQ(a.save_weights(), b.save_weights());
}

TEST(TlpNetwork, CloneCopiesTheWeights) {
  const TlpNetworkConfig c = small_config(TlpArch::Transformer);
  TlpNetwork a(c, 4);
  TlpNetwork b = a.clone();
  const std::vector<float> x = random_features(c, 20, 2);
  EXPECT_EQ(a.predict(x), b.predict(x));
  EXPECT_EQ(a.num_parameters(), b.num_parameters());
}

TEST(TlpNetwork, ThePapersSizeHasTheExpectedParameterCount) {
  TlpNetworkConfig c;  // attention, 25 x 22, 8 heads
  c.hidden = 256;
  TlpNetwork net(c);
  const size_t mlp = (22 * 64 + 64) + (64 * 128 + 128) + (128 * 256 + 256) + (256 * 256 + 256);
  const size_t attention = (3 * 256 * 256 + 3 * 256) + (256 * 256 + 256);
  const size_t residual = 2 * (256 * 256 + 256);
  const size_t decoder = (256 * 256 + 256) + (256 * 128 + 128) + (128 * 64 + 64) + (64 + 1);
  EXPECT_EQ(net.num_parameters(), mlp + attention + residual + decoder);
}

TEST(TlpNetwork, WeightsOfAnotherArchitectureAreRefused) {
  TlpNetwork attention(small_config(TlpArch::Attention), 1);
  TlpNetwork lstm(small_config(TlpArch::Lstm), 1);
  try {
    lstm.load_weights(attention.save_weights());
    FAIL() << "loaded attention weights into an LSTM network";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("lstm"), std::string::npos) << e.what();
  }
  TlpNetworkConfig wider = small_config();
  wider.hidden = 128;
  TlpNetwork w(wider, 1);
  EXPECT_THROW(w.load_weights(attention.save_weights()), std::runtime_error);
  EXPECT_THROW(w.load_weights("not an archive"), std::runtime_error);
}

TEST(TlpNetwork, FeaturesOfTheWrongSizeAreRefused) {
  TlpNetwork net(small_config(), 1);
  EXPECT_THROW(net.predict(std::vector<float>(4 * 22 + 1, 0.0f)), std::invalid_argument);
  EXPECT_TRUE(net.predict(std::vector<float>{}).empty());
}

TEST(TlpNetworkConfig, InvalidShapesAreRefused) {
  TlpNetworkConfig c;
  c.heads = 7;  // the width, 128, is not divisible by 7
  EXPECT_THROW(c.validate(), std::invalid_argument);
  EXPECT_THROW(TlpNetwork(c, 0), std::invalid_argument);
  c = TlpNetworkConfig{};
  c.seq_len = 0;
  EXPECT_THROW(c.validate(), std::invalid_argument);
}

TEST(TlpNetworkConfig, ArchitectureNamesRoundTrip) {
  for (TlpArch a : {TlpArch::Attention, TlpArch::Lstm, TlpArch::Transformer})
    EXPECT_EQ(tlp_arch_from_name(tlp_arch_name(a)), a);
  EXPECT_THROW(tlp_arch_from_name("gru"), std::invalid_argument);
}

}  // namespace
}  // namespace tlp
