// A workload: an operator kind with concrete parameters, as written on the
// command line ("matmul:M=512,N=512,K=512"). Parsing checks every name and value
// against the operator library, so a typo is an error that lists what is known.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace tlp {

// Raised for a bad workload spec; the message says what was wrong and what to do.
class WorkloadError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Workload {
  std::string kind;
  // Every parameter of the kind, in the library's declared order, defaults filled.
  std::vector<std::pair<std::string, std::string>> params;

  // The canonical key, e.g. "matmul:M=512,N=512,K=512": same workload, same key.
  std::string key() const;
  int64_t get_int(const std::string &name) const;  // throws WorkloadError if absent
  const std::string &get_str(const std::string &name) const;
};

// Parses "KIND:P=V,..." (or "KIND" alone for all defaults) against the library.
Workload parse_workload(const std::string &spec);

// The same operator in its plain default layout when `w` is blocked, packed or in
// the gemm form (layout=NCHW<b>c, NK<b>n, NCHWgemm): NCHW, or KN for a matrix's B;
// otherwise `w` itself.
// What libraries that pick their own layouts are given.
Workload plain_layout_form(const Workload &w);

}  // namespace tlp
