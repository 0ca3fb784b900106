// tlptune export: a tuned network becomes one library that the example in
// examples/network-library links and checks kernel by kernel; a task without a
// kernel is never silently left out; nothing exported names the exporting
// machine's folders.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/tuner/cli_test_util.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;
using testing::CliRun;
using testing::run_program;
using testing::TempDir;
using testing::tlptune;

std::string quote(const std::string &s) { return "'" + s + "'"; }

std::string read_file(const std::string &path) {
  std::ifstream f(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>());
}

// A dense layer and a channel-blocked conv, both reading their weights packed, and a pool.
constexpr const char *kNetwork = R"({"format": 1, "name": "tiny", "tasks": [
  {"op": "dense_bias_relu:M=8,N=64,K=32,layout=NK16n", "weight": 2, "onnx_nodes": [["/fc/Gemm", "/fc/Relu"], ["/fc2/Gemm", "/fc2/Relu"]]},
  {"op": "conv2d_bias_relu:N=1,C=16,H=8,W=8,K=16,R=3,S=3,stride=1,pad=1,layout=NCHW16c", "weight": 1,
   "onnx_nodes": [["/conv/Conv"]]},
  {"op": "max_pool2d:N=1,C=16,H=8,W=8,R=2,S=2,stride=2,pad=0", "weight": 1}]})";

CliRun tune_network(const std::string &network, const std::string &log) {
  return tlptune("tune --network " + quote(network) + " --trials 9 --no-progress --min-seconds 0.01 --final-top 0 --log " +
                 quote(log));
}

// Configures, builds and runs the example against the package in `pkg`.
CliRun build_and_run_example(const TempDir &d, const std::string &pkg) {
  const std::string build = d / "example-build";
  CliRun configure = run_program(TLP_CMAKE_COMMAND, "-S " + quote(std::string(TLP_SOURCE_DIR) + "/examples/network-library") +
                                                        " -B " + quote(build) + " -Dtlptune_kernels_DIR=" +
                                                        quote(pkg + "/lib/cmake/tlptune_kernels"));
  if (configure.code != 0) return configure;
  CliRun make = run_program(TLP_CMAKE_COMMAND, "--build " + quote(build));
  if (make.code != 0) return make;
  return run_program(build + "/check_kernels", "");
}

TEST(Export, ATunedNetworkLinksIntoTheExampleAndEveryKernelPassesItsCheck) {
  TempDir d;
  const std::string network = d.write("tiny.json", kNetwork), log = d / "l.jsonl", pkg = d / "pkg";
  CliRun tune = tune_network(network, log);
  ASSERT_EQ(tune.code, 0) << tune.output;
  CliRun e = tlptune("export " + quote(log) + " --network " + quote(network) + " --out " + quote(pkg));
  ASSERT_EQ(e.code, 0) << e.output;
  EXPECT_NE(e.output.find("exported 3 of 3 tasks of tiny"), std::string::npos) << e.output;

  const std::string header = read_file(pkg + "/include/tlptune_kernels.h");
  EXPECT_NE(header.find("int tlp_dense_bias_relu_M8_N64_K32_layoutNK16n(struct halide_buffer_t *A"), std::string::npos)
      << header;
  EXPECT_NE(header.find("tlp_dense_bias_relu_M8_N64_K32_layoutNK16n_pack1(struct halide_buffer_t *plain"),
            std::string::npos)
      << "the dense layer's B packing is declared beside it";
  EXPECT_NE(header.find("ONNX nodes: /fc/Gemm, /fc/Relu; /fc2/Gemm, /fc2/Relu"), std::string::npos) << header;
  EXPECT_NE(header.find("_layoutNCHW16c_pack1(struct halide_buffer_t *plain"), std::string::npos)
      << "the blocked conv's weight packing is declared beside it";
  const auto manifest = nlohmann::json::parse(read_file(pkg + "/share/tlptune_kernels/kernels.json"));
  EXPECT_EQ(manifest.at("format"), "tlptune-kernels");
  EXPECT_EQ(manifest.at("version"), 1);
  EXPECT_EQ(manifest.at("tasks").size(), 3u);
  EXPECT_EQ(manifest.at("tasks")[0].at("packings").size(), 1u);
  EXPECT_EQ(manifest.at("tasks")[1].at("packings").size(), 1u);

  // The package may be moved: no file a build reads names the folder it was exported to.
  for (const auto &f : fs::recursive_directory_iterator(pkg)) {
    if (!f.is_regular_file() || f.path().extension() == ".a") continue;
    EXPECT_EQ(read_file(f.path().string()).find(fs::absolute(pkg).string()), std::string::npos) << f.path();
  }
  const std::string moved = d / "moved";
  fs::rename(pkg, moved);

  CliRun run = build_and_run_example(d, moved);
  ASSERT_EQ(run.code, 0) << run.output;
  EXPECT_NE(run.output.find("3 of 3 kernels passed"), std::string::npos) << run.output;

  // The check can fail: a reference value off by much more than the tolerance.
  const std::string check = moved + "/share/tlptune_kernels/check/tlp_dense_bias_relu_M8_N64_K32_layoutNK16n.check";
  std::fstream f(check, std::ios::in | std::ios::out | std::ios::binary);
  const float wrong = 1e6f;
  f.seekp(32);  // the first value, after the 32-byte header
  f.write(reinterpret_cast<const char *>(&wrong), 4);
  f.close();
  CliRun bad = run_program(d / "example-build/check_kernels", "");
  EXPECT_NE(bad.code, 0) << bad.output;
  EXPECT_NE(bad.output.find("FAIL  tlp_dense_bias_relu_M8_N64_K32_layoutNK16n"), std::string::npos) << bad.output;
  EXPECT_NE(bad.output.find("2 of 3 kernels passed"), std::string::npos) << bad.output;
}

