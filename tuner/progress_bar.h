// A one-line progress display for long work: done/total, the best figure so far
// and an ETA. On a terminal it redraws in place; otherwise (logs, CI) it prints
// a plain line at most every few seconds.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace tlp {

class ProgressBar {
 public:
  ProgressBar(std::string label, int total, FILE *out = stderr);
  // `best` is free text such as "best 120.3 GFLOP/s".
  void update(int done, const std::string &best);
  void finish();  // ends the line

 private:
  std::string label_;
  int total_;
  FILE *out_;
  bool tty_;
  std::chrono::steady_clock::time_point start_;
  std::chrono::steady_clock::time_point last_print_;
  bool drawn_ = false;
};

std::string format_duration(double seconds);  // "1:05:03", "4:07", "0:09"

}  // namespace tlp
