#include "tuner/command.h"

namespace tlp {

std::string shell_quoted_command_line(int argc, const char *const *argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) {
    std::string word = i == 0 ? "tlptune" : argv[i];  // the program as users call it, not its path here
    const bool plain = !word.empty() && word.find_first_not_of(
                                            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                            "@%+=:,./_-") == std::string::npos;
    if (!plain) {
      std::string quoted = "'";
      for (char ch : word) quoted += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
      word = quoted + "'";
    }
    line += (i ? " " : "") + word;
  }
  return line;
}

}  // namespace tlp