TEST(Export, ATaskWithoutAKernelFailsTheExportUnlessMissingOnesAreAllowed) {
  TempDir d;
  const std::string tuned = d.write("one.json", R"({"format": 1, "name": "one", "tasks": [
      {"op": "max_pool2d:N=1,C=16,H=8,W=8,R=2,S=2,stride=2,pad=0"}]})");
  const std::string network = d.write("two.json", R"({"format": 1, "name": "two", "tasks": [
      {"op": "max_pool2d:N=1,C=16,H=8,W=8,R=2,S=2,stride=2,pad=0"}, {"op": "softmax:M=4,N=32", "weight": 3}]})");
  const std::string log = d / "l.jsonl", pkg = d / "pkg";
  ASSERT_EQ(tune_network(tuned, log).code, 0);

  CliRun refused = tlptune("export " + quote(log) + " --network " + quote(network) + " --out " + quote(pkg));
  EXPECT_EQ(refused.code, 1) << refused.output;
  EXPECT_NE(refused.output.find("1 of 2 tasks have no valid kernel"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("softmax:M=4,N=32"), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("--allow-missing"), std::string::npos) << refused.output;
  EXPECT_FALSE(fs::exists(pkg + "/lib/libtlptune_kernels.a")) << "a refused export writes no library";

  CliRun allowed = tlptune("export " + quote(log) + " --network " + quote(network) + " --out " + quote(pkg) +
                           " --allow-missing");
  ASSERT_EQ(allowed.code, 0) << allowed.output;
  EXPECT_NE(allowed.output.find("missing   softmax:M=4,N=32"), std::string::npos) << allowed.output;
  EXPECT_NE(allowed.output.find("1 task(s) missing"), std::string::npos) << allowed.output;
  EXPECT_NE(read_file(pkg + "/include/tlptune_kernels.h").find("softmax:M=4,N=32: NOT EXPORTED"), std::string::npos);
  const auto manifest = nlohmann::json::parse(read_file(pkg + "/share/tlptune_kernels/kernels.json"));
  EXPECT_EQ(manifest.at("missing"), 1);
  EXPECT_TRUE(manifest.at("tasks")[1].contains("missing"));
}

TEST(Export, BadInputIsOneLineNamingTheFault) {
  TempDir d;
  const std::string network = d.write("n.json", R"({"format": 1, "tasks": [{"op": "softmax:M=4,N=32"}]})");
  const std::string log = d.write("l.jsonl", "");
  const auto one_line_error = [](const CliRun &r, const std::string &part) {
    EXPECT_EQ(r.code, 1) << r.output;
    EXPECT_NE(r.output.find(part), std::string::npos) << r.output;
  };
  one_line_error(tlptune("export " + quote(log) + " --network " + quote(network) + " --out " + quote(d / "o")),
                 "holds no valid measurement");
  one_line_error(tlptune("export " + quote(log) + " --network " + quote(d / "none.json") + " --out " + quote(d / "o")),
                 "none.json");
  EXPECT_NE(tlptune("export " + quote(log) + " --out " + quote(d / "o")).code, 0) << "--network is required";
}

}  // namespace
}  // namespace tlp

namespace tlp {
namespace {

TEST(ShowNetwork, SumsTheTasksAsTheLogServesThemAndPutsOneDnnBesideThemOverTheSameOperators) {
  TempDir d;
  const std::string network = d.write("n.json", R"({"format": 1, "name": "small", "tasks": [
      {"op": "conv2d_residual:N=1,C=16,H=8,W=8,K=16,R=3,S=3,stride=1,pad=1,relu=1", "weight": 2},
      {"op": "max_pool2d:N=1,C=16,H=8,W=8,R=2,S=2,stride=2,pad=0"}]})");
  const std::string log = d / "l.jsonl";
  ASSERT_EQ(tune_network(network, log).code, 0);
  CliRun show = tlptune("show " + quote(log) + " --network " + quote(network) + " --peers onednn --json " +
                        quote(d / "s.json"));
  ASSERT_EQ(show.code, 0) << show.output;
  EXPECT_NE(show.output.find("network   small (2 tasks)"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("estimated network latency:"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("over the 1 tasks both have"), std::string::npos) << show.output;
  EXPECT_NE(show.output.find("(not in the library)"), std::string::npos) << "the pool is left out of both sums";
  const auto j = nlohmann::json::parse(read_file(d / "s.json"));
  const auto &peer = j.at("network").at("peers").at(0);
  EXPECT_EQ(peer.at("peer"), "onednn");
  EXPECT_EQ(peer.at("compared_tasks"), 1);
  EXPECT_GT(peer.at("peer_latency_seconds").get<double>(), 0);
  EXPECT_GT(j.at("network").at("estimated_latency_seconds").get<double>(),
            peer.at("tlptune_latency_seconds").get<double>())
      << "the estimate counts the pool too";

  CliRun stray = tlptune("show " + quote(log) + " --peers onednn");
  EXPECT_EQ(stray.code, 1) << stray.output;
  EXPECT_NE(stray.output.find("--peers applies to a network"), std::string::npos) << stray.output;
}

}  // namespace
}  // namespace tlp
