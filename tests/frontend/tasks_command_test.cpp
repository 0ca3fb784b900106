// tlptune tasks: an ONNX model in, its tasks printed and written as a network
// file that tune --network reads; a bad model is one line and a non-zero exit.
#include <string>

#include <gtest/gtest.h>

#include "search/network_spec.h"
#include "tests/frontend/onnx_graph_builder.h"
#include "tests/tuner/cli_test_util.h"

namespace tlp {
namespace {

using testing::OnnxGraphBuilder;
using testing::TempDir;
using testing::tlptune;

std::string quote(const std::string &s) { return "'" + s + "'"; }

TEST(TasksCommand, PrintsTheTasksAndWhatIsNotMappedAndWritesANetworkFile) {
  TempDir d;
  OnnxGraphBuilder b;
  b.input("x", {-1, 64, 28, 28});
  std::string y = b.conv("a", "x", 64, 64, 3, 1, 1, true, true);
  y = b.conv("b", y, 64, 64, 3, 1, 1, true, true);
  b.node("Add", {y, "x"}, {"sum"}, "residual");
  b.output("sum");
  const std::string model = b.save(d / "block.onnx");

  const auto missing = tlptune("tasks " + quote(model));
  EXPECT_EQ(missing.code, 1);
  EXPECT_NE(missing.output.find("tlptune tasks: error: " + model + ": input 'x' dimension 0 is symbolic"),
            std::string::npos)
      << missing.output;

  const auto r = tlptune("tasks " + quote(model) + " --input x=1x64x28x28 --out " + quote(d / "net.json"));
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("1 distinct operators serving 2 occurrences"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("conv2d_bias_relu:N=1,C=64,H=28,W=28,K=64,R=3,S=3,stride=1,pad=1"), std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("a, a_bn, a_relu"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not mapped"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("Add"), std::string::npos) << r.output;
  const NetworkSpec spec = read_network_spec(d / "net.json");
  ASSERT_EQ(spec.tasks.size(), 1u);
  EXPECT_EQ(spec.tasks[0].weight, 2);

  const auto bad = tlptune("tasks " + quote(d.write("x.onnx", "garbage")));
  EXPECT_EQ(bad.code, 1);
  EXPECT_NE(bad.output.find("is not an ONNX model, or is truncated"), std::string::npos) << bad.output;
  EXPECT_FALSE(std::filesystem::exists(d / "none.json"));
}

TEST(TasksCommand, TuneOnnxTunesTheModelsTasksAndKeepsTheirNetworkFileBesideTheLog) {
  TempDir d;
  OnnxGraphBuilder b;
  b.input("x", {-1, 8, 8, 8});
  std::string y = b.conv("a", "x", 8, 8, 3, 1, 1, false, true);
  y = b.conv("b", y, 8, 16, 1, 1, 0, false, false);
  b.output(y);
  const std::string model = b.save(d / "tiny.onnx");
  const std::string log = d / "tiny.jsonl";
  const auto r = tlptune("tune --onnx " + quote(model) + " --input x=1x8x8x8 --trials 4 --batch 2 --policy random "
                         "--final-top 0 --min-seconds 0.01 --no-progress --log " + quote(log));
  ASSERT_EQ(r.code, 0) << r.output;
  const NetworkSpec spec = read_network_spec(d / "tiny.network.json");
  ASSERT_EQ(spec.tasks.size(), 2u);
  EXPECT_EQ(spec.tasks[0].op, "conv2d_bias_relu:N=1,C=8,H=8,W=8,K=8,R=3,S=3,stride=1,pad=1");
  EXPECT_NE(r.output.find("estimated network latency"), std::string::npos) << r.output;
  EXPECT_EQ(testing::read_json_lines(log).size(), 4u);
  const auto both = tlptune("tune --onnx " + quote(model) + " --network x.json --log " + quote(log));
  EXPECT_NE(both.code, 0);
  EXPECT_NE(both.output.find("excludes"), std::string::npos) << both.output;
}

}  // namespace
}  // namespace tlp
