// tlptune-runner: measures built kernels for tlptune, one JSON job per stdin line,
// one JSON result per stdout line (see measure/kernel_runner.h for both shapes).
//
// It links no Halide library and no Torch, so it can be copied alone to a device
// machine. A kernel that crashes or hangs takes this process down; the parent
// (RunnerClient) notices, records the failure and starts a fresh runner.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "measure/gpu_probe.h"
#include "measure/kernel_runner.h"

namespace {

constexpr const char *kUsage =
    "usage: tlptune-runner [--probe-gpu | --job-timeout SECONDS]\n"
    "--probe-gpu prints the first CUDA GPU as one JSON line and exits (1 with a message when there is none).\n"
    "--job-timeout SECONDS: a job still running after SECONDS gets a run_timeout result and the runner\n"
    "exits with status 124 (for scripts that drive the runner alone, e.g. a bundle's run.sh).\n"
    "Reads JSON jobs, one per line, on stdin and writes one JSON result line per job\n"
    "on stdout, until end of input. It is started by tlptune; see measure/kernel_runner.h\n"
    "for the job and result formats.\n";

// Keeps the protocol channel private: the original stdout becomes a private
// descriptor for result lines, and descriptor 1 is pointed at stderr, so whatever a
// kernel or its runtime prints cannot corrupt the replies.
std::FILE *take_protocol_channel() {
  const int fd = ::fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 3);
  if (fd < 0 || ::dup2(STDERR_FILENO, STDOUT_FILENO) < 0) return nullptr;
  return ::fdopen(fd, "w");
}

// What the alarm handler writes: prepared before each job, since a signal
// handler may only call async-signal-safe functions (write, _exit).
char g_timeout_reply[256];
size_t g_timeout_reply_size = 0;
int g_replies_fd = -1;

void on_job_timeout(int) {
  if (g_replies_fd >= 0 && g_timeout_reply_size > 0) {
    ssize_t ignored = ::write(g_replies_fd, g_timeout_reply, g_timeout_reply_size);
    (void)ignored;
  }
  ::_exit(124);
}

void arm_job_timeout(const std::string &job_line, unsigned seconds) {
  const nlohmann::json j = nlohmann::json::parse(job_line, nullptr, false);
  const nlohmann::json id = j.is_object() && j.contains("id") ? j["id"] : nlohmann::json(nullptr);
  const nlohmann::json reply = {{"id", id},
                                {"error", "run_timeout"},
                                {"costs", nlohmann::json::array()},
                                {"median", 0},
                                {"max_abs_error", nullptr},
                                {"message", "still running after " + std::to_string(seconds) + " s (--job-timeout)"}};
  const std::string line = reply.dump() + "\n";
  g_timeout_reply_size = std::min(line.size(), sizeof g_timeout_reply);
  std::memcpy(g_timeout_reply, line.data(), g_timeout_reply_size);
  ::alarm(seconds);
}

}  // namespace

int probe_gpu_command() {
  try {
    const tlp::GpuDescription g = tlp::probe_gpu();
    const nlohmann::json j = {{"name", g.name},
                              {"platform", g.platform()},
                              {"capability", g.capability},
                              {"multiprocessors", g.multiprocessors},
                              {"max_threads_per_block", g.max_threads_per_block},
                              {"shared_bytes_per_block", g.shared_bytes_per_block},
                              {"registers_per_block", g.registers_per_block},
                              {"memory_bytes", g.memory_bytes}};
    std::puts(j.dump().c_str());
    return 0;
  } catch (const std::exception &e) {
    std::fprintf(stderr, "tlptune-runner: %s\n", e.what());
    return 1;
  }
}

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--probe-gpu") == 0) return probe_gpu_command();
  unsigned job_timeout = 0;
  if (argc == 3 && std::strcmp(argv[1], "--job-timeout") == 0) {
    char *end = nullptr;
    const long v = std::strtol(argv[2], &end, 10);
    if (!end || *end || v < 1) {
      std::fprintf(stderr, "tlptune-runner: --job-timeout needs a whole number of seconds >= 1, not '%s'\n", argv[2]);
      return 2;
    }
    job_timeout = unsigned(v);
    argc = 1;
  }
  if (argc > 1) {
    const bool help = std::strcmp(argv[1], "-h") == 0 || std::strcmp(argv[1], "--help") == 0;
    std::fputs(kUsage, help ? stdout : stderr);
    return help ? 0 : 2;
  }
  std::FILE *replies = take_protocol_channel();
  if (!replies) {
    std::perror("tlptune-runner: cannot set up its output");
    return 1;
  }
  std::ios::sync_with_stdio(false);

  if (job_timeout > 0) {
    g_replies_fd = ::fileno(replies);
    std::signal(SIGALRM, on_job_timeout);
  }

  tlp::KernelRunner runner;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (job_timeout > 0) arm_job_timeout(line, job_timeout);
    const std::string reply = runner.handle(line);
    if (job_timeout > 0) ::alarm(0);
    // A failed write means the parent is gone: nobody is left to serve.
    if (std::fputs(reply.c_str(), replies) < 0 || std::fputc('\n', replies) == EOF ||
        std::fflush(replies) != 0) {
      return 1;
    }
  }
  return 0;
}
