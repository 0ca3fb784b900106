// Suite files: the shipped suites parse and use the networks' exact op strings,
// names resolve to files in the suites folder, and every malformed file is refused
// with a message that names the file and the fault.
#include <gtest/gtest.h>

#include <algorithm>

#include <filesystem>
#include <set>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/temp_dir.h"
#include "tuner/bench/bench_suite.h"

namespace tlp {

using testing::read_text_file;
using testing::TempDir;
namespace {

namespace fs = std::filesystem;

// examples/<name>, found from this source file's path (tests/tuner/bench/...).
std::string examples_dir(const std::string &name) {
  return (fs::path(__FILE__).parent_path().parent_path().parent_path().parent_path() / "examples" / name).string();
}

// The message of the runtime_error that reading `text` as a suite throws.
std::string error_for(const std::string &text) {
  TempDir dir;
  const std::string path = dir.write("bad.json", text);
  try {
    read_bench_suite(path, dir.path());
  } catch (const std::runtime_error &e) {
    return e.what();
  }
  ADD_FAILURE() << "no error for: " << text;
  return "";
}

void expect_error(const std::string &text, const std::vector<std::string> &parts) {
  const std::string message = error_for(text);
  EXPECT_NE(message.find("bad.json"), std::string::npos) << message;
  for (const auto &part : parts) EXPECT_NE(message.find(part), std::string::npos) << part << " not in: " << message;
}

TEST(BenchSuite, ReadsAllFieldsAndDefaults) {
  TempDir dir;
  const std::string path = dir.write("mine.json", R"({"format": 1, "description": "d", "operators": [
      {"op": "matmul:M=8,N=8,K=8", "trials": 64, "weight": 2.5, "label": "tiny"},
      {"op": "softmax:M=4,N=4"}]})");
  const BenchSuite suite = read_bench_suite(path, dir.path());
  EXPECT_EQ(suite.name, "mine");
  EXPECT_EQ(suite.description, "d");
  ASSERT_EQ(suite.operators.size(), 2u);
  EXPECT_EQ(suite.operators[0].op, "matmul:M=8,N=8,K=8");
  EXPECT_EQ(suite.operators[0].label, "tiny");
  EXPECT_EQ(suite.operators[0].trials, 64);
  EXPECT_DOUBLE_EQ(suite.operators[0].weight, 2.5);
  EXPECT_EQ(suite.operators[1].label, "");
  EXPECT_EQ(suite.operators[1].trials, 0);
  EXPECT_DOUBLE_EQ(suite.operators[1].weight, 1);
}

TEST(BenchSuite, NameResolvesInSuitesDir) {
  TempDir dir;
  dir.write("smoke.json", R"({"format": 1, "name": "Smoke", "operators": [{"op": "matmul"}]})");
  EXPECT_EQ(read_bench_suite("smoke", dir.path()).name, "Smoke");
  EXPECT_TRUE(is_suite_name("quick"));
  EXPECT_FALSE(is_suite_name("quick.json"));
  EXPECT_FALSE(is_suite_name("./quick"));
}

TEST(BenchSuite, UnknownNameListsAvailableSuites) {
  TempDir dir;
  dir.write("alpha.json", "{}");
  dir.write("beta.json", "{}");
  dir.write("notes.txt", "");
  try {
    read_bench_suite("gamma", dir.path());
    FAIL() << "no error";
  } catch (const std::runtime_error &e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("gamma.json"), std::string::npos) << m;
    EXPECT_NE(m.find("no suite named 'gamma'"), std::string::npos) << m;
    EXPECT_NE(m.find("alpha, beta"), std::string::npos) << m;
  }
}

TEST(BenchSuite, MissingPathFails) {
  TempDir dir;
  EXPECT_THROW(read_bench_suite(dir.path() + "/nope.json", dir.path()), std::runtime_error);
}

TEST(BenchSuite, RefusesInvalidJson) { expect_error("{\"format\": 1,", {"invalid JSON", "line"}); }

TEST(BenchSuite, RefusesMissingOrNewerFormat) {
  expect_error(R"({"operators": [{"op": "matmul"}]})", {"missing \"format\""});
  expect_error(R"({"format": 2, "operators": [{"op": "matmul"}]})", {"newer"});
}

TEST(BenchSuite, RefusesEmptyOrMissingOperators) {
  expect_error(R"({"format": 1})", {"missing \"operators\""});
  expect_error(R"({"format": 1, "operators": []})", {"\"operators\" is empty"});
  expect_error(R"({"format": 1, "operators": {}})", {"must be an array"});
}

