// The runner end to end: RunnerClient driving the real tlptune-runner, on fake
// kernels compiled from C at test time (no Halide needed). Each kernel exports
// kern_argv(void **args) taking halide_buffer_t pointers: input 0, then the output.
#include "measure/runner_client.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "measure/cpu_interference.h"
#include "measure/generated_task_data.h"
#include "test_util.h"

namespace tlp {
namespace {

constexpr const char *kKernelSource = R"C(
#include <stddef.h>
#include <stdio.h>
#include <HalideRuntime.h>

static size_t elements(const halide_buffer_t *b) {
  size_t n = 1;
  for (int d = 0; d < b->dimensions; ++d) n *= (size_t)b->dim[d].extent;
  return n;
}

static void add_one(void **args) {
  const halide_buffer_t *in = (const halide_buffer_t *)args[0];
  halide_buffer_t *out = (halide_buffer_t *)args[1];
  const float *x = (const float *)in->host;
  float *y = (float *)out->host;
  for (size_t i = 0; i < elements(out); ++i) y[i] = x[i] + 1.0f;
}

#if defined(KERNEL_PACKED)
#include <unistd.h>
// The packing: reverses the elements, slowly, so a timing that held it would show it.
int kern_pack0_argv(void **args) {
  const halide_buffer_t *in = (const halide_buffer_t *)args[0];
  halide_buffer_t *out = (halide_buffer_t *)args[1];
  const size_t n = elements(in);
  usleep(300000);
  for (size_t i = 0; i < n; ++i) ((float *)out->host)[i] = ((const float *)in->host)[n - 1 - i];
  return 0;
}
#endif

#if defined(KERNEL_HALIDE_ERROR)
static halide_error_handler_t handler;
halide_error_handler_t halide_set_error_handler(halide_error_handler_t h) {
  halide_error_handler_t old = handler;
  handler = h;
  return old;
}
#endif

int kern_argv(void **args) {
#if defined(KERNEL_CORRECT)
  add_one(args);
  return 0;
#elif defined(KERNEL_WRONG)
  add_one(args);
  ((float *)((halide_buffer_t *)args[1])->host)[5] += 0.5f;
  return 0;
#elif defined(KERNEL_NOOP)
  (void)args;
  return 0;
#elif defined(KERNEL_CRASH)
  (void)args;
  volatile int *nowhere = 0;
  *nowhere = 1;
  return 0;
#elif defined(KERNEL_HANG)
  (void)args;
  volatile int spin = 1;
  while (spin) {
  }
  return 0;
#elif defined(KERNEL_FAIL)
  (void)args;
  return -1;
#elif defined(KERNEL_HALIDE_ERROR)
  (void)args;
  if (handler) handler(NULL, "Input buffer in0 has the wrong size\n");
  return -7;
#elif defined(KERNEL_PACKED)
  const halide_buffer_t *packed = (const halide_buffer_t *)args[0];
  halide_buffer_t *out = (halide_buffer_t *)args[1];
  const size_t n = elements(out);
  for (size_t i = 0; i < n; ++i) ((float *)out->host)[i] = ((const float *)packed->host)[n - 1 - i] + 1.0f;
  return 0;
#elif defined(KERNEL_PRINTS)
  printf("stray output that is not a result line\n");
  fflush(stdout);
  add_one(args);
  return 0;
#endif
}
)C";

const std::vector<std::string> kKernels = {"correct", "wrong",        "noop",   "crash", "hang",
                                           "fail",    "halide_error", "prints", "packed"};

std::string upper(std::string s) {
  for (char &c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

std::string floats_bytes(const std::vector<float> &v) {
  return std::string(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(float));
}

// Compiles the fake kernels and writes a task (y = x + 1 on a 6x4 tensor) once for
// the whole suite.
class RunnerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new testing::TempDir();
    const std::string source = dir_->file("kernels.c");
    testing::write_file(source, kKernelSource);
    for (const std::string &k : kKernels) {
      const std::string cmd = "cc -shared -fPIC -O0 -I" TLP_HALIDE_RUNTIME_INCLUDE_DIR " -DKERNEL_" +
                              upper(k) + " -o " + kernel(k) + " " + source;
      compiled_ = std::system(cmd.c_str()) == 0 && compiled_;
    }
    write_task(task_dir());
    write_packed_task(packed_task_dir());
  }
  static void TearDownTestSuite() {
    delete dir_;
    dir_ = nullptr;
  }
  void SetUp() override {
    if (!compiled_) GTEST_SKIP() << "no working 'cc' on PATH to build the fake kernels";
  }

  static std::string kernel(const std::string &name) { return dir_->file(name + ".so"); }
  static std::string task_dir() { return dir_->path(); }

  static void write_task(const std::string &dir) {
    std::vector<float> in(24), ref(24);
    for (size_t i = 0; i < in.size(); ++i) {
      in[i] = 0.25f * static_cast<float>(i) - 2.5f;
      ref[i] = in[i] + 1.0f;
    }
    testing::write_file(dir + "/in0.f32", floats_bytes(in));
    testing::write_file(dir + "/ref.f32", floats_bytes(ref));
    testing::write_file(dir + "/task.json",
                        R"({"format": 1, "inputs": [{"file": "in0.f32", "shape": [6, 4]}],)"
                        R"( "output": {"file": "ref.f32", "shape": [6, 4]}})");
  }

  // The same task, its input to be packed (into a 4x6 tensor) by the kernel's kern_pack0.
  static std::string packed_task_dir() { return dir_->path() + "/packed"; }
  static void write_packed_task(const std::string &dir) {
    std::filesystem::create_directories(dir);
    write_task(dir);
    testing::write_file(dir + "/task.json",
                        R"({"format": 2, "inputs": [{"file": "in0.f32", "shape": [6, 4],)"
                        R"( "pack": {"entry_suffix": "_pack0", "shape": [4, 6]}}],)"
                        R"( "output": {"file": "ref.f32", "shape": [6, 4]}})");
  }

  static RunJob job(const std::string &kernel_name) {
    RunJob j;
    j.artifact = kernel(kernel_name);
    j.entry = "kern";
    j.data_dir = task_dir();
    j.warmup = 1;
    j.min_repeats = 3;
    j.max_repeats = 50;
    j.min_seconds = 0;
    return j;
  }

  RunnerClient client_{{TLP_RUNNER_PATH}};
  static constexpr double kTimeout = 2.0;

  static testing::TempDir *dir_;
  static bool compiled_;
};

testing::TempDir *RunnerTest::dir_ = nullptr;
bool RunnerTest::compiled_ = true;

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

TEST_F(RunnerTest, CorrectKernelHasNoErrorAndAtLeastMinRepeatsCosts) {
  const RunResult r = client_.run(job("correct"), kTimeout);
  ASSERT_EQ(r.error, MeasureError::None) << r.message;
  EXPECT_GE(r.costs.size(), 3u);
  EXPECT_LE(r.costs.size(), 50u);
  const auto [lo, hi] = std::minmax_element(r.costs.begin(), r.costs.end());
  EXPECT_GE(r.median, *lo);
  EXPECT_LE(r.median, *hi);
  EXPECT_GT(*lo, 0.0);
  EXPECT_EQ(r.max_abs_error, 0.0);
  EXPECT_EQ(r.message, "");
  EXPECT_GT(r.seconds_taken, 0.0);
  EXPECT_FALSE(r.cpu_wait.has_value()) << "timed for far less than kMinCpuWaitWindow: no reading";
}

// The packing sleeps 0.3 s: a timing that held it would show it in every cost. The
// kernel reads the packed input, so a right answer also shows the packing ran.
TEST_F(RunnerTest, APackedInputIsPackedOnceBeforeTimingAndNeverTimed) {
  RunJob j = job("packed");
  j.data_dir = packed_task_dir();
  j.min_repeats = 5;
  const RunResult r = client_.run(j, kTimeout);
  ASSERT_EQ(r.error, MeasureError::None) << r.message;
  ASSERT_GE(r.costs.size(), 5u);
  for (double c : r.costs) EXPECT_LT(c, 0.1) << "a timed run included the packing";
  EXPECT_GE(r.seconds_taken, 0.3) << "the packing ran once, before the timed runs";
  EXPECT_LT(r.seconds_taken, 1.5) << "the packing ran once, not per run (six runs would take 1.8 s)";
}

TEST_F(RunnerTest, APackingTheLibraryLacksIsRuntimeErrorNamingTheSymbol) {
  RunJob j = job("correct");
  j.data_dir = packed_task_dir();
  const RunResult r = client_.run(j, kTimeout);
  EXPECT_EQ(r.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(r.message, "kern_pack0_argv")) << r.message;
}

TEST_F(RunnerTest, ALongEnoughTimingWindowReportsCpuContention) {
  if (!cpu_snapshot()) GTEST_SKIP() << "no /proc/pressure/cpu here";
  RunJob j = job("correct");
  j.max_repeats = 1000000;
  j.min_seconds = kMinCpuWaitWindow * 1.5;
  const RunResult r = client_.run(j, kTimeout);
  ASSERT_EQ(r.error, MeasureError::None) << r.message;
  ASSERT_TRUE(r.cpu_wait.has_value());
  EXPECT_GE(*r.cpu_wait, 0.0);
  EXPECT_LE(*r.cpu_wait, 1.0);
}

TEST_F(RunnerTest, RepeatsUntilMinSecondsIsReached) {
  RunJob j = job("correct");
  j.min_repeats = 1;
  j.max_repeats = 1000000;
  j.min_seconds = 0.02;
  const RunResult r = client_.run(j, kTimeout);
  ASSERT_EQ(r.error, MeasureError::None) << r.message;
  EXPECT_GE(std::accumulate(r.costs.begin(), r.costs.end(), 0.0), 0.02);
}

TEST_F(RunnerTest, MaxRepeatsCapsTheRepeats) {
  RunJob j = job("correct");
  j.min_repeats = 3;
  j.max_repeats = 5;
  j.min_seconds = 100;  // unreachable: the cap must stop the loop
  const RunResult r = client_.run(j, kTimeout);
  ASSERT_EQ(r.error, MeasureError::None) << r.message;
  EXPECT_EQ(r.costs.size(), 5u);
}

TEST_F(RunnerTest, WrongValueIsWrongAnswerNamingTheElement) {
  const RunResult r = client_.run(job("wrong"), kTimeout);
  EXPECT_EQ(r.error, MeasureError::WrongAnswer);
  EXPECT_TRUE(contains(r.message, "output[5]")) << r.message;
  EXPECT_TRUE(contains(r.message, "expected -0.25 got 0.25")) << r.message;
  EXPECT_NEAR(r.max_abs_error, 0.5, 1e-6);
}

TEST_F(RunnerTest, KernelThatWritesNothingIsWrongAnswer) {
  const RunResult r = client_.run(job("noop"), kTimeout);
  EXPECT_EQ(r.error, MeasureError::WrongAnswer);
  EXPECT_TRUE(contains(r.message, "got nan")) << r.message;
  EXPECT_TRUE(std::isinf(r.max_abs_error));
}

TEST_F(RunnerTest, NonZeroReturnIsRuntimeError) {
  const RunResult r = client_.run(job("fail"), kTimeout);
  EXPECT_EQ(r.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(r.message, "kern_argv returned -1")) << r.message;
  EXPECT_TRUE(r.costs.empty());
}

TEST_F(RunnerTest, HalideErrorMessageIsCaptured) {
  const RunResult r = client_.run(job("halide_error"), kTimeout);
  EXPECT_EQ(r.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(r.message, "kern_argv returned -7")) << r.message;
  EXPECT_TRUE(contains(r.message, "Input buffer in0 has the wrong size")) << r.message;
}

TEST_F(RunnerTest, CrashIsRuntimeErrorNamingTheSignalAndTheNextJobSucceeds) {
  const RunResult crashed = client_.run(job("crash"), kTimeout);
  EXPECT_EQ(crashed.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(crashed.message, "runner died: killed by signal 11")) << crashed.message;

  const RunResult next = client_.run(job("correct"), kTimeout);
  EXPECT_EQ(next.error, MeasureError::None) << next.message;
  EXPECT_EQ(client_.starts(), 2);
}

TEST_F(RunnerTest, HangIsRunTimeoutAndTheNextJobSucceeds) {
  const double timeout = 1.0;
  const RunResult hung = client_.run(job("hang"), timeout);
  EXPECT_EQ(hung.error, MeasureError::RunTimeout);
  EXPECT_GE(hung.seconds_taken, timeout * 0.95);
  EXPECT_LT(hung.seconds_taken, timeout + 10.0);  // generous: never fail on a slow machine
  EXPECT_TRUE(contains(hung.message, "timed out")) << hung.message;

  const RunResult next = client_.run(job("correct"), kTimeout);
  EXPECT_EQ(next.error, MeasureError::None) << next.message;
}

TEST_F(RunnerTest, OneRunnerServesManyJobs) {
  for (const char *k : {"correct", "wrong", "fail", "correct"}) client_.run(job(k), kTimeout);
  EXPECT_EQ(client_.starts(), 1);
}

TEST_F(RunnerTest, KernelPrintingToStdoutDoesNotCorruptTheReply) {
  const RunResult r = client_.run(job("prints"), kTimeout);
  EXPECT_EQ(r.error, MeasureError::None) << r.message;
}

TEST_F(RunnerTest, MissingArtifactIsRuntimeErrorNamingTheFile) {
  RunJob j = job("correct");
  j.artifact = task_dir() + "/no_such_kernel.so";
  const RunResult r = client_.run(j, kTimeout);
  EXPECT_EQ(r.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(r.message, "no_such_kernel.so")) << r.message;
}

TEST_F(RunnerTest, MissingEntryIsRuntimeErrorNamingTheSymbol) {
  RunJob j = job("correct");
  j.entry = "other";
  const RunResult r = client_.run(j, kTimeout);
  EXPECT_EQ(r.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(r.message, "other_argv")) << r.message;
}

TEST_F(RunnerTest, MissingDataFileIsRuntimeErrorNamingTheFile) {
  testing::TempDir data;
  write_task(data.path());
  std::remove(data.file("ref.f32").c_str());
  RunJob j = job("correct");
  j.data_dir = data.path();
  const RunResult r = client_.run(j, kTimeout);
  EXPECT_EQ(r.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(r.message, "ref.f32")) << r.message;

  j.data_dir = data.file("missing_dir");
  const RunResult r2 = client_.run(j, kTimeout);
  EXPECT_EQ(r2.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(r2.message, "task.json")) << r2.message;
}

TEST_F(RunnerTest, DataFileOfTheWrongSizeIsRuntimeError) {
  testing::TempDir data;
  write_task(data.path());
  testing::write_file(data.file("in0.f32"), std::string(10, '\0'));
  RunJob j = job("correct");
  j.data_dir = data.path();
  const RunResult r = client_.run(j, kTimeout);
  EXPECT_EQ(r.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(r.message, "in0.f32")) << r.message;
}

TEST_F(RunnerTest, RewrittenTaskIsReloadedNotServedFromTheCache) {
  testing::TempDir data;
  write_task(data.path());
  RunJob j = job("correct");
  j.data_dir = data.path();
  ASSERT_EQ(client_.run(j, kTimeout).error, MeasureError::None);
  // Same directory, new reference: the cached copy must not be used.
  testing::write_file(data.file("ref.f32"), floats_bytes(std::vector<float>(24, 100.0f)));
  testing::write_file(data.file("task.json"),
                      R"({"format": 1, "inputs": [{"file": "in0.f32", "shape": [6, 4]}],)"
                      R"( "output": {"file": "ref.f32", "shape": [6, 4]}} )");
  EXPECT_EQ(client_.run(j, kTimeout).error, MeasureError::WrongAnswer);
}

// The portable task form: input 0 generated from seed 5 on the runner's side, the
// reference (x + 1) given at `count` positions drawn by the same seed.
void write_portable_task(const std::string &dir, size_t count) {
  std::vector<float> in(24);
  generate_task_input(5, 0, in.data(), in.size());
  std::vector<float> ref;
  for (size_t p : reference_sample_positions(5, count, in.size())) ref.push_back(in[p] + 1.0f);
  testing::write_file(dir + "/ref.f32", floats_bytes(ref));
  testing::write_file(dir + "/task.json",
                      R"({"format": 1, "inputs": [{"generate": {"seed": 5, "index": 0}, "shape": [6, 4]}],)"
                      R"( "output": {"file": "ref.f32", "shape": [6, 4], "sample": {"seed": 5, "count": )" +
                          std::to_string(count) + "}}}");
}

TEST(GeneratedTaskData, InputsAreDeterministicNonZeroAndDifferPerIndex) {
  std::vector<float> a(1000), b(1000), c(1000);
  generate_task_input(3, 0, a.data(), a.size());
  generate_task_input(3, 0, b.data(), b.size());
  generate_task_input(3, 1, c.data(), c.size());
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  int negative = 0;
  for (float x : a) {
    EXPECT_GE(std::fabs(x), 0.1f);
    EXPECT_LT(std::fabs(x), 1.0f);
    negative += x < 0;
  }
  EXPECT_GT(negative, 400);
  EXPECT_LT(negative, 600);
  // Fixed numbers: a bundle's writer and a runner built elsewhere must agree.
  EXPECT_FLOAT_EQ(a[0], 0.204435885f);
  EXPECT_FLOAT_EQ(a[1], -0.2662341f);
  EXPECT_EQ(reference_sample_positions(5, 3, 24), (std::vector<size_t>{23, 21, 21}));
}

TEST_F(RunnerTest, GeneratedInputsWithASampledReferenceAreChecked) {
  testing::TempDir data;
  write_portable_task(data.path(), 64);
  const std::vector<size_t> positions = reference_sample_positions(5, 64, 24);
  ASSERT_NE(std::find(positions.begin(), positions.end(), size_t(5)), positions.end())
      << "the sample must cover the element the wrong kernel breaks";
  RunJob j = job("correct");
  j.data_dir = data.path();
  EXPECT_EQ(client_.run(j, kTimeout).error, MeasureError::None);
  j.artifact = kernel("wrong");
  const RunResult r = client_.run(j, kTimeout);
  EXPECT_EQ(r.error, MeasureError::WrongAnswer);
  EXPECT_TRUE(contains(r.message, "output[5]")) << r.message;
}

TEST_F(RunnerTest, SampledReferenceChecksOnlyItsPositions) {
  testing::TempDir data;
  write_portable_task(data.path(), 3);
  const std::vector<size_t> positions = reference_sample_positions(5, 3, 24);
  ASSERT_EQ(std::find(positions.begin(), positions.end(), size_t(5)), positions.end());
  RunJob j = job("wrong");  // breaks element 5 alone, which is not sampled
  j.data_dir = data.path();
  EXPECT_EQ(client_.run(j, kTimeout).error, MeasureError::None);
}

TEST_F(RunnerTest, SampledReferenceOfTheWrongLengthIsRuntimeError) {
  testing::TempDir data;
  write_portable_task(data.path(), 10);
  testing::write_file(data.file("ref.f32"), floats_bytes(std::vector<float>(9, 1.0f)));
  RunJob j = job("correct");
  j.data_dir = data.path();
  const RunResult r = client_.run(j, kTimeout);
  EXPECT_EQ(r.error, MeasureError::RuntimeError);
  EXPECT_TRUE(contains(r.message, "ref.f32")) << r.message;
}

TEST(RunnerClient, RunnerThatCannotStartThrowsNamingIt) {
  RunnerClient client({"/no/such/tlptune-runner"});
  try {
    client.run(RunJob{}, 1.0);
    FAIL() << "expected WorkerError";
  } catch (const WorkerError &e) {
    EXPECT_NE(std::string(e.what()).find("/no/such/tlptune-runner"), std::string::npos);
  }
}

TEST(RunnerClient, MalformedReplyIsUnknownQuotingTheLine) {
  RunnerClient client({"sh", "-c", "read job; echo not-json; sleep 30"});
  const RunResult r = client.run(RunJob{}, 2.0);
  EXPECT_EQ(r.error, MeasureError::Unknown);
  EXPECT_NE(r.message.find("not-json"), std::string::npos) << r.message;
}

TEST(RunnerClient, RunnerExitingReportsItsExitCode) {
  RunnerClient client({"sh", "-c", "read job; exit 3"});
  const RunResult r = client.run(RunJob{}, 2.0);
  EXPECT_EQ(r.error, MeasureError::RuntimeError);
  EXPECT_EQ(r.message, "runner died: exited with code 3");
}

TEST(RunnerClient, DefaultRunnerIsNextToTheExecutable) {
  const std::string path = RunnerClient::default_runner_path();
  EXPECT_EQ(path.substr(path.rfind('/') + 1), "tlptune-runner");
  EXPECT_EQ(path[0], '/');
}

}  // namespace
}  // namespace tlp
