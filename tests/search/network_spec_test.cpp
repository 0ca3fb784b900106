// Network workload files: the example networks parse with the counts derived in
// examples/networks/README.md, and every malformed file is refused with a message
// that names the fault.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "search/network_spec.h"
#include "tests/temp_dir.h"

namespace tlp {
namespace {

namespace fs = std::filesystem;

// examples/networks, found from this source file's path (tests/search/...).
std::string networks_dir() {
  return (fs::path(__FILE__).parent_path().parent_path().parent_path() / "examples" / "networks").string();
}

using testing::TempDir;

std::string kind_of(const std::string &op) { return op.substr(0, op.find(':')); }

struct Totals {
  std::map<std::string, double> weight_by_kind;
  std::map<std::string, int> distinct_by_kind;
  double total = 0;
};

Totals totals(const NetworkSpec &spec) {
  Totals t;
  for (const auto &task : spec.tasks) {
    t.weight_by_kind[kind_of(task.op)] += task.weight;
    t.distinct_by_kind[kind_of(task.op)] += 1;
    t.total += task.weight;
  }
  return t;
}

std::map<std::string, double> weight_by_op(const NetworkSpec &spec) {
  std::map<std::string, double> w;
  for (const auto &task : spec.tasks) w[task.op] = task.weight;
  return w;
}

// The error message of reading `path`, or "" if it was read.
std::string error_of(const std::string &path) {
  try {
    read_network_spec(path);
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  return "";
}

// ---- The example networks ----

TEST(ExampleNetworks, EveryFileInTheFolderParsesWithDistinctWellFormedOps) {
  int files = 0;
  for (const auto &entry : fs::directory_iterator(networks_dir())) {
    if (entry.path().extension() != ".json") continue;
    ++files;
    SCOPED_TRACE(entry.path().string());
    const NetworkSpec spec = read_network_spec(entry.path().string());
    EXPECT_EQ(spec.name, entry.path().stem().string());
    EXPECT_FALSE(spec.description.empty());
    std::set<std::string> ops;
    for (const auto &task : spec.tasks) {
      EXPECT_TRUE(ops.insert(task.op).second) << task.op;
      EXPECT_NE(task.op.find(':'), std::string::npos) << task.op;
      EXPECT_EQ(task.op.find(' '), std::string::npos) << task.op;
      // Every weight is a whole number of occurrences.
      EXPECT_GE(task.weight, 1);
      EXPECT_EQ(task.weight, static_cast<double>(static_cast<int>(task.weight))) << task.op;
    }
  }
  EXPECT_EQ(files, 3);
}

TEST(ExampleNetworks, ResNet50Has53ConvolutionsOnePoolAndOneClassifierIn25Tasks) {
  const NetworkSpec spec = read_network_spec(networks_dir() + "/resnet50.json");
  EXPECT_EQ(spec.name, "resnet50");
  ASSERT_EQ(spec.tasks.size(), 25u);
  const Totals t = totals(spec);
  EXPECT_EQ(t.weight_by_kind.at("conv2d_bias_relu"), 33);  // stem + 2 per bottleneck x 16
  EXPECT_EQ(t.weight_by_kind.at("conv2d"), 20);            // 16 bottleneck expands + 4 shortcuts
  EXPECT_EQ(t.weight_by_kind.at("conv2d_bias_relu") + t.weight_by_kind.at("conv2d"), 53);
  EXPECT_EQ(t.weight_by_kind.at("max_pool2d"), 1);
  EXPECT_EQ(t.weight_by_kind.at("matmul"), 1);
  EXPECT_EQ(t.weight_by_kind.size(), 4u);
  EXPECT_EQ(t.total, 55);
  EXPECT_EQ(t.distinct_by_kind.at("conv2d_bias_relu"), 16);
  EXPECT_EQ(t.distinct_by_kind.at("conv2d"), 7);

  EXPECT_EQ(spec.tasks.front().op, "conv2d_bias_relu:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3");
  EXPECT_EQ(spec.tasks.front().weight, 1);
  EXPECT_EQ(spec.tasks.back().op, "matmul:M=1,N=1000,K=2048");
  const auto w = weight_by_op(spec);
  // Stage 1's projection shortcut has the shape of its bottlenecks' last 1x1: merged.
  EXPECT_EQ(w.at("conv2d:N=1,C=64,H=56,W=56,K=256,R=1,S=1,stride=1,pad=0"), 4);
  EXPECT_EQ(w.at("conv2d:N=1,C=256,H=14,W=14,K=1024,R=1,S=1,stride=1,pad=0"), 6);
  EXPECT_EQ(w.at("conv2d_bias_relu:N=1,C=256,H=14,W=14,K=256,R=3,S=3,stride=1,pad=1"), 5);
  EXPECT_EQ(w.at("conv2d_bias_relu:N=1,C=512,H=14,W=14,K=512,R=3,S=3,stride=2,pad=1"), 1);  // v1.5
  EXPECT_EQ(w.at("conv2d:N=1,C=1024,H=14,W=14,K=2048,R=1,S=1,stride=2,pad=0"), 1);
}

TEST(ExampleNetworks, MobileNetV2Has52ConvolutionsAndOneClassifierIn31Tasks) {
  const NetworkSpec spec = read_network_spec(networks_dir() + "/mobilenet_v2.json");
  EXPECT_EQ(spec.name, "mobilenet_v2");
  ASSERT_EQ(spec.tasks.size(), 31u);
  const Totals t = totals(spec);
  EXPECT_EQ(t.weight_by_kind.at("conv2d_bias_relu"), 18);  // stem + 16 expansions + last 1x1
  EXPECT_EQ(t.weight_by_kind.at("depthwise_conv2d"), 17);  // one per block
  EXPECT_EQ(t.weight_by_kind.at("conv2d"), 17);            // one linear projection per block
  EXPECT_EQ(t.weight_by_kind.at("matmul"), 1);
  EXPECT_EQ(t.weight_by_kind.size(), 4u);
  EXPECT_EQ(t.total, 53);
  EXPECT_EQ(t.distinct_by_kind.at("conv2d_bias_relu"), 8);
  EXPECT_EQ(t.distinct_by_kind.at("depthwise_conv2d"), 10);
  EXPECT_EQ(t.distinct_by_kind.at("conv2d"), 12);

  const auto w = weight_by_op(spec);
  EXPECT_EQ(w.at("conv2d_bias_relu:N=1,C=3,H=224,W=224,K=32,R=3,S=3,stride=2,pad=1"), 1);
  EXPECT_EQ(w.at("depthwise_conv2d:N=1,C=384,H=14,W=14,R=3,S=3,stride=1,pad=1"), 4);
  EXPECT_EQ(w.at("conv2d_bias_relu:N=1,C=64,H=14,W=14,K=384,R=1,S=1,stride=1,pad=0"), 4);
  EXPECT_EQ(w.at("conv2d_bias_relu:N=1,C=320,H=7,W=7,K=1280,R=1,S=1,stride=1,pad=0"), 1);
  EXPECT_EQ(w.at("matmul:M=1,N=1000,K=1280"), 1);
}

TEST(ExampleNetworks, BertBaseHas133OperatorsIn7Tasks) {
  const NetworkSpec spec = read_network_spec(networks_dir() + "/bert_base.json");
  EXPECT_EQ(spec.name, "bert_base");
  ASSERT_EQ(spec.tasks.size(), 7u);
  const std::map<std::string, double> expected = {
      {"matmul:M=128,N=768,K=768", 48},  // Q, K, V, attention output x 12
      {"batch_matmul:B=12,M=128,N=128,K=64", 12},
      {"softmax:M=1536,N=128", 12},
      {"batch_matmul:B=12,M=128,N=64,K=128", 12},
      {"layernorm:M=128,N=768", 25},  // 2 per layer + the embedding LayerNorm
      {"dense_bias_relu:M=128,N=3072,K=768", 12},
      {"matmul:M=128,N=768,K=3072", 12},
  };
  EXPECT_EQ(weight_by_op(spec), expected);
  EXPECT_EQ(totals(spec).total, 133);
}

// ---- Reading: defaults ----

TEST(ReadNetworkSpec, KeepsFileOrderAndDefaultsNameToTheFileStemAndWeightToOne) {
  TempDir dir;
  const std::string p = dir.write("tiny_net.json", R"({"format": 1, "notes": ["ignored"],
      "tasks": [{"op": "softmax:M=4,N=8"}, {"op": "matmul:M=1,N=2,K=3", "weight": 2.5}]})");
  const NetworkSpec spec = read_network_spec(p);
  EXPECT_EQ(spec.name, "tiny_net");
  EXPECT_EQ(spec.description, "");
  ASSERT_EQ(spec.tasks.size(), 2u);
  EXPECT_EQ(spec.tasks[0].op, "softmax:M=4,N=8");
  EXPECT_EQ(spec.tasks[0].weight, 1.0);
  EXPECT_EQ(spec.tasks[1].op, "matmul:M=1,N=2,K=3");
  EXPECT_EQ(spec.tasks[1].weight, 2.5);
}

TEST(ReadNetworkSpec, KeepsTheOnnxNodesEachTaskServesInOrder) {
  TempDir dir;
  const std::string p = dir.write("n.json", R"({"format": 1, "tasks": [
      {"op": "conv2d_bias_relu:N=1,C=8,H=4,W=4,K=8", "weight": 2,
       "onnx_nodes": [["/conv1/Conv", "/bn1/BatchNormalization", "/relu/Relu"], ["/conv2/Conv", "/relu2/Relu"]]},
      {"op": "softmax:M=4,N=8"}]})");
  const NetworkSpec spec = read_network_spec(p);
  EXPECT_EQ(spec.tasks.at(0).onnx_nodes,
            (std::vector<std::vector<std::string>>{{"/conv1/Conv", "/bn1/BatchNormalization", "/relu/Relu"},
                                                   {"/conv2/Conv", "/relu2/Relu"}}));
  EXPECT_TRUE(spec.tasks.at(1).onnx_nodes.empty());
}

