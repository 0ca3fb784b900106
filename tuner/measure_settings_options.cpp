#include "tuner/measure_settings_options.h"

namespace tlp {

void add_measure_settings_options(CLI::App &cmd, MeasureSettings &s, bool runs_here) {
  cmd.add_option("--build-workers", s.build_workers, "Parallel build processes (0: one per core)")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
  cmd.add_option("--build-timeout", s.build_timeout, "Seconds before a build is abandoned")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  if (runs_here)
    cmd.add_option("--run-timeout", s.run_timeout, "Seconds before a running candidate is killed")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
  cmd.add_option("--min-repeats", s.min_repeats, "Timed runs per candidate, at least")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  cmd.add_option("--min-seconds", s.min_seconds, "Timed seconds per candidate, at least")
      ->capture_default_str()
      ->check(CLI::NonNegativeNumber);
}

}  // namespace tlp
