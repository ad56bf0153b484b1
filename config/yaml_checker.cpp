#include "config/yaml_checker.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace dg {

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string Join(const std::vector<std::string>& v, const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + v[i];
  return out;
}

std::string ResolvePath(const std::string& base_dir, const std::string& p) {
  namespace fs = std::filesystem;
  if (p.empty()) return p;
  fs::path path(p);
  if (p == "~" || p.rfind("~/", 0) == 0) {
    const char* home = std::getenv("HOME");
    path = fs::path(home ? home : "/") / p.substr(p.size() > 1 ? 2 : 1);
  }
  if (path.is_relative()) path = fs::path(base_dir) / path;
  return path.lexically_normal().string();
}

std::string YamlWhere(const std::string& file, const std::map<std::string, std::string>& overridden,
                      const std::string& path, int line) {
  for (const auto& [key, text] : overridden)
    if (path == key || path.rfind(key + ".", 0) == 0 || path.rfind(key + "[", 0) == 0)
      return file + " (--set " + text + "): key '" + path + "'";
  return file + (line > 0 ? ":" + std::to_string(line) : "") + ": key '" + path + "'";
}

std::string Describe(const YAML::Node& n) {
  if (!n || n.IsNull()) return "nothing";
  if (n.IsSequence()) return "a list";
  if (n.IsMap()) return "a map";
  return "'" + n.Scalar() + "'";
}

}  // namespace dg
