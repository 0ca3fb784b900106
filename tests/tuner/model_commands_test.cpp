// tlptune train / eval / tune with models, as users run them: MTL-TLP trained on
// a log of two platforms, evaluated on its target head, and used by tune through
// the head of the platform tuned for; clear errors for platforms a log or a
// model does not have.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <sstream>
#include <string>

#include "costmodel/model_file.h"
#include "measure/measure_record.h"
#include "tests/costmodel/costmodel_fixtures.h"
#include "tests/tuner/cli_test_util.h"
#include "tuner/platform_spec.h"

namespace {

using tlp::testing::CliRun;
using tlp::testing::TempDir;
using tlp::testing::tlptune;

const char *kOther = "cpu/elsewhere/x86-64-linux-sse41/threads=1";

// This machine's one-thread host platform: tune can run for it.
std::string here() { return tlp::parse_platform_spec("host@1").name(); }

// Synthetic measurements of 12 workloads on two platforms that rank differently.
void write_two_platform_log(const std::string &path) {
  std::mt19937_64 rng(5);
  std::ofstream f(path);
  for (int w = 0; w < 12; ++w)
    for (int i = 0; i < 16; ++i) {
      int inner = 1;
      const tlp::Schedule s = tlp::testing::synthetic_schedule(rng, &inner);
      const std::string key = "matmul:M=" + std::to_string(64 + w) + ",N=64,K=64";
      const double l = std::log2(double(inner));
      f << tlp::testing::make_record(key, here(), s, 1.0 + std::fabs(l - 4)).to_line() << "\n";
      f << tlp::testing::make_record(key, kOther, s, 1.0 + std::fabs(l - 1)).to_line() << "\n";
    }
}

// The recipe's tile rows off: a 4-row matrix keeps these tests quick.
const char *kQuick = " --epochs 2 --batch 32 --seq-len 4 --tile-rows 0 --threads 1 ";

TEST(ModelCommands, MtlTrainsOnTwoPlatformsAndEvaluatesItsTargetHead) {
  TempDir d;
  const std::string log = d / "two.jsonl", model = d / "mtl.tlpm";
  write_two_platform_log(log);
  CliRun train = tlptune("train --mtl --logs " + log + " --out " + model + kQuick +
                         "--platform elsewhere --target-fraction 0.25");
  ASSERT_EQ(train.code, 0) << train.output;
  EXPECT_NE(train.output.find("MTL-TLP, 2 heads"), std::string::npos) << train.output;
  const tlp::TlpModelInfo info = tlp::read_tlp_model_info(model);
  EXPECT_EQ(info.platforms, (std::vector<std::string>{kOther, here()})) << "head 0 is the target";

  CliRun eval = tlptune("eval --model " + model + " --logs " + log);
  ASSERT_EQ(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find("12 tasks of " + std::string(kOther)), std::string::npos) << eval.output;
  EXPECT_NE(eval.output.find("top-1"), std::string::npos);
  CliRun other_head = tlptune("eval --model " + model + " --logs " + log + " --platform host@1");
  ASSERT_EQ(other_head.code, 0) << other_head.output;
  EXPECT_NE(other_head.output.find("12 tasks of " + here()), std::string::npos) << other_head.output;

  CliRun unknown = tlptune("eval --model " + model + " --logs " + log + " --platform neon");
  EXPECT_NE(unknown.code, 0);
  EXPECT_NE(unknown.output.find("platform 'neon' is not in the logs"), std::string::npos) << unknown.output;
  EXPECT_NE(unknown.output.find(kOther), std::string::npos) << "the error lists the platforms there are";
}

TEST(ModelCommands, TuneUsesTheHeadOfThePlatformItTunesFor) {
  TempDir d;
  const std::string log = d / "two.jsonl", model = d / "mtl.tlpm";
  write_two_platform_log(log);
  ASSERT_EQ(tlptune("train --mtl --logs " + log + " --out " + model + kQuick + "--platform elsewhere").code, 0);
  const std::string tune = "tune --op matmul:M=32,N=32,K=16 --trials 2 --batch 2 --population 16 --generations 1 "
                           "--min-seconds 0.005 --no-progress --policy evolutionary --model " + model;
  CliRun ok = tlptune(tune + " --platform host@1 --log " + (d / "t.jsonl"));
  ASSERT_EQ(ok.code, 0) << ok.output;
  CliRun no_head = tlptune(tune + " --platform x86-64-linux-sse41@1 --log " + (d / "u.jsonl"));
  EXPECT_NE(no_head.code, 0) << no_head.output;
  EXPECT_NE(no_head.output.find("has no head for platform"), std::string::npos) << no_head.output;
}

TEST(ModelCommands, TrainFineTunesAnotherPlatformsModelOnTheTargetsShare) {
  TempDir d;
  const std::string log = d / "two.jsonl";
  write_two_platform_log(log);
  ASSERT_EQ(tlptune("train --logs " + log + " --out " + (d / "src.tlpm") + kQuick + "--platform host@1").code, 0);
  CliRun ft = tlptune("train --logs " + log + " --out " + (d / "ft.tlpm") + kQuick +
                      "--platform elsewhere --target-fraction 0.25 --init-from " + (d / "src.tlpm"));
  ASSERT_EQ(ft.code, 0) << ft.output;
  EXPECT_EQ(tlp::read_tlp_model_info(d / "ft.tlpm").platform, kOther);
  CliRun mtl_init = tlptune("train --mtl --logs " + log + " --out " + (d / "x.tlpm") + kQuick +
                            "--platform elsewhere --init-from " + (d / "src.tlpm"));
  EXPECT_NE(mtl_init.code, 0);
  EXPECT_NE(mtl_init.output.find("--init-from"), std::string::npos) << mtl_init.output;
  // The source model fixes the network's shape: asking for another width is refused, not ignored.
  CliRun reshaped = tlptune("train --logs " + log + " --out " + (d / "y.tlpm") + kQuick +
                            "--platform elsewhere --hidden 64 --init-from " + (d / "src.tlpm"));
  EXPECT_NE(reshaped.code, 0);
  EXPECT_NE(reshaped.output.find("--hidden"), std::string::npos) << reshaped.output;
  EXPECT_FALSE(std::filesystem::exists(d / "y.tlpm"));
}

TEST(ModelCommands, TrainBuildsTheWidthAskedForAndRefusesHeadsThatDoNotDivideIt) {
  TempDir d;
  const std::string log = d / "two.jsonl", model = d / "narrow.tlpm";
  write_two_platform_log(log);
  CliRun train = tlptune("train --logs " + log + " --out " + model + kQuick + "--platform host@1 --hidden 64 --heads 4");
  ASSERT_EQ(train.code, 0) << train.output;
  const tlp::TlpModelInfo info = tlp::read_tlp_model_info(model);
  EXPECT_EQ(info.network.hidden, 64);
  EXPECT_EQ(info.network.heads, 4);
  CliRun eval = tlptune("eval --model " + model + " --logs " + log + " --platform host@1");
  EXPECT_EQ(eval.code, 0) << eval.output;

  CliRun bad = tlptune("train --logs " + log + " --out " + (d / "bad.tlpm") + kQuick + "--hidden 60 --heads 8");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.output.find("hidden size 60 is not divisible by the number of heads 8"), std::string::npos)
      << bad.output;
}

