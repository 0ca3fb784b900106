// Running a helper program through the shell (ptxas, a runner's probe) and
// reading what it printed.
#pragma once

#include <string>

namespace tlp {

// `s` as one single-quoted shell word.
std::string shell_quote(const std::string &s);

// Runs `command` with sh, stderr joined to stdout; returns its exit status (-1
// when it could not be started) and appends what it printed to `output`.
int run_shell_command(const std::string &command, std::string &output);

}  // namespace tlp
