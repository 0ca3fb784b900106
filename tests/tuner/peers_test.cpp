// tlptune peers: the peer bench's workload-key parser, the peer list, the child
// environment, and end-to-end runs of `tlptune peers` (OpenBLAS through
// tlptune-peer-bench, Halide's Mullapudi2016 through the runner), including a
// wrong answer that must be reported as one. Timings are never asserted.
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "codegen/halide_autoscheduler.h"
#include "codegen/operator.h"
#include "measure/library_baselines/peer_workload.h"
#include "measure/task_data.h"
#include "tuner/peer_baselines.h"

#include "tests/tuner/cli_test_util.h"

namespace {

using tlp::testing::CliRun;
using tlp::testing::TempDir;
using tlp::testing::tlptune;

namespace fs = std::filesystem;
using namespace tlp;


nlohmann::json read_json(const std::string &path) {
  std::ifstream f(path);
  return nlohmann::json::parse(f);
}

const nlohmann::json &peer_entry(const nlohmann::json &report, const std::string &peer) {
  for (const auto &p : report.at("peers"))
    if (p.at("peer") == peer) return p;
  throw std::runtime_error("no entry for " + peer + " in " + report.dump());
}

// ---------------------------------------------------------------------------
// The peer bench's own workload-key parser (it links no codegen).

TEST(PeerWorkload, ParsesAKeyAsTlptuneWritesIt) {
  const std::string key = make_operator("matmul:M=64,N=32,K=16")->workload().key();
  const peer::PeerWorkload w = peer::parse_peer_workload(key);
  EXPECT_EQ(w.kind, "matmul");
  EXPECT_EQ(w.key, key);
  EXPECT_EQ(w.get_int("M"), 64);
  EXPECT_EQ(w.get_int("N"), 32);
  EXPECT_EQ(w.get_int("K"), 16);
  const peer::GemmShape g = peer::gemm_shape(w);
  EXPECT_EQ(g.batch, 1);
  EXPECT_EQ(peer::gemm_input_sizes(g), (std::vector<int64_t>{64 * 16, 16 * 32}));
  EXPECT_DOUBLE_EQ(peer::workload_flops(w), make_operator(key)->flops());
}

TEST(PeerWorkload, ConvGeometryMatchesTheOperatorLibrary) {
  for (const std::string spec : {"conv2d:N=2,C=8,H=15,W=13,K=4,R=3,S=5,stride=2,pad=1,dilation=2",
                                 "conv2d_bias_relu:C=8,H=9,W=9,K=4,layout=NHWC",
                                 "depthwise_conv2d:C=6,H=10,W=12,R=3,S=3,stride=2,pad=1"}) {
    SCOPED_TRACE(spec);
    auto op = make_operator(spec);
    const peer::PeerWorkload w = peer::parse_peer_workload(op->workload().key());
    const peer::ConvShape c = peer::conv_shape(w);
    int64_t out = 1;
    for (int64_t e : op->output_shape()) out *= e;
    EXPECT_EQ(peer::conv_output_size(c), out);
    const auto shapes = op->input_shapes();
    const auto sizes = peer::conv_input_sizes(c);
    ASSERT_EQ(sizes.size(), shapes.size());
    for (size_t i = 0; i < sizes.size(); ++i) {
      int64_t n = 1;
      for (int64_t e : shapes[i]) n *= e;
      EXPECT_EQ(sizes[i], n) << "input " << i;
    }
    EXPECT_DOUBLE_EQ(peer::workload_flops(w), op->flops());
  }
}

TEST(PeerWorkload, RejectsMalformedKeysWithAReason) {
  auto message = [](const std::string &key) {
    try {
      const peer::PeerWorkload w = peer::parse_peer_workload(key);
      peer::gemm_shape(w);
    } catch (const peer::PeerWorkloadError &e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("matmul").find("no ':'"), std::string::npos);
  EXPECT_NE(message("matmul:M=4").find("lacks parameter 'N'"), std::string::npos);
  EXPECT_NE(message("matmul:M=4,N=x,K=2").find("N='x' is not a whole number"), std::string::npos);
  EXPECT_NE(message("matmul:M=4,N=0,K=2").find("out of range"), std::string::npos);
  EXPECT_NE(message("matmul:M=4,M=4,N=1,K=2").find("twice"), std::string::npos);
  EXPECT_NE(message("matmul:M=4,,K=2").find("not PARAM=VALUE"), std::string::npos);
  EXPECT_NE(message("softmax:M=4,N=4").find("not a GEMM"), std::string::npos);
}

TEST(PeerWorkload, SaysWhichLibraryAppliesToWhat) {
  EXPECT_EQ(peer::library_unsupported_reason("openblas", "batch_matmul"), "");
  EXPECT_EQ(peer::library_unsupported_reason("onednn", "depthwise_conv2d"), "");
  EXPECT_NE(peer::library_unsupported_reason("openblas", "softmax").find("GEMM"), std::string::npos);
  EXPECT_EQ(peer::library_unsupported_reason("onednn", "matmul"), "");
  EXPECT_EQ(peer::library_unsupported_reason("onednn", "dense_bias_relu"), "");
  EXPECT_NE(peer::library_unsupported_reason("onednn", "softmax").find("convolutions and GEMMs"), std::string::npos);
}

// ---------------------------------------------------------------------------
// Peer names and the peer bench's environment.

TEST(Peers, PeerListIsCaseInsensitiveAndRejectsUnknownNames) {
  EXPECT_EQ(parse_peer_list("Adams2019, openblas,adams2019"), (std::vector<std::string>{"adams2019", "openblas"}));
  try {
    parse_peer_list("openblas,mkl");
    FAIL() << "mkl accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("unknown peer 'mkl'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("mullapudi2016"), std::string::npos) << e.what();
  }
}

TEST(Peers, PeerBenchEnvironmentDropsOnlyTheOpenblasOverrides) {
  const std::vector<std::string> env = {"PATH=/usr/bin", "OPENBLAS_CORETYPE=Prescott", "OPENBLAS_L2_SIZE=262144",
                                        "OPENBLAS_NUM_THREADS=2", "OPENBLAS_CORETYPE_X=1"};
  EXPECT_EQ(environment_without(env, peer_bench_removed_variables()),
            (std::vector<std::string>{"PATH=/usr/bin", "OPENBLAS_NUM_THREADS=2", "OPENBLAS_CORETYPE_X=1"}));
}

TEST(Peers, UnknownAutoschedulerIsAClearError) {
  auto op = make_operator("matmul:M=8,N=8,K=8");
  try {
    autoschedule_with_halide(*op, "Smith2030", Halide::get_host_target(), 1);
    FAIL() << "accepted";
  } catch (const std::runtime_error &e) {
    EXPECT_NE(std::string(e.what()).find("unknown Halide autoscheduler 'Smith2030'"), std::string::npos) << e.what();
  }
}

// ---------------------------------------------------------------------------
// The command.

// The task data a bundle carries: inputs generated from seeds, the reference
// at sampled positions. The peer bench reads it as the runner does.
TEST(PeerBench, ReadsPortableTaskDataWithASampledReferenceAndChecksIt) {
  TempDir d;
  const auto op = make_operator("matmul:M=32,N=48,K=16");
  const std::string task = d / "task";
  write_portable_task_data(*op, task, 1, 100);  // 100 of the 1,536 outputs
  const std::string bench = (std::filesystem::path(TLPTUNE_PATH).parent_path() / "tlptune-peer-bench").string();
  auto run = [&] {
    const std::string cmd = "'" + bench + "' --workload '" + op->workload().key() +
                            "' --library openblas --min-seconds 0 --data '" + task + "' 2>&1";
    std::string out;
    FILE *p = popen(cmd.c_str(), "r");
    char buf[4096];
    for (size_t n; p && (n = fread(buf, 1, sizeof buf, p)) > 0;) out.append(buf, n);
    if (p) pclose(p);
    return nlohmann::json::parse(out.substr(out.rfind('{')));
  };
  const nlohmann::json ok = run();
  EXPECT_EQ(ok.at("error"), "none") << ok.dump();
  EXPECT_TRUE(ok.at("checked").get<bool>());
  {  // A wrong sampled reference value is caught.
    std::fstream f(task + "/ref.f32", std::ios::in | std::ios::out | std::ios::binary);
    const float bogus = 12345.0f;
    f.write(reinterpret_cast<const char *>(&bogus), sizeof bogus);
  }
  EXPECT_EQ(run().at("error"), "wrong_answer");
}

TEST(PeersCli, OpenblasOnASmallMatmul) {
  TempDir d;
  CliRun r = tlptune("peers --op matmul:M=64,N=64,K=64 --peers openblas --min-seconds 0.02 --json '" + (d / "p.json") + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("GFLOP/s"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("OpenBLAS cblas_sgemm, core "), std::string::npos) << r.output;
  const nlohmann::json j = read_json(d / "p.json");
  const auto &p = peer_entry(j, "openblas");
  EXPECT_EQ(p.at("error"), "none");
  EXPECT_TRUE(p.at("checked").get<bool>());
  EXPECT_GT(p.at("gflops").get<double>(), 0);
  EXPECT_GE(p.at("costs").size(), 3u);
}

TEST(PeersCli, APeerIsTimedInRoundsAndItsFigureIsTheFastestRound) {
  TempDir d;
  CliRun r = tlptune("peers --op matmul:M=64,N=64,K=64 --peers openblas --min-seconds 0.01 --rounds 3 --json '" +
                     (d / "p.json") + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("medians of its 3 rounds"), std::string::npos) << r.output;
  const nlohmann::json p = peer_entry(read_json(d / "p.json"), "openblas");  // a copy: the report is a temporary
  const std::vector<double> rounds = p.at("round_medians").get<std::vector<double>>();
  ASSERT_EQ(rounds.size(), 3u);
  for (double m : rounds) EXPECT_GT(m, 0);
  EXPECT_EQ(p.at("median_seconds").get<double>(), *std::min_element(rounds.begin(), rounds.end()));
}

TEST(PeersCli, ZeroRoundsIsRefused) {
  CliRun r = tlptune("peers --op matmul:M=64,N=64,K=64 --peers openblas --rounds 0");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("--rounds must be at least 1"), std::string::npos) << r.output;
}

TEST(PeersCli, UnknownPeerIsAClearError) {
  CliRun r = tlptune("peers --op matmul:M=64,N=64,K=64 --peers openblas,tvm");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("unknown peer 'tvm'"), std::string::npos) << r.output;
}

