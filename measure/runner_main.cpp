// tlptune-runner: measures built kernels for tlptune, one JSON job per stdin line,
// one JSON result per stdout line (see measure/kernel_runner.h for both shapes).
//
// It links no Halide library and no Torch, so it can be copied alone to a device
// machine. A kernel that crashes or hangs takes this process down; the parent
// (RunnerClient) notices, records the failure and starts a fresh runner.
#include <fcntl.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "measure/gpu_probe.h"
#include "measure/kernel_runner.h"

namespace {

constexpr const char *kUsage =
    "usage: tlptune-runner [--probe-gpu]\n"
    "--probe-gpu prints the first CUDA GPU as one JSON line and exits (1 with a message when there is none).\n"
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

  tlp::KernelRunner runner;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const std::string reply = runner.handle(line);
    // A failed write means the parent is gone: nobody is left to serve.
    if (std::fputs(reply.c_str(), replies) < 0 || std::fputc('\n', replies) == EOF ||
        std::fflush(replies) != 0) {
      return 1;
    }
  }
  return 0;
}
