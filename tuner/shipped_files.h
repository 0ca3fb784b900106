// Where tlptune finds the files it ships: the models, the bench suites and the
// network files. An installed tlptune (cmake --install build --prefix P) finds
// them in P/share/tlptune beside P/bin; a build finds them in the source tree it
// came from.
#pragma once

#include <string>

namespace tlp {

// The path of `relative` ("models/tlp-cpu-avx2.tlpm", "suites") under
// <dir of the running tlptune>/../share/tlptune, else under the source tree's
// folder for it (models/, examples/suites, examples/networks). Empty when
// neither exists.
std::string shipped_file(const std::string &relative);

}  // namespace tlp