TEST(PeersCli, PeersThatDoNotApplyAreSkippedWithANote) {
  CliRun r = tlptune("peers --op softmax:M=8,N=8 --peers openblas");
  EXPECT_NE(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("none of the requested peers applies"), std::string::npos) << r.output;
}

TEST(PeersCli, MullapudiKernelPassesTheRunnersCheck) {
  TempDir d;
  CliRun r = tlptune("peers --op matmul:M=48,N=40,K=24 --peers mullapudi2016,openblas --min-seconds 0.02 --quiet --json '" +
                     (d / "p.json") + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("Halide Mullapudi2016"), std::string::npos) << r.output;
  const nlohmann::json j = read_json(d / "p.json");
  const auto &p = peer_entry(j, "mullapudi2016");
  EXPECT_EQ(p.at("error"), "none") << p.dump();
  EXPECT_TRUE(p.at("checked").get<bool>());
  EXPECT_LT(p.at("max_abs_error").get<double>(), 1e-2);
  EXPECT_NE(p.at("schedule_source").get<std::string>().find("Mullapudi2016"), std::string::npos);
}

// Times `op` in oneDNN and returns its entry, which passed the runner's check.
nlohmann::json onednn_checked(const TempDir &d, const std::string &op) {
  CliRun r = tlptune("peers --op " + op + " --peers onednn --min-seconds 0.02 --quiet --json '" + (d / "p.json") + "'");
  EXPECT_EQ(r.code, 0) << r.output;
  const nlohmann::json p = peer_entry(read_json(d / "p.json"), "onednn");
  EXPECT_EQ(p.at("error"), "none") << p.dump();
  EXPECT_TRUE(p.at("checked").get<bool>());
  return p;
}

