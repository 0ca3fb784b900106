// A benchmark suite file: the operators `tlptune bench` tunes, each with an
// optional trial budget, weight and label (examples/suites/README.md describes
// the format). The command tunes every operator once per policy and seed.
#pragma once

#include <string>
#include <vector>

namespace tlp {

struct BenchOperator {
  std::string op;     // "KIND:P=V,...", as written in the file (not checked here)
  std::string label;  // a short name for reports, such as "bert-qkv"; may be empty
  int trials = 0;     // measurement trials for this operator; 0: the command's --trials
  double weight = 1;  // weight in the suite's summary, > 0
};

struct BenchSuite {
  std::string name, description;
  std::vector<BenchOperator> operators;  // in file order, each op+label once
};

// The newest suite file format this reader understands.
constexpr int kBenchSuiteFormat = 1;

// True when `path_or_name` names a suite rather than a file: it has no '/' and
// does not end in ".json".
bool is_suite_name(const std::string &path_or_name);

// The suite names in `suites_dir` (its *.json files without the extension), sorted.
// Empty when the folder does not exist.
std::vector<std::string> list_bench_suites(const std::string &suites_dir);

// Reads and checks a suite. A suite name is read from `<suites_dir>/<name>.json`;
// anything else is a path. Throws std::runtime_error with a one-line message that
// names the file and the fault for:
// - a file that cannot be read (naming the suites available in `suites_dir`);
// - invalid JSON (with the parser's line and column);
// - a missing, unknown or newer "format";
// - an unknown key, at the top level or in an operator (naming the allowed keys);
// - missing or empty "operators", or an entry of the wrong type;
// - an "op" that is not a non-empty string, "trials" that is not an integer >= 1,
//   "weight" that is not a number > 0, "label" that is not a string;
// - the same op and label given twice.
// "name" defaults to the file name without ".json"; "description" and "notes"
// are optional. The op strings themselves are not validated: the caller does that.
BenchSuite read_bench_suite(const std::string &path_or_name, const std::string &suites_dir);

}  // namespace tlp
