// A network workload file: the distinct operators of a network and how often each
// occurs (examples/networks/README.md describes the format). Whole-network tuning
// makes one task per operator and weighs it by its count.
#pragma once

#include <string>
#include <vector>

namespace tlp {

struct NetworkTask {
  std::string op;  // "KIND:P=V,...", as written in the file (not checked here)
  double weight;   // occurrences in one inference, > 0
  // Per occurrence, the ONNX nodes it serves, in order (files from 'tlptune tasks').
  std::vector<std::vector<std::string>> onnx_nodes;
};

struct NetworkSpec {
  std::string name, description;
  std::vector<NetworkTask> tasks;  // in file order, each op once
};

// The newest file format this reader understands.
constexpr int kNetworkSpecFormat = 1;

// Reads and checks a network file. Throws std::runtime_error with a one-line
// message naming the file and the fault for:
// - a file that cannot be read;
// - invalid JSON (with the parser's line and column);
// - a missing, unknown or newer "format";
// - missing or empty "tasks";
// - a task without a string "op", or with a weight that is not a number > 0;
// - "onnx_nodes" that is not an array of arrays of node names;
// - the same op given twice (compared as text).
// "name" defaults to the file name without its extension; "description" and
// "notes" are optional. The op specs themselves are not validated: codegen
// does that when the task is built.
NetworkSpec read_network_spec(const std::string &path);

}  // namespace tlp