// oneDNN's matmul beside OpenBLAS sgemm, B reordered into oneDNN's own layout
// before timing, the result checked like every peer's.
TEST(PeersCli, OneDnnTimesMatmulsAndDenseLayersAndPassesTheCheck) {
  TempDir d;
  for (const std::string op : {"matmul:M=48,N=40,K=24", "dense_bias_relu:M=16,N=40,K=24", "batch_matmul:B=2,M=8,N=8,K=8"}) {
    SCOPED_TRACE(op);
    const nlohmann::json p = onednn_checked(d, op);
    EXPECT_NE(p.at("what_ran").get<std::string>().find("matmul"), std::string::npos) << p.dump();
  }
}

// The data in NHWC reaches oneDNN as NHWC: a depthwise convolution's layout is out of
// its key at NCHW, and was once read as NCHW whatever the key said.
TEST(PeersCli, OneDnnTimesConvolutionsInNhwcAndPassesTheCheck) {
  TempDir d;
  for (const std::string op : {"depthwise_conv2d:C=16,H=9,W=7,R=3,S=3,stride=2,pad=1,layout=NHWC",
                               "conv2d_bias_relu:C=8,H=9,W=9,K=16,layout=NHWC"}) {
    SCOPED_TRACE(op);
    onednn_checked(d, op);
  }
}

TEST(PeersCli, AWrongAnswerIsReportedNotHidden) {
  TempDir d;
  const std::string work = d / "work";
  const std::string common = "peers --op matmul:M=32,N=32,K=32 --peers mullapudi2016,openblas --min-seconds 0.01 --quiet "
                             "--work-dir '" + work + "'";
  ASSERT_EQ(tlptune(common).code, 0);
  {  // Corrupt the reference: the task data is reused, so every peer now disagrees with it.
    std::fstream f(work + "/task/ref.f32", std::ios::in | std::ios::out | std::ios::binary);
    const float bogus = 12345.0f;
    f.write(reinterpret_cast<const char *>(&bogus), sizeof bogus);
  }
  CliRun r = tlptune(common + " --json '" + (d / "p.json") + "'");
  EXPECT_EQ(r.code, 1) << r.output;
  EXPECT_NE(r.output.find("2 of 2 peers failed"), std::string::npos) << r.output;
  const nlohmann::json j = read_json(d / "p.json");
  for (const std::string peer : {"mullapudi2016", "openblas"}) {
    EXPECT_EQ(peer_entry(j, peer).at("error"), "wrong_answer") << peer;
    EXPECT_FALSE(peer_entry(j, peer).contains("gflops")) << peer;
  }
}

}  // namespace