TEST(ReadNetworkSpec, DoesNotValidateTheOpSpecItself) {
  TempDir dir;
  const std::string p = dir.write("n.json", R"({"format": 1, "name": "x", "tasks": [{"op": "no_such_op:Q=1"}]})");
  EXPECT_EQ(read_network_spec(p).tasks.at(0).op, "no_such_op:Q=1");
}

// ---- Reading: each error and its message ----

struct BadFile {
  std::string label;
  std::string text;
  std::vector<std::string> message_parts;
};

TEST(ReadNetworkSpec, EachMalformedFileIsRefusedWithAOneLineMessageNamingTheFault) {
  const std::vector<BadFile> cases = {
      {"invalid JSON", "{\"format\": 1,\n \"tasks\": [\n  {\"op\": \"x\",, }]}",
       {"invalid JSON", "line 3", "column"}},
      {"not an object", "[1, 2]", {"top level must be a JSON object", "array"}},
      {"missing format", R"({"tasks": [{"op": "softmax"}]})", {"missing \"format\""}},
      {"newer format", R"({"format": 2, "tasks": [{"op": "softmax"}]})", {"format 2 is newer", "newer tlptune"}},
      {"unknown format", R"({"format": 0, "tasks": [{"op": "softmax"}]})", {"unknown format 0"}},
      {"format not an integer", R"({"format": "1", "tasks": [{"op": "softmax"}]})",
       {"\"format\" must be an integer", "string"}},
      {"missing tasks", R"({"format": 1, "name": "n"})", {"missing \"tasks\""}},
      {"tasks not an array", R"({"format": 1, "tasks": {"op": "softmax"}})", {"\"tasks\" must be an array"}},
      {"empty tasks", R"({"format": 1, "tasks": []})", {"\"tasks\" is empty"}},
      {"task not an object", R"({"format": 1, "tasks": ["softmax"]})", {"tasks[0] must be an object"}},
      {"task without op", R"({"format": 1, "tasks": [{"op": "softmax"}, {"weight": 2}]})",
       {"tasks[1] has no \"op\""}},
      {"op not a string", R"({"format": 1, "tasks": [{"op": 7}]})", {"tasks[0]", "\"op\" must be a non-empty string"}},
      {"empty op", R"({"format": 1, "tasks": [{"op": ""}]})", {"tasks[0]", "\"op\" must be a non-empty string"}},
      {"zero weight", R"({"format": 1, "tasks": [{"op": "softmax", "weight": 0}]})",
       {"tasks[0] (softmax)", "\"weight\" must be a number > 0", "got 0"}},
      {"negative weight", R"({"format": 1, "tasks": [{"op": "softmax", "weight": -3}]})",
       {"\"weight\" must be a number > 0", "got -3"}},
      {"weight not a number", R"({"format": 1, "tasks": [{"op": "softmax", "weight": "2"}]})",
       {"\"weight\" must be a number > 0", "string"}},
      {"duplicate op",
       R"({"format": 1, "tasks": [{"op": "softmax:M=4"}, {"op": "matmul"}, {"op": "softmax:M=4", "weight": 2}]})",
       {"tasks[2] repeats op 'softmax:M=4' of tasks[0]", "merge them"}},
      {"name not a string", R"({"format": 1, "name": 5, "tasks": [{"op": "softmax"}]})",
       {"\"name\" must be a string"}},
      {"onnx_nodes not names", R"({"format": 1, "tasks": [{"op": "softmax", "onnx_nodes": [["a", 3]]}]})",
       {"tasks[0] (softmax)", "\"onnx_nodes\" must be an array with one array of node names per occurrence"}},
      {"onnx_nodes flat", R"({"format": 1, "tasks": [{"op": "softmax", "onnx_nodes": ["a"]}]})",
       {"\"onnx_nodes\" must be an array with one array"}},
  };
  TempDir dir;
  for (const auto &c : cases) {
    SCOPED_TRACE(c.label);
    const std::string p = dir.write("bad.json", c.text);
    const std::string msg = error_of(p);
    ASSERT_FALSE(msg.empty()) << "was accepted";
    EXPECT_EQ(msg.rfind("network file '" + p + "': ", 0), 0u) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
    for (const auto &part : c.message_parts) EXPECT_NE(msg.find(part), std::string::npos) << msg;
  }
}

TEST(ReadNetworkSpec, AMissingFileIsRefusedWithItsPath) {
  TempDir dir;
  const std::string p = dir.path() + "/nope.json";
  const std::string msg = error_of(p);
  EXPECT_NE(msg.find("network file '" + p + "'"), std::string::npos) << msg;
  EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
}

TEST(ReadNetworkSpec, AnEmptyFileIsInvalidJson) {
  TempDir dir;
  const std::string msg = error_of(dir.write("empty.json", ""));
  EXPECT_NE(msg.find("invalid JSON"), std::string::npos) << msg;
}

TEST(ReadNetworkSpec, ADirectoryIsRefusedAsADirectory) {
  TempDir dir;
  const std::string msg = error_of(dir.path());
  EXPECT_NE(msg.find("is a directory"), std::string::npos) << msg;
}

}  // namespace
}  // namespace tlp
