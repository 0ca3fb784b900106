// Helpers shared by the measure tests.
#pragma once

#include <string>

#include "tests/temp_dir.h"

namespace tlp::testing {


void write_file(const std::string &path, const std::string &bytes);
std::string read_file(const std::string &path);
bool file_exists(const std::string &path);

}  // namespace tlp::testing
