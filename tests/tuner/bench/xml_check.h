// A tiny well-formedness check for the SVG the bench writes: balanced tags, one
// root, quoted attributes, and only the five predefined entities. Not a full XML
// parser; enough to catch unescaped text and unclosed elements.
#pragma once

#include <cctype>
#include <string>
#include <vector>

namespace tlp {

// "" when `xml` is well-formed, otherwise what is wrong and where.
inline std::string xml_problem(const std::string &xml) {
  auto entity_ok = [&](size_t i) {
    for (const char *e : {"&amp;", "&lt;", "&gt;", "&quot;", "&apos;"})
      if (xml.compare(i, std::string(e).size(), e) == 0) return true;
    return false;
  };
  auto is_name = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == ':' || c == '_'; };
  std::vector<std::string> open;
  int roots = 0;
  size_t i = 0;
  if (xml.compare(0, 5, "<?xml") == 0) i = xml.find("?>") + 2;
  while (i < xml.size()) {
    const char c = xml[i];
    if (c == '&' && !entity_ok(i)) return "bad entity at " + std::to_string(i);
    if (c == '>') return "stray '>' at " + std::to_string(i);
    if (c != '<') {
      if (open.empty() && !std::isspace(static_cast<unsigned char>(c)))
        return "text outside the root at " + std::to_string(i);
      ++i;
      continue;
    }
    const bool closing = i + 1 < xml.size() && xml[i + 1] == '/';
    size_t j = i + (closing ? 2 : 1);
    const size_t name_start = j;
    while (j < xml.size() && is_name(xml[j])) ++j;
    const std::string name = xml.substr(name_start, j - name_start);
    if (name.empty()) return "tag without a name at " + std::to_string(i);
    if (closing) {
      if (open.empty() || open.back() != name) return "unbalanced </" + name + "> at " + std::to_string(i);
      open.pop_back();
      if (j >= xml.size() || xml[j] != '>') return "bad closing tag at " + std::to_string(i);
      i = j + 1;
      continue;
    }
    // Attributes: name="value" with no '<' and only entities for '&'.
    for (;;) {
      while (j < xml.size() && std::isspace(static_cast<unsigned char>(xml[j]))) ++j;
      if (j >= xml.size()) return "unterminated tag <" + name;
      if (xml[j] == '>' || xml.compare(j, 2, "/>") == 0) break;
      const size_t attr = j;
      while (j < xml.size() && is_name(xml[j])) ++j;
      if (j == attr || j + 1 >= xml.size() || xml[j] != '=' || xml[j + 1] != '"')
        return "bad attribute in <" + name + "> at " + std::to_string(j);
      j += 2;
      while (j < xml.size() && xml[j] != '"') {
        if (xml[j] == '<') return "'<' in an attribute of <" + name + ">";
        if (xml[j] == '&' && !entity_ok(j)) return "bad entity in an attribute of <" + name + ">";
        ++j;
      }
      ++j;
    }
    if (open.empty()) ++roots;
    if (xml[j] == '/') {
      i = j + 2;
    } else {
      open.push_back(name);
      i = j + 1;
    }
  }
  if (!open.empty()) return "unclosed <" + open.back() + ">";
  if (roots != 1) return "expected one root element, found " + std::to_string(roots);
  return "";
}

}  // namespace tlp
