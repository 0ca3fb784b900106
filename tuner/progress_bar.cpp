#include "tuner/progress_bar.h"

#include <unistd.h>

namespace tlp {

std::string format_duration(double seconds) {
  if (seconds < 0) seconds = 0;
  long s = long(seconds + 0.5);
  char buf[32];
  if (s >= 3600) snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  else snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  return buf;
}

ProgressBar::ProgressBar(std::string label, int total, FILE *out)
    : label_(std::move(label)), total_(total), out_(out), tty_(isatty(fileno(out)) != 0),
      start_(std::chrono::steady_clock::now()), last_print_(start_) {}

void ProgressBar::update(int done, const std::string &best) {
  using namespace std::chrono;
  const auto now = steady_clock::now();
  const double elapsed = duration<double>(now - start_).count();
  const bool last = done >= total_;
  if (!tty_ && !last && duration<double>(now - last_print_).count() < 5.0) return;
  last_print_ = now;
  std::string eta = done > 0 ? format_duration(elapsed / done * (total_ - done)) : "?";
  constexpr int kWidth = 24;
  const int filled = total_ > 0 ? int(double(kWidth) * done / total_) : kWidth;
  std::string bar(size_t(filled), '#');
  bar.resize(kWidth, '.');
  fprintf(out_, "%s%s [%s] %d/%d  %s  elapsed %s  ETA %s%s", tty_ ? "\r" : "", label_.c_str(), bar.c_str(), done,
          total_, best.c_str(), format_duration(elapsed).c_str(), eta.c_str(), tty_ ? "\033[K" : "\n");
  fflush(out_);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (tty_ && drawn_) fputc('\n', out_);
  drawn_ = false;
}

}  // namespace tlp