// Real matmul workloads with schedules that replay on them (the loop-nest rows
// need that): a split of i whose inner factor alone sets the cost.
void write_matmul_log(const std::string &path) {
  std::mt19937_64 rng(9);
  std::ofstream f(path);
  const int inners[] = {1, 2, 4, 8, 16, 32};
  for (int w = 0; w < 8; ++w)
    for (int i = 0; i < 12; ++i) {
      const int inner = inners[rng() % 6], k = int(rng() % 3);
      const tlp::Schedule s = tlp::Schedule::from_text("SP(2,0,64,[" + std::to_string(64 / inner) + "," +
                                                       std::to_string(inner) + "]); AN(2," + std::to_string(k) +
                                                       ",vectorize)");
      const std::string key = "matmul:M=64,N=64,K=" + std::to_string(32 + 8 * w);
      f << tlp::testing::make_record(key, here(), s, 1.0 + std::fabs(std::log2(double(inner)) - 3)).to_line() << "\n";
    }
}

TEST(ModelCommands, ATileRowsModelTrainsEvaluatesPerTaskAndTunes) {
  TempDir d;
  const std::string log = d / "mm.jsonl", model = d / "tiles.tlpm";
  write_matmul_log(log);
  CliRun train = tlptune("train --logs " + log + " --out " + model +
                         " --epochs 2 --batch 32 --threads 1 --seq-len 8 --tile-rows 5 --emb-size 34");
  ASSERT_EQ(train.code, 0) << train.output;
  EXPECT_EQ(tlp::read_tlp_model_info(model).featurizer.tile_rows, 5);
  CliRun eval = tlptune("eval --per-task --model " + model + " --logs " + log);
  ASSERT_EQ(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find("matmul:M=64,N=64,K=40 "), std::string::npos) << eval.output;
  CliRun tune = tlptune("tune --op matmul:M=32,N=32,K=16 --trials 2 --batch 2 --population 16 --generations 1 "
                        "--min-seconds 0.005 --no-progress --policy evolutionary --platform host@1 --model " +
                        model + " --log " + (d / "t.jsonl"));
  EXPECT_EQ(tune.code, 0) << tune.output;
}

