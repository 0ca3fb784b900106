// Where tlptune's helper programs live: next to the running executable (the
// build puts every program in one bin/ folder, and an install keeps them together).
#pragma once

#include <string>

namespace tlp {

// <directory of /proc/self/exe>/<name>, or just <name> (a PATH lookup) if that fails.
std::string sibling_executable(const std::string &name);

}  // namespace tlp
