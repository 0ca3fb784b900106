#include "measure/record_log.h"

#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include <gtest/gtest.h>

#include "record_fixtures.h"
#include "test_util.h"

namespace tlp {
namespace {

using testing::read_file;
using testing::write_file;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// The error message RecordLog's constructor throws for path, or "" if none.
std::string open_error(const std::string &path) {
  try {
    RecordLog log(path);
  } catch (const RecordError &e) {
    return e.what();
  }
  return "";
}

TEST(RecordLog, AppendedRecordsReadBackInOrder) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  {
    RecordLog log(path);
    log.append(testing::sample_record(0.001));
    log.append(testing::sample_record(0.002));
  }
  const LogReadResult read = read_record_log(path);
  EXPECT_TRUE(read.warnings.empty());
  ASSERT_EQ(read.records.size(), 2u);
  EXPECT_EQ(read.records[0].median_cost, 0.001);
  EXPECT_EQ(read.records[1].median_cost, 0.002);
  EXPECT_EQ(read.records[1].schedule, testing::sample_schedule());
}

TEST(RecordLog, EachAppendIsOnDiskBeforeTheLogCloses) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  RecordLog log(path);
  log.append(testing::sample_record());
  EXPECT_EQ(read_record_log(path).records.size(), 1u);
}

TEST(RecordLog, AppendingNeverTruncatesExistingContent) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  {
    RecordLog log(path);
    log.append(testing::sample_record(0.001));
  }
  const std::string before = read_file(path);
  {
    RecordLog log(path);
    log.append(testing::sample_record(0.002));
  }
  const std::string after = read_file(path);
  ASSERT_GT(after.size(), before.size());
  EXPECT_EQ(after.substr(0, before.size()), before);
  EXPECT_EQ(read_record_log(path).records.size(), 2u);
}

TEST(RecordLog, OpeningWithoutAppendingLeavesTheFileUnchanged) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  write_file(path, testing::sample_record().to_line() + "\n");
  const std::string before = read_file(path);
  { RecordLog log(path); }
  EXPECT_EQ(read_file(path), before);
}

TEST(RecordLog, TruncatedLastLineIsSkippedWithAWarningAndTheNextAppendStartsANewLine) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  {
    RecordLog log(path);
    log.append(testing::sample_record(0.001));
    log.append(testing::sample_record(0.002));
  }
  // A crash in the middle of writing the third record.
  const std::string cut = testing::sample_record(0.003).to_line().substr(0, 40);
  write_file(path, read_file(path) + cut);

  LogReadResult read = read_record_log(path);
  EXPECT_EQ(read.records.size(), 2u);
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_EQ(read.warnings[0], path + ":3: skipped a truncated last line");

  const std::string damaged = read_file(path);
  {
    RecordLog log(path);
    log.append(testing::sample_record(0.004));
  }
  const std::string after = read_file(path);
  EXPECT_EQ(after.substr(0, damaged.size()), damaged);  // the damaged line is kept
  EXPECT_EQ(after.substr(damaged.size(), 1), "\n");     // and left alone on its line

  read = read_record_log(path);
  ASSERT_EQ(read.records.size(), 3u);
  EXPECT_EQ(read.records[2].median_cost, 0.004);
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_EQ(read.warnings[0], path + ":3: skipped an unparsable line");
}

TEST(RecordLog, LogHoldingOnlyACutShortRecordIsStillALog) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  write_file(path, testing::sample_record().to_line().substr(0, 30));
  const LogReadResult read = read_record_log(path);
  EXPECT_TRUE(read.records.empty());
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_EQ(read.warnings[0], path + ":1: skipped a truncated last line");
  EXPECT_EQ(open_error(path), "");
}

TEST(RecordLog, UnparsableMiddleLineIsSkippedWithAWarningNamingIt) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  const std::string rec = testing::sample_record().to_line() + "\n";
  write_file(path, rec + "garbage here\n" + rec);
  const LogReadResult read = read_record_log(path);
  EXPECT_EQ(read.records.size(), 2u);
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_EQ(read.warnings[0], path + ":2: skipped an unparsable line");
}

