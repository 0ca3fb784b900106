#include "tuner/name_list.h"

#include <algorithm>
#include <cctype>

namespace tlp {

std::vector<std::string> split_name_list(const std::string &csv) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= csv.size()) {
    const size_t comma = std::min(csv.find(',', start), csv.size());
    std::string item = csv.substr(start, comma - start);
    start = comma + 1;
    auto space = [](char c) { return std::isspace(static_cast<unsigned char>(c)) != 0; };
    item.erase(item.begin(), std::find_if_not(item.begin(), item.end(), space));
    item.erase(std::find_if_not(item.rbegin(), item.rend(), space).base(), item.end());
    if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
  }
  return out;
}

}  // namespace tlp