TEST(ModelCommands, EvalShowsTheRankingOfTheTasksItIsAskedAbout) {
  TempDir d;
  const std::string log = d / "mm.jsonl", model = d / "m.tlpm";
  write_matmul_log(log);
  ASSERT_EQ(tlptune("train --logs " + log + " --out " + model + kQuick).code, 0);
  CliRun eval = tlptune("eval --model " + model + " --logs " + log + " --show-ranking K=40");
  ASSERT_EQ(eval.code, 0) << eval.output;
  EXPECT_NE(eval.output.find("ranking of matmul:M=64,N=64,K=40"), std::string::npos) << eval.output;
  EXPECT_EQ(eval.output.find("ranking of matmul:M=64,N=64,K=48"), std::string::npos) << eval.output;
  std::set<std::string> schedules;  // of the task; one measured twice is one row
  for (const auto &r : tlp::testing::read_json_lines(log))
    if (r.at("workload") == "matmul:M=64,N=64,K=40") schedules.insert(r.at("schedule").dump());
  ASSERT_LT(schedules.size(), 12u) << "the log should measure some schedule twice";
  size_t rows = 0;  // one per schedule of the task
  for (size_t at = eval.output.find("SP(2,0,64,"); at != std::string::npos; at = eval.output.find("SP(2,0,64,", at + 1))
    ++rows;
  EXPECT_EQ(rows, schedules.size()) << eval.output;
  char last[16];
  snprintf(last, sizeof last, "\n%6zu ", schedules.size());
  EXPECT_NE(eval.output.find(last), std::string::npos) << eval.output;
}

// The number printed after `label` in `text` (e.g. "top-1 " -> 0.5123).
double number_after(const std::string &text, const std::string &label, size_t from = 0) {
  const size_t at = text.find(label, from);
  return at == std::string::npos ? -1 : std::stod(text.substr(at + label.size()));
}

TEST(ModelCommands, EvalWeighsTasksByTheirNetworkAndScoresHowFarRepeatedMeasurementsAgree) {
  TempDir d;
  const std::string log = d / "mm.jsonl", model = d / "m.tlpm", net = d / "net.json";
  write_matmul_log(log);
  ASSERT_EQ(tlptune("train --logs " + log + " --out " + model + kQuick).code, 0);
  // One task weighs so much that the overall score is its own.
  std::ofstream(net) << R"({"format": 1, "name": "heavy", "tasks": [{"op": "matmul:M=64,N=64,K=40", "weight": 1e6}]})";
  CliRun eval = tlptune("eval --per-task --model " + model + " --logs " + log + " " + log + " --network " + net);
  ASSERT_EQ(eval.code, 0) << eval.output;
  const size_t row = eval.output.find("matmul:M=64,N=64,K=40 ");
  ASSERT_NE(row, std::string::npos) << eval.output;
  std::istringstream cols(eval.output.substr(row, eval.output.find('\n', row) - row));
  std::string task, n, best, picked, top1;
  cols >> task >> n >> best >> picked >> top1;
  EXPECT_NEAR(number_after(eval.output, "all tasks: top-1 "), std::stod(top1), 0.0015) << eval.output;
  // The log read twice measures every schedule twice, alike: the two rankings agree.
  const size_t twice = eval.output.find("measured twice: ");
  ASSERT_NE(twice, std::string::npos) << eval.output;
  EXPECT_DOUBLE_EQ(number_after(eval.output, "top-1 ", twice), 1.0) << eval.output;
  EXPECT_DOUBLE_EQ(number_after(eval.output, "top-5 ", twice), 1.0) << eval.output;
}

