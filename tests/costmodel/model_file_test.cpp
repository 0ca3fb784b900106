// Model files: the round trip, and every kind of file that must be refused with
// a message saying what is wrong and what to do.
#include <gtest/gtest.h>

#include <functional>
#include <nlohmann/json.hpp>

#include "search/tlptune_version.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "costmodel/model_file.h"
#include "costmodel_fixtures.h"

namespace tlp {
namespace {

using testing::random_features;
using testing::small_config;

std::string temp_path(const std::string &name) {
  return ::testing::TempDir() + "tlp_model_test_" + std::to_string(getpid()) + "_" + name;
}

std::string read_all(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  std::ostringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

void write_all(const std::string &path, const std::string &bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(bytes.data(), std::streamsize(bytes.size()));
}

TlpModelInfo info_for(const TlpNetworkConfig &c, const std::string &platform = "cpu/EPYC/avx2/threads=2") {
  TlpModelInfo info;
  info.network = c;
  info.featurizer = testing::featurizer_for(c);
  info.platform = platform;
  info.training.records = 1234;
  info.training.tasks = 56;
  info.training.created = "2026-11-30T12:00:00Z";
  info.training.loss = "rank";
  info.training.epochs = 50;
  info.training.best_epoch = 17;
  info.training.best_val_loss = 0.125;
  info.training.seconds = 99.5;
  info.training.note = "tlptune train --log x.jsonl";
  return info;
}

// Writes a model file and returns its path.
std::string saved_model(const std::string &name, const TlpNetworkConfig &c = small_config()) {
  const std::string path = temp_path(name);
  TlpNetwork net(c, 11);
  save_tlp_model(path, net, info_for(c));
  return path;
}

// The ModelFileError message of loading `path`, or "" if it loads.
std::string load_error(const std::string &path, const std::string &platform = "") {
  try {
    load_tlp_model(path, platform);
  } catch (const ModelFileError &e) {
    return e.what();
  }
  return "";
}

bool contains(const std::string &s, const std::string &part) { return s.find(part) != std::string::npos; }

class ModelFileRoundTrip : public ::testing::TestWithParam<TlpArch> {};

TEST_P(ModelFileRoundTrip, PredictionsAreIdenticalAfterSaveAndLoad) {
  const TlpNetworkConfig c = small_config(GetParam(), 5, 18);
  TlpNetwork net(c, 21);
  const std::string path = temp_path(std::string("roundtrip_") + tlp_arch_name(GetParam()));
  save_tlp_model(path, net, info_for(c));
  LoadedTlpModel m = load_tlp_model(path, "cpu/EPYC/avx2/threads=2");
  const std::vector<float> x = random_features(c, 64, 8);
  for (InferencePath p : {InferencePath::Fast, InferencePath::Torch}) {
    InferenceOptions o;
    o.path = p;
    EXPECT_EQ(m.network.predict(x, o), net.predict(x, o));
  }
  EXPECT_EQ(m.network.config(), c);
  std::remove(path.c_str());
}

INSTANTIATE_TEST_SUITE_P(AllArchitectures, ModelFileRoundTrip,
                         ::testing::Values(TlpArch::Attention, TlpArch::Lstm, TlpArch::Transformer),
                         [](const ::testing::TestParamInfo<TlpArch> &i) { return std::string(tlp_arch_name(i.param)); });

TEST(ModelFile, MetadataRoundTrips) {
  const TlpNetworkConfig c = small_config();
  const std::string path = saved_model("meta");
  const TlpModelInfo want = info_for(c);
  const TlpModelInfo got = read_tlp_model_info(path);
  EXPECT_EQ(got.format_version, kTlpModelFormatVersion);
  EXPECT_EQ(got.network, c);
  EXPECT_EQ(got.featurizer.seq_len, want.featurizer.seq_len);
  EXPECT_EQ(got.featurizer.emb_size, want.featurizer.emb_size);
  EXPECT_EQ(got.featurizer.scaling, FeatureScaling::Log);
  EXPECT_EQ(got.platform, want.platform);
  EXPECT_EQ(got.training.records, 1234);
  EXPECT_EQ(got.training.tasks, 56);
  EXPECT_EQ(got.training.created, want.training.created);
  EXPECT_EQ(got.training.loss, "rank");
  EXPECT_EQ(got.training.epochs, 50);
  EXPECT_EQ(got.training.best_epoch, 17);
  EXPECT_DOUBLE_EQ(got.training.best_val_loss, 0.125);
  EXPECT_DOUBLE_EQ(got.training.seconds, 99.5);
  EXPECT_EQ(got.training.note, want.training.note);
  std::remove(path.c_str());
}

// The file at `path` rewritten with another format version and metadata, its
// checksum made right: what an older or newer tlptune would have written.
void rewrite_model(const std::string &path, uint32_t version, const std::function<void(nlohmann::json &)> &edit) {
  const std::string bytes = read_all(path);
  auto u64 = [&](size_t at) {
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= uint64_t(uint8_t(bytes[at + i])) << (8 * i);
    return v;
  };
  const uint64_t meta_size = u64(12);
  nlohmann::json meta = nlohmann::json::parse(bytes.substr(20, meta_size));
  edit(meta);
  const std::string rest = bytes.substr(20 + meta_size, bytes.size() - 8 - 20 - meta_size);  // weights' size + weights
  const std::string text = meta.dump();
  std::string out = bytes.substr(0, 8);
  for (int i = 0; i < 4; ++i) out.push_back(char((version >> (8 * i)) & 0xff));
  for (int i = 0; i < 8; ++i) out.push_back(char((uint64_t(text.size()) >> (8 * i)) & 0xff));
  out += text + rest;
  uint64_t h = 0xcbf29ce484222325ull;
  for (char c : out) h = (h ^ uint8_t(c)) * 0x100000001b3ull;
  for (int i = 0; i < 8; ++i) out.push_back(char((h >> (8 * i)) & 0xff));
  write_all(path, out);
}

TEST(ModelFile, AFormatOneFileReadsWithTheFeaturesItLeftOutTurnedOff) {
  const std::string path = saved_model("format-1");
  rewrite_model(path, 1, [](nlohmann::json &j) {
    j["featurizer"] = {{"seq_len", 4}, {"emb_size", 22}, {"scaling", "raw"}, {"nest_rows", 0}, {"workload_rows", 0}};
    j["architecture"].erase("output_heads");
  });
  const TlpModelInfo info = read_tlp_model_info(path);
  EXPECT_EQ(info.format_version, 1);
  EXPECT_EQ(info.featurizer.tile_rows, 0);
  EXPECT_FALSE(info.featurizer.split_tails);
  EXPECT_FALSE(info.featurizer.named_loops);
  EXPECT_EQ(info.network.output_heads, 1);
  std::remove(path.c_str());
}

TEST(ModelFile, AFormatOneFileWithLoopNestRowsIsRefused) {
  const std::string path = saved_model("format-1-nest");
  rewrite_model(path, 1, [](nlohmann::json &j) { j["featurizer"]["nest_rows"] = 4; });
  const std::string e = load_error(path);
  EXPECT_TRUE(contains(e, "nest_rows")) << e;
  EXPECT_TRUE(contains(e, "retrain")) << e;
  std::remove(path.c_str());
}

TEST(ModelFile, AFeaturizerSettingThisVersionDoesNotKnowIsRefused) {
  const std::string path = saved_model("unknown-key");
  rewrite_model(path, kTlpModelFormatVersion, [](nlohmann::json &j) { j["featurizer"]["lane_rows"] = 2; });
  const std::string e = load_error(path);
  EXPECT_TRUE(contains(e, "lane_rows")) << e;
  EXPECT_TRUE(contains(e, "newer tlptune")) << e;
  std::remove(path.c_str());
}

TEST(ModelFile, TileRowsRoundTrip) {
  const TlpNetworkConfig c = small_config(TlpArch::Attention, 6, 22);
  TlpModelInfo info = info_for(c);
  info.featurizer.tile_rows = 3;
  const std::string path = temp_path("tiles");
  save_tlp_model(path, TlpNetwork(c, 3), info);
  EXPECT_EQ(read_tlp_model_info(path).featurizer.tile_rows, 3);
  std::remove(path.c_str());
}

TEST(ModelFile, SplitTailsAndNamedLoopsRoundTrip) {
  const TlpNetworkConfig c = small_config(TlpArch::Attention, 6, 34);
  for (const auto &[tails, named] : {std::pair{true, false}, std::pair{false, true}}) {
    TlpModelInfo info = info_for(c);
    info.featurizer.split_tails = tails;
    info.featurizer.named_loops = named;
    const std::string path = temp_path("tails");
    save_tlp_model(path, TlpNetwork(c, 3), info);
    const FeaturizerOptions read = read_tlp_model_info(path).featurizer;
    EXPECT_EQ(read.split_tails, tails);
    EXPECT_EQ(read.named_loops, named);
    std::remove(path.c_str());
  }
}

TEST(ModelFile, TileRowsThatLeaveNoStepRowAreRefused) {
  const TlpNetworkConfig c = small_config(TlpArch::Attention, 4, 22);
  TlpModelInfo info = info_for(c);
  info.featurizer.tile_rows = 4;
  EXPECT_THROW(save_tlp_model(temp_path("bad-tiles"), TlpNetwork(c, 3), info), ModelFileError);
}

TEST(ModelFile, MissingValidationLossStaysMissing) {
  const TlpNetworkConfig c = small_config();
  TlpModelInfo info = info_for(c);
  info.training.best_val_loss = std::nan("");
  const std::string path = temp_path("nan");
  save_tlp_model(path, TlpNetwork(c, 1), info);
  EXPECT_TRUE(std::isnan(read_tlp_model_info(path).training.best_val_loss));
  std::remove(path.c_str());
}

TEST(ModelFile, SaveLeavesNoTemporaryFile) {
  const std::string path = saved_model("tmp");
  EXPECT_FALSE(std::ifstream(path + ".tmp").good());
  std::remove(path.c_str());
}

TEST(ModelFile, ModelForAnotherPlatformIsRefused) {
  const std::string path = saved_model("platform");
  const std::string e = load_error(path, "cpu/Xeon/avx512/threads=8");
  EXPECT_TRUE(contains(e, "cpu/EPYC/avx2/threads=2")) << e;
  EXPECT_TRUE(contains(e, "cpu/Xeon/avx512/threads=8")) << e;
  EXPECT_TRUE(contains(e, "tlptune train")) << e;  // what to do
  EXPECT_EQ(load_error(path, "cpu/EPYC/avx2/threads=2"), "");
  EXPECT_EQ(load_error(path), "");  // no platform asked: any will do
  std::remove(path.c_str());
}

TEST(ModelFile, TruncatedFileIsRefused) {
  const std::string path = saved_model("truncated");
  const std::string bytes = read_all(path);
  for (size_t keep : {size_t(10), size_t(14), size_t(30), bytes.size() / 2, bytes.size() - 9, bytes.size() - 1}) {
    write_all(path, bytes.substr(0, keep));
    const std::string e = load_error(path);
    EXPECT_TRUE(contains(e, "truncated")) << "kept " << keep << " of " << bytes.size() << " bytes: " << e;
    EXPECT_TRUE(contains(e, path)) << e;
    EXPECT_TRUE(contains(e, "train the model again")) << e;
  }
  write_all(path, bytes.substr(0, 5));  // not even the signature
  EXPECT_TRUE(contains(load_error(path), "not a tlptune model"));
  write_all(path, "");
  EXPECT_TRUE(contains(load_error(path), "not a tlptune model"));
  std::remove(path.c_str());
}

TEST(ModelFile, CorruptFileIsRefused) {
  const std::string path = saved_model("corrupt");
  const std::string bytes = read_all(path);
  for (size_t at : {size_t(40), bytes.size() / 2, bytes.size() - 20}) {
    std::string bad = bytes;
    bad[at] = char(bad[at] ^ 0x5a);
    write_all(path, bad);
    const std::string e = load_error(path);
    EXPECT_TRUE(contains(e, "corrupt")) << "byte " << at << ": " << e;
  }
  write_all(path, bytes + "extra");
  EXPECT_TRUE(contains(load_error(path), "corrupt"));
  std::remove(path.c_str());
}

TEST(ModelFile, FileThatIsNotAModelIsRefused) {
  const std::string path = temp_path("foreign");
  write_all(path, "{\"v\":1,\"workload\":\"matmul:M=64,N=64,K=64\",\"target\":\"llvm\"}\n");
  std::string e = load_error(path);
  EXPECT_TRUE(contains(e, "not a tlptune model")) << e;
  EXPECT_TRUE(contains(e, "--model none")) << e;
  write_all(path, std::string("PK\x03\x04", 4) + std::string(100, 'x'));  // a zip, e.g. a bare torch::save
  EXPECT_TRUE(contains(load_error(path), "not a tlptune model"));
  std::remove(path.c_str());
}

TEST(ModelFile, NewerFormatVersionIsRefused) {
  const std::string path = saved_model("newer");
  std::string bytes = read_all(path);
  bytes[8] = char(kTlpModelFormatVersion + 1);  // the version follows the 8-byte signature
  write_all(path, bytes);
  const std::string e = load_error(path);
  EXPECT_TRUE(contains(e, "format version " + std::to_string(kTlpModelFormatVersion + 1))) << e;
  EXPECT_TRUE(contains(e, "newer")) << e;
  EXPECT_TRUE(contains(e, kTlptuneVersion)) << e;
  EXPECT_TRUE(contains(e, "upgrade tlptune")) << e;
  std::remove(path.c_str());
}

TEST(ModelFile, MissingFileIsRefused) {
  const std::string e = load_error(temp_path("does_not_exist"));
  EXPECT_TRUE(contains(e, "cannot read model file")) << e;
}

TEST(ModelFile, ModelFileErrorIsARuntimeError) {
  EXPECT_THROW(load_tlp_model(temp_path("does_not_exist")), std::runtime_error);
}

TEST(ModelFile, SavingAMismatchedInfoIsRefused) {
  const TlpNetworkConfig c = small_config();
  TlpModelInfo info = info_for(c);
  info.featurizer.seq_len = 9;
  info.network.seq_len = 9;
  EXPECT_THROW(save_tlp_model(temp_path("mismatch"), TlpNetwork(c, 1), info), ModelFileError);
  info = info_for(c);
  info.featurizer.emb_size = 30;
  EXPECT_THROW(save_tlp_model(temp_path("mismatch"), TlpNetwork(c, 1), info), ModelFileError);
}

TEST(ModelFile, UnwritablePathIsReported) {
  const TlpNetworkConfig c = small_config();
  try {
    save_tlp_model("/nonexistent-dir/model.tlp", TlpNetwork(c, 1), info_for(c));
    FAIL();
  } catch (const ModelFileError &e) {
    EXPECT_TRUE(contains(e.what(), "cannot write model file")) << e.what();
  }
}

}  // namespace
}  // namespace tlp
