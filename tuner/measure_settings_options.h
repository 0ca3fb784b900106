// The command-line options of MeasureSettings, one wording for every command
// that builds and times candidates (tune, collect, bench, bundle).
#pragma once

#include <CLI/CLI.hpp>

#include "measure/measure_settings.h"

namespace tlp {

// --build-workers, --build-timeout, --min-repeats, --min-seconds, and with
// `runs_here` --run-timeout (a bundle's runs happen elsewhere, by its run.sh).
void add_measure_settings_options(CLI::App &cmd, MeasureSettings &s, bool runs_here = true);

}  // namespace tlp
