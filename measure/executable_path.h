// Where tlptune's helper programs live: next to the running executable (the
// build puts every program in one bin/ folder, and an install keeps them together).
#pragma once

#include <string>

namespace tlp {

// <directory of /proc/self/exe>/<name>, or just <name> (a PATH lookup) if that fails.
std::string sibling_executable(const std::string &name);

// sibling_executable(name), checked: throws std::runtime_error naming the missing
// program and what to do when it is not an executable file. Called before any
// worker thread starts, so that a copied-away tlptune fails with a clear error
// instead of an abort inside a builder thread.
std::string helper_executable(const std::string &name);

}  // namespace tlp
