// Running the tlptune executable from tests, and temporary folders for its files.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace tlp::testing {

struct CliRun {
  int code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `tlptune ARGS` (the path comes from the TLPTUNE_PATH compile definition).
inline CliRun tlptune(const std::string &args) {
  const std::string cmd = std::string(TLPTUNE_PATH) + " " + args + " 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  CliRun r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// A folder removed with everything in it when the test ends.
class TempDir {
 public:
  TempDir() {
    std::string t = (std::filesystem::temp_directory_path() / "tlptune-test-XXXXXX").string();
    path_ = mkdtemp(t.data());
  }
  ~TempDir() { std::filesystem::remove_all(path_); }
  std::string operator/(const std::string &name) const { return (std::filesystem::path(path_) / name).string(); }

 private:
  std::string path_;
};

}  // namespace tlp::testing
