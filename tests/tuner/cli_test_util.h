// Running the tlptune executable from tests, and temporary folders for its files.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/temp_dir.h"

namespace tlp::testing {

struct CliRun {
  int code = -1;
  std::string output;  // stdout and stderr together
};

// Runs `PROGRAM ARGS` through the shell (PROGRAM is quoted, ARGS is not).
inline CliRun run_program(const std::string &program, const std::string &args) {
  const std::string cmd = "'" + program + "' " + args + " 2>&1";
  FILE *p = popen(cmd.c_str(), "r");
  CliRun r;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) r.output.append(buf, n);
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return r;
}

// Runs `tlptune ARGS` (the path comes from the TLPTUNE_PATH compile definition).
inline CliRun tlptune(const std::string &args) { return run_program(TLPTUNE_PATH, args); }

// Every non-empty line of a JSON-lines file (a log, a bundle's jobs), parsed.
inline std::vector<nlohmann::json> read_json_lines(const std::string &path) {
  std::vector<nlohmann::json> out;
  std::ifstream f(path);
  std::string line;
  while (std::getline(f, line))
    if (!line.empty()) out.push_back(nlohmann::json::parse(line));
  return out;
}

}  // namespace tlp::testing