TEST(RecordLog, RecordWithAMissingFieldIsSkippedWithAWarning) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  const std::string rec = testing::sample_record().to_line() + "\n";
  write_file(path, rec + "{\"v\":1,\"workload\":\"x\"}\n" + rec);
  const LogReadResult read = read_record_log(path);
  EXPECT_EQ(read.records.size(), 2u);
  ASSERT_EQ(read.warnings.size(), 1u);
  EXPECT_TRUE(contains(read.warnings[0], path + ":2: skipped a bad record")) << read.warnings[0];
}

TEST(RecordLog, BlankLinesAreIgnored) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  const std::string rec = testing::sample_record().to_line() + "\n";
  write_file(path, "\n\n" + rec + "\n  \n" + rec + "\n");
  const LogReadResult read = read_record_log(path);
  EXPECT_EQ(read.records.size(), 2u);
  EXPECT_TRUE(read.warnings.empty());
  EXPECT_EQ(open_error(path), "");
}

TEST(RecordLog, EmptyFileIsAnEmptyLog) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  write_file(path, "");
  EXPECT_TRUE(read_record_log(path).records.empty());
  EXPECT_EQ(open_error(path), "");
}

TEST(RecordLog, NonTlptuneFileIsRefusedAndLeftUnchanged) {
  testing::TempDir dir;
  for (const std::string &content :
       {std::string("hello world\nsecond line\n"), std::string("{\"name\": \"config\"}\n"),
        std::string("\n[1, 2, 3]")}) {
    const std::string path = dir.file("notes.txt");
    write_file(path, content);
    const std::string error = open_error(path);
    EXPECT_TRUE(contains(error, "'" + path + "' is not a tlptune log")) << error;
    EXPECT_TRUE(contains(error, "choose another --log file")) << error;
    EXPECT_EQ(read_file(path), content);
    try {
      read_record_log(path);
      FAIL() << "expected RecordError";
    } catch (const RecordError &e) {
      EXPECT_TRUE(contains(e.what(), "not a tlptune log")) << e.what();
    }
  }
}

TEST(RecordLog, FirstLineNumberIsNamedInTheRefusal) {
  testing::TempDir dir;
  const std::string path = dir.file("notes.txt");
  write_file(path, "hello\n");
  EXPECT_EQ(open_error(path), "'" + path +
                                  "' is not a tlptune log (line 1 is not a tlptune record); "
                                  "choose another --log file");
}

TEST(RecordLog, MissingDirectoryGivesAClearError) {
  testing::TempDir dir;
  const std::string path = dir.file("no/such/dir/log.jsonl");
  EXPECT_EQ(open_error(path), "cannot write log '" + path +
                                  "': No such file or directory; check the path and permissions");
  EXPECT_FALSE(testing::file_exists(path));
}

TEST(RecordLog, UnwritableFileGivesAClearError) {
  if (::geteuid() == 0) GTEST_SKIP() << "root can write anything";
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  write_file(path, "");
  ::chmod(path.c_str(), 0444);
  EXPECT_TRUE(contains(open_error(path), "cannot write log '" + path + "': Permission denied"));
}

TEST(RecordLog, ReadingAMissingLogSaysItDoesNotExist) {
  testing::TempDir dir;
  const std::string path = dir.file("absent.jsonl");
  try {
    read_record_log(path);
    FAIL() << "expected RecordError";
  } catch (const RecordError &e) {
    EXPECT_EQ(std::string(e.what()), "log '" + path + "' does not exist");
  }
}

TEST(RecordLog, NewerVersionRecordIsRefusedWithUpgradeAdvice) {
  testing::TempDir dir;
  const std::string path = dir.file("log.jsonl");
  std::string newer = testing::sample_record().to_line();
  newer.replace(0, 6, "{\"v\":9");
  write_file(path, testing::sample_record().to_line() + "\n" + newer + "\n");
  try {
    read_record_log(path);
    FAIL() << "expected RecordError";
  } catch (const RecordError &e) {
    EXPECT_TRUE(contains(e.what(), path + ":2: record format version 9 is newer")) << e.what();
    EXPECT_TRUE(contains(e.what(), "upgrade tlptune")) << e.what();
  }
}

}  // namespace
}  // namespace tlp
