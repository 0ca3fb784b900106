#include "measure/shell_command.h"

#include <cstdio>

namespace tlp {

std::string shell_quote(const std::string &s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

int run_shell_command(const std::string &command, std::string &output) {
  FILE *p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return -1;
  char buf[4096];
  while (size_t n = fread(buf, 1, sizeof buf, p)) output.append(buf, n);
  return pclose(p);
}

}  // namespace tlp
