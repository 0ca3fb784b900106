// The ONNX importer: models built with ONNX's C++ API become exactly the tasks
// a person would write by hand, and every kind of bad file is one clear error.
#include "frontend/onnx_tasks.h"

#include <fstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "codegen/operator.h"
#include "frontend/onnx_graph.h"
#include "search/network_spec.h"
#include "tests/frontend/onnx_graph_builder.h"
#include "tests/temp_dir.h"

namespace tlp {
namespace {

using testing::OnnxGraphBuilder;
using testing::TempDir;

ExtractedNetwork import(const OnnxGraphBuilder &b, const TempDir &d,
                        const std::map<std::string, TensorShape> &inputs = {}) {
  return extract_tasks(read_onnx_graph(b.save(d / "m.onnx"), inputs));
}

const ExtractedTask *task(const ExtractedNetwork &n, const std::string &op) {
  for (const ExtractedTask &t : n.tasks)
    if (t.op == op) return &t;
  return nullptr;
}

const UnmappedOp *unmapped(const ExtractedNetwork &n, const std::string &type) {
  for (const UnmappedOp &u : n.unmapped)
    if (u.op_type == type) return &u;
  return nullptr;
}

std::string import_error(const std::string &path, const std::map<std::string, TensorShape> &inputs = {}) {
  try {
    read_onnx_graph(path, inputs);
  } catch (const OnnxImportError &e) {
    return e.what();
  }
  return "";
}

TEST(OnnxTasks, AResNetBottleneckFusesBatchNormReluAndTheResidualAddIntoItsConvolutions) {
  TempDir d;
  OnnxGraphBuilder b;
  b.input("x", {1, 256, 56, 56});
  std::string y = b.conv("c1", "x", 256, 64, 1, 1, 0, true, true);
  y = b.conv("c2", y, 64, 64, 3, 1, 1, true, true);
  y = b.conv("c3", y, 64, 256, 1, 1, 0, true, false);
  b.node("Add", {y, "x"}, {"sum"}, "residual");
  b.node("Relu", {"sum"}, {"out"}, "residual_relu");
  b.node("GlobalAveragePool", {"out"}, {"pooled"}, "gap");
  b.output("pooled");
  const ExtractedNetwork n = import(b, d);
  ASSERT_EQ(n.tasks.size(), 4u);
  EXPECT_EQ(n.tasks[3].op, "global_avg_pool2d:N=1,C=256,H=56,W=56");
  EXPECT_EQ(n.tasks[0].op, "conv2d_bias_relu:N=1,C=256,H=56,W=56,K=64,R=1,S=1,stride=1,pad=0");
  EXPECT_EQ(n.tasks[1].op, "conv2d_bias_relu:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1");
  EXPECT_EQ(n.tasks[2].op, "conv2d_residual:N=1,C=64,H=56,W=56,K=256,R=1,S=1,stride=1,pad=0,relu=1");
  EXPECT_EQ(n.tasks[0].nodes, (std::vector<std::vector<std::string>>{{"c1", "c1_bn", "c1_relu"}}));
  EXPECT_EQ(n.tasks[2].nodes,
            (std::vector<std::vector<std::string>>{{"c3", "c3_bn", "residual", "residual_relu"}}));
  for (const ExtractedTask &t : n.tasks) {
    EXPECT_EQ(t.weight, 1);
    EXPECT_NO_THROW(make_operator(t.op)) << t.op;
  }
  EXPECT_TRUE(n.unmapped.empty());
  EXPECT_DOUBLE_EQ(n.mapped_flops, n.total_flops);
}

TEST(OnnxTasks, AProjectionShortcutLeavesTheResidualAddToTheFirstConvolutionAndABiasAddIsNoResidual) {
  TempDir d;
  OnnxGraphBuilder b;
  b.input("x", {1, 64, 56, 56});
  const std::string main_path = b.conv("c3", "x", 64, 256, 1, 1, 0, true, false);
  const std::string shortcut = b.conv("down", "x", 64, 256, 1, 1, 0, true, false);
  b.node("Add", {main_path, shortcut}, {"sum"}, "residual");
  b.weight("bias", {256, 1, 1});
  const std::string z = b.conv("c4", "sum", 256, 256, 1, 1, 0, false, false);
  b.node("Add", {z, "bias"}, {"out"}, "bias_add");
  b.output("out");
  const ExtractedNetwork n = import(b, d);
  ASSERT_EQ(n.tasks.size(), 3u);
  EXPECT_EQ(n.tasks[0].op, "conv2d_residual:N=1,C=64,H=56,W=56,K=256,R=1,S=1,stride=1,pad=0,relu=0");
  EXPECT_EQ(n.tasks[0].nodes.front(), (std::vector<std::string>{"c3", "c3_bn", "residual"}));
  EXPECT_EQ(n.tasks[1].op, "conv2d:N=1,C=64,H=56,W=56,K=256,R=1,S=1,stride=1,pad=0");
  EXPECT_EQ(n.tasks[1].nodes.front(), (std::vector<std::string>{"down", "down_bn"}));
  EXPECT_EQ(n.tasks[2].op, "conv2d:N=1,C=256,H=56,W=56,K=256,R=1,S=1,stride=1,pad=0");
  ASSERT_NE(unmapped(n, "Add"), nullptr) << "an Add of a constant is a bias, not a skip connection";
  EXPECT_EQ(unmapped(n, "Add")->count, 1);
}

TEST(OnnxTasks, IdenticalOperatorsBecomeOneTaskWeightedByTheirCount) {
  TempDir d;
  OnnxGraphBuilder b;
  b.input("x", {1, 64, 28, 28});
  std::string y = b.conv("a", "x", 64, 64, 3, 1, 1, false, true);
  y = b.conv("b", y, 64, 64, 3, 1, 1, false, true);
  y = b.conv("c", y, 64, 64, 3, 2, 1, false, true);
  b.output(y);
  const ExtractedNetwork n = import(b, d);
  ASSERT_EQ(n.tasks.size(), 2u);
  EXPECT_EQ(n.tasks[0].weight, 2);
  EXPECT_EQ(n.tasks[0].nodes, (std::vector<std::vector<std::string>>{{"a", "a_relu"}, {"b", "b_relu"}}));
  EXPECT_EQ(n.tasks[1].op, "conv2d_bias_relu:N=1,C=64,H=28,W=28,K=64,R=3,S=3,stride=2,pad=1");
  EXPECT_TRUE(n.unmapped.empty());
  EXPECT_DOUBLE_EQ(n.mapped_flops, n.total_flops);
}

TEST(OnnxTasks, AMobileNetInvertedResidualMapsDepthwiseGroupedAndTheResidualProjection) {
  TempDir d;
  OnnxGraphBuilder b;
  b.input("x", {1, 32, 28, 28});
  std::string y = b.conv("expand", "x", 32, 192, 1, 1, 0, true, false);
  b.weight("lo", {});
  b.weight("hi", {});
  b.node("Clip", {y, "lo", "hi"}, {"e6"}, "expand_relu6");
  y = b.conv("dw", "e6", 192, 192, 3, 1, 1, true, false, /*group=*/192);
  y = b.conv("project", y, 192, 32, 1, 1, 0, true, false);
  b.node("Add", {"x", y}, {"block"}, "residual");
  y = b.conv("grouped", "block", 32, 64, 3, 2, 1, true, false, /*group=*/4);
  b.output(y);
  const ExtractedNetwork n = import(b, d);
  ASSERT_EQ(n.tasks.size(), 4u);
  EXPECT_EQ(n.tasks[0].op, "conv2d:N=1,C=32,H=28,W=28,K=192,R=1,S=1,stride=1,pad=0");
  EXPECT_EQ(n.tasks[1].op, "depthwise_conv2d:N=1,C=192,H=28,W=28,R=3,S=3,stride=1,pad=1");
  EXPECT_EQ(n.tasks[1].nodes.front(), (std::vector<std::string>{"dw", "dw_bn"}));
  EXPECT_EQ(n.tasks[2].op, "conv2d_residual:N=1,C=192,H=28,W=28,K=32,R=1,S=1,stride=1,pad=0,relu=0");
  EXPECT_EQ(n.tasks[2].nodes.front(), (std::vector<std::string>{"project", "project_bn", "residual"}));
  EXPECT_EQ(n.tasks[3].op, "group_conv2d:N=1,C=32,H=28,W=28,K=64,R=3,S=3,stride=2,pad=1,groups=4");
  EXPECT_EQ(n.tasks[3].nodes.front(), (std::vector<std::string>{"grouped", "grouped_bn"}));
  for (const ExtractedTask &t : n.tasks) {
    EXPECT_EQ(t.weight, 1);
    EXPECT_NO_THROW(make_operator(t.op)) << t.op;
  }
  ASSERT_EQ(n.unmapped.size(), 1u);
  EXPECT_EQ(n.unmapped[0].op_type, "Clip");
  EXPECT_EQ(n.unmapped[0].count, 1);
}

TEST(OnnxTasks, ATransformerBlockMapsItsMatMulsSoftmaxDenseLayerAndLayerNorm) {
  TempDir d;
  OnnxGraphBuilder b(17);
  b.input("q", {12, 128, 64});
  b.input("k", {12, 64, 128});
  b.input("v", {12, 128, 64});
  b.input("x", {128, 768});
  b.node("MatMul", {"q", "k"}, {"scores"}, "qk");
  b.node("Softmax", {"scores"}, {"probs"}, "softmax");
  b.node("MatMul", {"probs", "v"}, {"ctx"}, "pv");
  b.weight("w1", {768, 3072});
  b.weight("b1", {3072});
  b.node("MatMul", {"x", "w1"}, {"h"}, "ffn1");
  b.node("Add", {"h", "b1"}, {"hb"}, "ffn1_bias");
  b.node("Relu", {"hb"}, {"hr"}, "ffn1_relu");
  b.weight("w2", {3072, 768});
  b.node("MatMul", {"hr", "w2"}, {"o"}, "ffn2");
  b.node("Add", {"o", "x"}, {"res"}, "residual");
  b.weight("gamma", {768});
  b.weight("beta", {768});
  b.node("LayerNormalization", {"res", "gamma", "beta"}, {"ln"}, "norm");
  b.output("ctx", 3);
  b.output("ln", 2);
  const ExtractedNetwork n = import(b, d);
  const std::vector<std::string> expected = {"batch_matmul:B=12,M=128,N=128,K=64", "softmax:M=1536,N=128",
                                             "batch_matmul:B=12,M=128,N=64,K=128",
                                             "dense_bias_relu:M=128,N=3072,K=768", "matmul:M=128,N=768,K=3072",
                                             "layernorm:M=128,N=768"};
  ASSERT_EQ(n.tasks.size(), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(n.tasks[i].op, expected[i]);
    EXPECT_NO_THROW(make_operator(n.tasks[i].op)) << n.tasks[i].op;
  }
  EXPECT_EQ(n.tasks[3].nodes.front(), (std::vector<std::string>{"ffn1", "ffn1_bias", "ffn1_relu"}));
  ASSERT_NE(unmapped(n, "Add"), nullptr);
  EXPECT_EQ(unmapped(n, "Add")->count, 1) << "only the residual Add stays out";
}

TEST(OnnxTasks, GemmWithReluIsADenseLayerAndThePoolingsMap) {
  TempDir d;
  OnnxGraphBuilder b;
  b.input("x", {1, 64, 112, 112});
  auto &pool = b.node("MaxPool", {"x"}, {"p"}, "pool");
  OnnxGraphBuilder::ints(pool, "kernel_shape", {3, 3});
  OnnxGraphBuilder::ints(pool, "strides", {2, 2});
  OnnxGraphBuilder::ints(pool, "pads", {1, 1, 1, 1});
  b.input("f", {1, 2048});
  b.weight("fc.w", {1000, 2048});
  b.weight("fc.b", {1000});
  auto &gemm = b.node("Gemm", {"f", "fc.w", "fc.b"}, {"g"}, "fc");
  OnnxGraphBuilder::integer(gemm, "transB", 1);
  b.node("Relu", {"g"}, {"gr"}, "fc_relu");
  auto &avg = b.node("AveragePool", {"x"}, {"a"}, "avg");
  OnnxGraphBuilder::ints(avg, "kernel_shape", {2, 2});
  OnnxGraphBuilder::ints(avg, "strides", {2, 2});
  b.output("p");
  b.output("gr", 2);
  b.output("a");
  const ExtractedNetwork n = import(b, d);
  ASSERT_EQ(n.tasks.size(), 3u);
  EXPECT_EQ(n.tasks[2].op, "avg_pool2d:N=1,C=64,H=112,W=112,R=2,S=2,stride=2,pad=0,count_pad=0");
  EXPECT_NO_THROW(make_operator(n.tasks[2].op));
  EXPECT_EQ(n.tasks[0].op, "max_pool2d:N=1,C=64,H=112,W=112,R=3,S=3,stride=2,pad=1");
  EXPECT_EQ(n.tasks[1].op, "dense_bias_relu:M=1,N=1000,K=2048");
  EXPECT_EQ(n.tasks[1].nodes.front(), (std::vector<std::string>{"fc", "fc_relu"}));
}

TEST(OnnxTasks, ADynamicBatchNeedsAnInputShapeAndTheErrorNamesTheInputAndDimension) {
  TempDir d;
  OnnxGraphBuilder b;
  b.input("data", {-1, 3, 224, 224});
  b.output(b.conv("stem", "data", 3, 64, 7, 2, 3, true, true));
  const std::string path = b.save(d / "dyn.onnx");
  const std::string e = import_error(path);
  EXPECT_NE(e.find("input 'data' dimension 0 is symbolic ('batch')"), std::string::npos) << e;
  EXPECT_NE(e.find("--input data="), std::string::npos) << e;
  const ExtractedNetwork n = extract_tasks(read_onnx_graph(path, {parse_input_shape("data=2x3x224x224")}));
  ASSERT_EQ(n.tasks.size(), 1u);
  EXPECT_EQ(n.tasks[0].op, "conv2d_bias_relu:N=2,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3");
  EXPECT_NE(import_error(path, {{"nope", {1, 3, 224, 224}}}).find("'nope', which is not an input"), std::string::npos);
  EXPECT_NE(import_error(path, {{"data", {1, 3, 224}}}).find("has 3 dimensions"), std::string::npos);
}

TEST(OnnxTasks, InputShapesParseAndBadOnesAreRefusedWithAnExample) {
  EXPECT_EQ(parse_input_shape("data=1x3x224x224"), (std::pair<std::string, TensorShape>{"data", {1, 3, 224, 224}}));
  EXPECT_EQ(parse_input_shape("a=b=7").first, "a=b");
  for (const char *bad : {"data", "=1x3", "data=", "data=1x0x3", "data=1xx3", "data=1x-3", "data=2.5"}) {
    SCOPED_TRACE(bad);
    EXPECT_THROW(parse_input_shape(bad), OnnxImportError);
  }
}

TEST(OnnxTasks, EveryBadFileIsOneErrorNamingTheFileAndWhatToDo) {
  TempDir d;
  EXPECT_NE(import_error(d / "absent.onnx").find("cannot be read"), std::string::npos);
  const std::string text = d.write("text.onnx", "this is not a model\n");
  EXPECT_NE(import_error(text).find("is not an ONNX model, or is truncated"), std::string::npos) << import_error(text);

  OnnxGraphBuilder good;
  good.input("x", {1, 8, 8, 8});
  good.output(good.conv("c", "x", 8, 8, 3, 1, 1, false, true));
  const std::string whole = testing::read_text_file(good.save(d / "good.onnx"));
  const std::string cut = d.write("cut.onnx", whole.substr(0, whole.size() / 2));
  EXPECT_NE(import_error(cut).find("is not an ONNX model, or is truncated"), std::string::npos) << import_error(cut);

  OnnxGraphBuilder future(99);
  future.input("x", {1, 8});
  future.node("Relu", {"x"}, {"y"}, "r");
  future.output("y", 2);
  const std::string e = import_error(future.save(d / "future.onnx"));
  EXPECT_NE(e.find("opset 99 is newer than this ONNX library knows"), std::string::npos) << e;

  OnnxGraphBuilder newer_ir;
  newer_ir.input("x", {1, 8});
  newer_ir.node("Relu", {"x"}, {"y"}, "r");
  newer_ir.output("y", 2);
  newer_ir.model().set_ir_version(99);
  const std::string ir = import_error(newer_ir.save(d / "ir.onnx"));
  EXPECT_NE(ir.find("IR version 99 is newer than this ONNX library reads"), std::string::npos) << ir;

  OnnxGraphBuilder unknown;
  unknown.input("x", {1, 8});
  unknown.node("NoSuchOp", {"x"}, {"y"}, "odd");
  unknown.output("y", 2);
  const std::string u = import_error(unknown.save(d / "unknown.onnx"));
  EXPECT_NE(u.find("the ONNX checker refuses the model"), std::string::npos) << u;

  OnnxGraphBuilder cycle;
  cycle.input("x", {1, 8});
  cycle.node("Add", {"x", "b"}, {"a"}, "first");
  cycle.node("Relu", {"a"}, {"b"}, "second");
  cycle.output("b", 2);
  const std::string c = import_error(cycle.save(d / "cycle.onnx"));
  EXPECT_NE(c.find("the ONNX checker refuses the model"), std::string::npos) << c;

  for (int64_t bad : {int64_t(0), int64_t(-5), int64_t(1) << 40}) {
    OnnxGraphBuilder b;
    b.input("x", {1, 8, 8, 8});
    b.model().mutable_graph()->mutable_input(0)->mutable_type()->mutable_tensor_type()->mutable_shape()->mutable_dim(1)
        ->set_dim_value(bad);
    b.output(b.conv("c", "x", 8, 8, 3, 1, 1, false, false));
    const std::string z = import_error(b.save(d / "dim.onnx"));
    EXPECT_NE(z.find("input 'x' dimension 1 is " + std::to_string(bad)), std::string::npos) << z;
  }
}

TEST(OnnxTasks, TheNetworkFileReadsBackAsTheTasksWithTheirNodes) {
  TempDir d;
  OnnxGraphBuilder b;
  b.input("x", {1, 64, 28, 28});
  std::string y = b.conv("a", "x", 64, 64, 3, 1, 1, false, true);
  y = b.conv("b", y, 64, 64, 3, 1, 1, false, true);
  b.node("Sigmoid", {y}, {"sig"}, "sig");
  b.output("sig");
  const ExtractedNetwork n = import(b, d);
  const std::string path = d.write("net.json", network_file_json(n).dump(2));
  const NetworkSpec spec = read_network_spec(path);
  ASSERT_EQ(spec.tasks.size(), 1u);
  EXPECT_EQ(spec.tasks[0].op, n.tasks[0].op);
  EXPECT_EQ(spec.tasks[0].weight, 2);
  const auto j = nlohmann::json::parse(testing::read_text_file(path));
  EXPECT_EQ(j["tasks"][0]["onnx_nodes"], nlohmann::json::parse(R"([["a","a_relu"],["b","b_relu"]])"));
  EXPECT_NE(j["notes"].dump().find("Not mapped: Sigmoid x1"), std::string::npos) << j["notes"];
}

}  // namespace
}  // namespace tlp
