// A folder for a run's build artifacts: the one the user named (kept), or a
// fresh temporary folder removed with everything in it when the run ends.
#pragma once

#include <string>

namespace tlp {

class WorkDir {
 public:
  // `requested` empty: a new folder "<tmp>/<prefix>-XXXXXX". Throws std::runtime_error.
  explicit WorkDir(const std::string &requested, const std::string &prefix = "tlptune");
  ~WorkDir();
  WorkDir(const WorkDir &) = delete;
  WorkDir &operator=(const WorkDir &) = delete;

  const std::string &path() const { return path_; }
  std::string operator/(const std::string &name) const;

 private:
  std::string path_;
  bool owned_ = false;
};

}  // namespace tlp
