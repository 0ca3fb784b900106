// tlptune ops: lists the operators and their parameters.
#include <cstdio>

#include "codegen/operator.h"
#include "tuner/command.h"

namespace tlp {

Command add_ops_command(CLI::App &app) {
  Command c;
  c.app = app.add_subcommand("ops", "List the operators that can be tuned, with their parameters and defaults");
  c.run = [] {
    printf("Operators are written KIND:PARAM=VALUE,... (unnamed parameters take their defaults).\n\n");
    for (const auto &info : op_library()) {
      printf("%s\n    %s\n", info.kind.c_str(), info.help.c_str());
      for (const auto &p : info.params) {
        std::string values = p.default_value;
        if (!p.choices.empty()) {
          values = "one of";
          for (const auto &ch : p.choices) values += " " + ch;
          values += "; default " + p.default_value;
        } else {
          values = "integer >= " + std::to_string(p.min_value) + "; default " + p.default_value;
        }
        printf("    %-10s %s (%s)\n", p.name.c_str(), p.help.c_str(), values.c_str());
      }
      printf("\n");
    }
    return kExitOk;
  };
  return c;
}

}  // namespace tlp