TEST(ModelCommands, TileRowsOnWorkloadsThisBuildDoesNotKnowAreRefusedByName) {
  TempDir d;
  const std::string log = d / "two.jsonl";
  write_two_platform_log(log);
  std::ofstream(log, std::ios::app) << tlp::testing::make_record("warp_drive:X=1", here(),
                                                                 tlp::Schedule::from_text("PR(2,0,16)"), 1.0)
                                           .to_line()
                                    << "\n"
                                    << tlp::testing::make_record("warp_drive:X=1", here(),
                                                                 tlp::Schedule::from_text("PR(2,0,64)"), 2.0)
                                           .to_line()
                                    << "\n";
  CliRun train = tlptune("train --logs " + log + " --out " + (d / "m.tlpm") +
                         " --epochs 1 --threads 1 --seq-len 8 --tile-rows 4 --emb-size 34 --platform host@1");
  EXPECT_NE(train.code, 0);
  EXPECT_NE(train.output.find("warp_drive:X=1"), std::string::npos) << train.output;
  CliRun bad = tlptune("train --logs " + log + " --out " + (d / "m.tlpm") + " --seq-len 4 --tile-rows 4");
  EXPECT_NE(bad.code, 0);
  EXPECT_NE(bad.output.find("--seq-len 4 leaves no row for the steps after 4 tile rows: give --seq-len 5"),
            std::string::npos)
      << bad.output;
  CliRun recipes = tlptune("train --logs " + log + " --out " + (d / "m.tlpm") + " --seq-len 4");
  EXPECT_NE(recipes.code, 0);
  EXPECT_NE(recipes.output.find("after 8 tile rows (the tlptune recipe's; --tile-rows 0 drops them)"),
            std::string::npos)
      << recipes.output;
  EXPECT_NE(recipes.output.find("give --seq-len 9 or more"), std::string::npos) << recipes.output;
  EXPECT_FALSE(std::filesystem::exists(d / "m.tlpm"));
}

TEST(ModelCommands, TrainStartsFromTheTlptuneRecipeAndOptionsGivenOverrideIt) {
  TempDir d;
  const std::string log = d / "mm.jsonl";
  write_matmul_log(log);
  auto train = [&](const std::string &model, const std::string &extra) {
    return tlptune("train --logs " + log + " --out " + (d / model) + " --epochs 2 --batch 32 --threads 1 " + extra);
  };
  CliRun ours = train("ours.tlpm", "");
  ASSERT_EQ(ours.code, 0) << ours.output;
  EXPECT_NE(ours.output.find("settings: recipe tlptune, 33 x 22 matrix, split tails on, named loops on, 8 tile rows, 2 epochs, "
                                "patience 0, ema 3"),
            std::string::npos)
      << ours.output;
  const tlp::TlpModelInfo info = tlp::read_tlp_model_info(d / "ours.tlpm");
  EXPECT_TRUE(info.featurizer.split_tails);
  EXPECT_TRUE(info.featurizer.named_loops);
  EXPECT_EQ(info.featurizer.tile_rows, 8);
  EXPECT_EQ(info.featurizer.seq_len, 33) << "the paper's 25 steps and the 8 tile rows";
  EXPECT_EQ(info.training.epochs, 2) << "--epochs given overrides the recipe's 80";

  CliRun paper = train("paper.tlpm", "--recipe paper");
  ASSERT_EQ(paper.code, 0) << paper.output;
  EXPECT_NE(paper.output.find("settings: recipe paper, 25 x 22 matrix, split tails off, named loops off, 0 tile rows, 2 epochs, "
                                 "patience 10, ema 0"),
            std::string::npos)
      << paper.output;
  EXPECT_FALSE(tlp::read_tlp_model_info(d / "paper.tlpm").featurizer.named_loops);

  CliRun mixed = train("mixed.tlpm", "--split-tails=false --ema 1.5 --patience 4 --tile-rows 2");
  ASSERT_EQ(mixed.code, 0) << mixed.output;
  EXPECT_NE(mixed.output.find("27 x 22 matrix, split tails off, named loops on, 2 tile rows, 2 epochs, patience 4, ema 1.5"),
            std::string::npos)
      << mixed.output;
  EXPECT_FALSE(tlp::read_tlp_model_info(d / "mixed.tlpm").featurizer.split_tails);

  CliRun unknown = train("x.tlpm", "--recipe fastest");
  EXPECT_NE(unknown.code, 0);
  EXPECT_NE(unknown.output.find("unknown --recipe 'fastest': use one of tlptune, paper"), std::string::npos)
      << unknown.output;
  EXPECT_FALSE(std::filesystem::exists(d / "x.tlpm"));
}

}  // namespace
