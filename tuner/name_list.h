// Comma-separated names as options take them ("random, tlp,random").
#pragma once

#include <string>
#include <vector>

namespace tlp {

// The names in order, trimmed of spaces, with empty items and repeats dropped.
std::vector<std::string> split_name_list(const std::string &csv);

}  // namespace tlp