TEST(BenchSuite, RefusesUnknownTopLevelKey) {
  expect_error(R"({"format": 1, "operator": [], "operators": [{"op": "matmul"}]})",
               {"unknown key \"operator\"", "\"operators\"", "\"description\""});
}

TEST(BenchSuite, RefusesUnknownOperatorKeyNamingTheEntry) {
  expect_error(R"({"format": 1, "operators": [{"op": "matmul"}, {"op": "softmax", "trial": 3}]})",
               {"operators[1]", "unknown key \"trial\"", "\"trials\"", "\"weight\"", "\"label\""});
}

TEST(BenchSuite, RefusesBadTypes) {
  expect_error(R"({"format": 1, "operators": ["matmul"]})", {"operators[0]", "must be an object"});
  expect_error(R"({"format": 1, "operators": [{"op": 3}]})", {"operators[0]", "\"op\""});
  expect_error(R"({"format": 1, "operators": [{"op": ""}]})", {"non-empty"});
  expect_error(R"({"format": 1, "operators": [{"label": "x"}]})", {"operators[0]", "has no \"op\""});
  expect_error(R"({"format": 1, "operators": [{"op": "matmul", "trials": 0}]})", {"\"trials\"", ">= 1"});
  expect_error(R"({"format": 1, "operators": [{"op": "matmul", "trials": 2.5}]})", {"\"trials\""});
  expect_error(R"({"format": 1, "operators": [{"op": "matmul", "weight": -1}]})", {"\"weight\"", "> 0"});
  expect_error(R"({"format": 1, "operators": [{"op": "matmul", "weight": "1"}]})", {"\"weight\""});
  expect_error(R"({"format": 1, "operators": [{"op": "matmul", "label": 7}]})", {"\"label\"", "string"});
  expect_error(R"({"format": 1, "name": 7, "operators": [{"op": "matmul"}]})", {"\"name\"", "string"});
  expect_error(R"([1, 2])", {"top level must be a JSON object"});
}

TEST(BenchSuite, RefusesDuplicateOpAndLabel) {
  expect_error(R"({"format": 1, "operators": [{"op": "matmul", "label": "a"}, {"op": "matmul", "label": "a"}]})",
               {"operators[1] repeats op 'matmul' with label 'a' of operators[0]"});
}

TEST(BenchSuite, SameOpWithDifferentLabelsIsAllowed) {
  TempDir dir;
  const std::string path =
      dir.write("two.json", R"({"format": 1, "operators": [{"op": "matmul", "label": "a"}, {"op": "matmul"}]})");
  EXPECT_EQ(read_bench_suite(path, dir.path()).operators.size(), 2u);
}

TEST(BenchSuite, ShippedSuitesParse) {
  const std::string dir = examples_dir("suites");
  const auto names = list_bench_suites(dir);
  for (const std::string expected : {"full", "headline", "quick"})
    EXPECT_NE(std::find(names.begin(), names.end(), expected), names.end()) << expected;
  for (const std::string &name : names) EXPECT_EQ(read_bench_suite(name, dir).name, name);
  const BenchSuite quick = read_bench_suite("quick", dir);
  EXPECT_EQ(quick.name, "quick");
  EXPECT_EQ(quick.operators.size(), 3u);
  const BenchSuite full = read_bench_suite("full", dir);
  EXPECT_EQ(full.name, "full");
  EXPECT_GE(full.operators.size(), 15u);
}

// The full suite's shapes are the networks' shapes, character for character.
TEST(BenchSuite, FullSuiteOpsComeFromTheNetworkFiles) {
  std::set<std::string> network_ops;
  for (const auto &entry : fs::directory_iterator(examples_dir("networks"))) {
    if (entry.path().extension() != ".json") continue;
    const nlohmann::json net = nlohmann::json::parse(read_text_file(entry.path().string()));
    for (const auto &task : net.at("tasks")) network_ops.insert(task.at("op").get<std::string>());
  }
  const BenchSuite full = read_bench_suite("full", examples_dir("suites"));
  for (const auto &op : full.operators)
    if (op.op != "matmul:M=1024,N=1024,K=1024") {
      EXPECT_TRUE(network_ops.count(op.op)) << op.op;
    }
}

}  // namespace
}  // namespace tlp
