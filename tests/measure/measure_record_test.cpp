#include "measure/measure_record.h"

#include <cmath>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "record_fixtures.h"
#include "search/tlptune_version.h"

namespace tlp {
namespace {

using nlohmann::json;

void expect_same(const MeasureRecord &a, const MeasureRecord &b) {
  EXPECT_EQ(a.workload_key, b.workload_key);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.platform, b.platform);
  EXPECT_EQ(a.schedule, b.schedule);
  EXPECT_EQ(a.costs, b.costs);
  EXPECT_EQ(a.median_cost, b.median_cost);
  EXPECT_EQ(a.error, b.error);
  EXPECT_EQ(a.error_message, b.error_message);
  EXPECT_EQ(a.build_seconds, b.build_seconds);
  EXPECT_EQ(a.run_seconds, b.run_seconds);
  EXPECT_EQ(a.timestamp, b.timestamp);
  EXPECT_EQ(a.version, b.version);
}

TEST(MeasureRecord, RoundTripsThroughJson) {
  const MeasureRecord r = testing::sample_record();
  expect_same(MeasureRecord::from_json(r.to_json()), r);
}

TEST(MeasureRecord, RoundTripsThroughItsLine) {
  MeasureRecord r = testing::sample_record();
  r.error = MeasureError::WrongAnswer;
  r.error_message = "output[5] expected -0.25 got 0.25";
  expect_same(MeasureRecord::from_json(json::parse(r.to_line())), r);
}

TEST(MeasureRecord, GpuBuildReportRoundTripsAndComesLast) {
  MeasureRecord r = testing::sample_record();
  PtxasReport p;
  p.kernels = 2;
  p.registers = 96;
  p.spill_store_bytes = 16;
  r.ptxas = p;
  const std::string line = r.to_line();
  EXPECT_NE(line.find(",\"ptxas\":{"), std::string::npos) << line;
  EXPECT_GT(line.find("\"ptxas\""), line.find("\"time\"")) << line;
  const MeasureRecord back = MeasureRecord::from_json(json::parse(line));
  ASSERT_TRUE(back.ptxas.has_value());
  EXPECT_EQ(*back.ptxas, p);
  EXPECT_FALSE(MeasureRecord::from_json(json::parse(testing::sample_record().to_line())).ptxas.has_value());
}

TEST(MeasureRecord, CpuWaitRoundTripsAndSaysWhetherTheMachineWasBusy) {
  MeasureRecord r = testing::sample_record();
  EXPECT_FALSE(r.timed_on_busy_machine()) << "unknown (an older log) is not busy";
  EXPECT_EQ(r.to_line().find("cpu_wait"), std::string::npos) << "absent when unknown";
  r.cpu_wait = 0.5;
  const std::string line = r.to_line();
  EXPECT_GT(line.find("\"cpu_wait\":0.5"), line.find("\"time\"")) << line;
  const MeasureRecord back = MeasureRecord::from_json(json::parse(line));
  ASSERT_TRUE(back.cpu_wait.has_value());
  EXPECT_EQ(*back.cpu_wait, 0.5);
  EXPECT_TRUE(back.timed_on_busy_machine());
  r.cpu_wait = kBusyCpuWait / 2;
  EXPECT_FALSE(r.timed_on_busy_machine());
  EXPECT_FALSE(MeasureRecord::from_json(json::parse(testing::sample_record().to_line())).cpu_wait.has_value());
}

TEST(MeasureRecord, TheMachineRoundTripsAfterCpuWaitAndBeforePtxas) {
  MeasureRecord r = testing::sample_record();
  EXPECT_EQ(r.to_line().find("machine"), std::string::npos) << "absent when unknown";
  MachineIdentity m;
  m.vendor = "amd";
  m.family = 26;
  m.model = 2;
  m.stepping = 1;
  m.microarchitecture = "zen5";
  m.cpu_name = "AMD EPYC 9B45";
  m.cores = 2;
  m.isa = "avx512";
  m.l2_kib = 1024;
  r.machine = m;
  r.cpu_wait = 0.01;
  r.ptxas = PtxasReport{};
  const std::string line = r.to_line();
  EXPECT_GT(line.find("\"machine\":{"), line.find("\"cpu_wait\"")) << line;
  EXPECT_LT(line.find("\"machine\":{"), line.find("\"ptxas\"")) << line;
  const MeasureRecord back = MeasureRecord::from_json(json::parse(line));
  ASSERT_TRUE(back.machine.has_value());
  EXPECT_EQ(*back.machine, m);
}

TEST(MeasureRecord, AMalformedMachineIsRefusedNamingTheField) {
  json j = testing::sample_record().to_json();
  j["machine"] = json{{"vendor", "amd"}};
  try {
    MeasureRecord::from_json(j);
    FAIL() << "expected RecordError";
  } catch (const RecordError &e) {
    EXPECT_NE(std::string(e.what()).find("record field 'machine': machine field 'family'"), std::string::npos)
        << e.what();
  }
}

TEST(MeasureRecord, AFormatTwoLineReadsAsOfAnUnknownMachine) {
  json j = testing::sample_record().to_json();
  j["v"] = 2;
  const MeasureRecord r = MeasureRecord::from_json(j);
  EXPECT_EQ(r.version, 2);
  EXPECT_FALSE(r.machine.has_value());
}

TEST(MeasureRecord, LineUsesTheDocumentedKeysWithVersionFirst) {
  const std::string line = testing::sample_record().to_line();
  EXPECT_EQ(line.rfind("{\"v\":3,\"workload\":\"matmul:M=512,N=512,K=512\",", 0), 0u) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
  const json j = json::parse(line);
  for (const char *key : {"v", "workload", "target", "platform", "schedule", "costs", "median",
                          "error", "message", "build_s", "run_s", "time"}) {
    EXPECT_TRUE(j.contains(key)) << key;
  }
  EXPECT_EQ(j.size(), 12u);
  EXPECT_EQ(j["error"], "none");
  EXPECT_EQ(j["schedule"], testing::sample_schedule().to_json());
}

TEST(MeasureRecord, InvalidUtf8InAMessageDoesNotBreakTheLine) {
  MeasureRecord r = testing::sample_record();
  r.error_message = "bad byte \xff here";
  EXPECT_NO_THROW(json::parse(r.to_line()));
}

TEST(MeasureRecord, MissingFieldIsRefusedNamingIt) {
  json j = testing::sample_record().to_json();
  j.erase("costs");
  try {
    MeasureRecord::from_json(j);
    FAIL() << "expected RecordError";
  } catch (const RecordError &e) {
    EXPECT_NE(std::string(e.what()).find("'costs'"), std::string::npos) << e.what();
  }
}

TEST(MeasureRecord, WrongFieldTypeIsRefusedNamingIt) {
  json j = testing::sample_record().to_json();
  j["median"] = "fast";
  try {
    MeasureRecord::from_json(j);
    FAIL() << "expected RecordError";
  } catch (const RecordError &e) {
    EXPECT_NE(std::string(e.what()).find("'median'"), std::string::npos) << e.what();
  }
}

TEST(MeasureRecord, NewerVersionIsRefusedWithUpgradeAdvice) {
  json j = testing::sample_record().to_json();
  j["v"] = 9;
  try {
    MeasureRecord::from_json(j);
    FAIL() << "expected RecordError";
  } catch (const RecordError &e) {
    EXPECT_EQ(std::string(e.what()), std::string("record format version 9 is newer than this tlptune understands; "
                                                 "this tlptune (") +
                                         kTlptuneVersion + ") reads record formats 1 to 3: upgrade tlptune");
  }
}

TEST(MeasureRecord, AnUnknownFieldIsRefusedNamingItAndTheFormatsRead) {
  json j = testing::sample_record().to_json();
  j["quiet_only"] = true;
  try {
    MeasureRecord::from_json(j);
    FAIL() << "expected RecordError";
  } catch (const RecordError &e) {
    EXPECT_NE(std::string(e.what()).find("'quiet_only' is unknown"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("reads record formats 1 to 3"), std::string::npos) << e.what();
  }
}

TEST(MeasureRecord, AFormatOneLineStillReads) {
  json j = testing::sample_record().to_json();
  j["v"] = 1;
  j["cpu_wait"] = 0.01;
  EXPECT_EQ(MeasureRecord::from_json(j).version, 1);
}

TEST(MeasureRecord, NonFiniteNumbersReadBackAsNan) {
  MeasureRecord r = testing::sample_record();
  r.median_cost = std::nan("");
  const MeasureRecord back = MeasureRecord::from_json(json::parse(r.to_line()));
  EXPECT_TRUE(std::isnan(back.median_cost));
}

TEST(MeasureRecord, OkNeedsNoErrorAndSomeCosts) {
  MeasureRecord r = testing::sample_record();
  EXPECT_TRUE(r.ok());
  r.costs.clear();
  EXPECT_FALSE(r.ok());
  r = testing::sample_record();
  r.error = MeasureError::RunTimeout;
  EXPECT_FALSE(r.ok());
}

TEST(MeasureRecord, DedupKeyJoinsWorkloadTargetAndScheduleText) {
  const MeasureRecord r = testing::sample_record();
  EXPECT_EQ(r.dedup_key(), "matmul:M=512,N=512,K=512|x86-64-linux-avx2|" + r.schedule.to_text());
  MeasureRecord other = r;
  other.costs = {1.0};
  other.timestamp = 5;
  EXPECT_EQ(other.dedup_key(), r.dedup_key());
  other.schedule.steps.pop_back();
  EXPECT_NE(other.dedup_key(), r.dedup_key());
}

}  // namespace
}  // namespace tlp
