// Checker: reads one YAML file's keys against a schema and names every
// mistake "FILE:LINE: key 'a.b[1]': what" (or "FILE (--set k=v): ..." when an
// override set the key): unknown keys with the closest valid one, and typed
// reads of ints, doubles, bools, strings and maps with their ranges. Generic:
// the job schema (job_config.cpp) is written with it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "common/base/status.h"

namespace dg {

// Edit distance between two keys (for "did you mean").
size_t EditDistance(const std::string& a, const std::string& b);
std::string Join(const std::vector<std::string>& v, const std::string& sep);
// How a node looks, for "got ..." in messages.
std::string Describe(const YAML::Node& n);

// A path as the YAML wrote it, relative to its folder `base_dir` ("~/" = $HOME).
std::string ResolvePath(const std::string& base_dir, const std::string& p);

// "FILE:LINE: key 'path'" (line <= 0: no line), or "FILE (--set k=v): key
// 'path'" when an override in `overridden` (key -> "k=v") set the key or its parent.
std::string YamlWhere(const std::string& file, const std::map<std::string, std::string>& overridden,
                      const std::string& path, int line);

class Checker {
 public:
  Checker(std::string file, std::map<std::string, std::string> overridden)
      : file_(std::move(file)), overridden_(std::move(overridden)) {}

  const std::string& file() const { return file_; }

  // "FILE:LINE: key 'path': what", or "FILE (--set k=v): key 'path': what" when
  // the key came from an override.
  Status Err(const YAML::Node& at, const std::string& path, const std::string& what) const {
    const int line = at && at.Mark().line >= 0 ? at.Mark().line + 1 : 0;
    return Status::InvalidArgument(YamlWhere(file_, overridden_, path, line) + ": " + what);
  }
  const std::map<std::string, std::string>& overridden() const { return overridden_; }

  // Every key of `map` must be in `allowed`; an unknown one gets the closest valid key.
  Status CheckKeys(const YAML::Node& map, const std::string& prefix,
                   const std::vector<std::string>& allowed) const {
    for (auto it = map.begin(); it != map.end(); ++it) {
      if (!it->first.IsScalar()) return Err(it->first, prefix, "keys must be plain names");
      const std::string key = it->first.Scalar();
      if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
      std::string best;
      size_t best_d = 1000;
      for (const auto& a : allowed) {
        size_t d = EditDistance(key, a);
        if (d < best_d) best_d = d, best = a;
      }
      std::string full = prefix.empty() ? key : prefix + "." + key;
      std::string hint = best_d <= std::max<size_t>(2, key.size() / 3)
                             ? "did you mean '" + (prefix.empty() ? best : prefix + "." + best) + "'? "
                             : "";
      return Err(it->first, full, "unknown key; " + hint + "valid keys here: " + Join(allowed, ", "));
    }
    return Status::OK();
  }

  Status Map(const YAML::Node& n, const std::string& path) const {
    if (!n.IsMap()) return Err(n, path, "expected a map of keys, got " + Describe(n));
    return Status::OK();
  }

  Status Int(const YAML::Node& n, const std::string& path, int64_t lo, int64_t hi, int64_t* out,
             const std::string& extra = "") const {
    std::string range = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]" + extra;
    if (!n.IsScalar()) return Err(n, path, "expected " + range + ", got " + Describe(n));
    const std::string& s = n.Scalar();
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || s.empty())
      return Err(n, path, "expected " + range + ", got " + Describe(n));
    if (v < lo || v > hi) return Err(n, path, "expected " + range + ", got " + s);
    *out = v;
    return Status::OK();
  }

  Status Int(const YAML::Node& n, const std::string& path, int64_t lo, int64_t hi, int* out) const {
    int64_t v = 0;
    DG_RETURN_IF_ERROR(Int(n, path, lo, hi, &v));
    *out = static_cast<int>(v);
    return Status::OK();
  }

  Status Double(const YAML::Node& n, const std::string& path, double lo, bool lo_open, double hi,
                double* out) const {
    std::string range = std::string("a number ") + (lo_open ? "> " : ">= ") + Num(lo) +
                        (std::isinf(hi) ? "" : " and <= " + Num(hi));
    if (!n.IsScalar()) return Err(n, path, "expected " + range + ", got " + Describe(n));
    const std::string& s = n.Scalar();
    char* end = nullptr;
    double v = std::strtod(s.c_str(), &end);
    if (s.empty() || end != s.c_str() + s.size() || !std::isfinite(v))
      return Err(n, path, "expected " + range + ", got " + Describe(n));
    if (v < lo || (lo_open && v == lo) || v > hi) return Err(n, path, "expected " + range + ", got " + s);
    *out = v;
    return Status::OK();
  }

  Status Bool(const YAML::Node& n, const std::string& path, bool* out) const {
    std::string s = n.IsScalar() ? n.Scalar() : "";
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
    if (s == "true" || s == "yes" || s == "on") *out = true;
    else if (s == "false" || s == "no" || s == "off") *out = false;
    else return Err(n, path, "expected true or false, got " + Describe(n));
    return Status::OK();
  }

  // A scalar (null reads as ""); `required` also rejects "".
  Status String(const YAML::Node& n, const std::string& path, bool required, std::string* out) const {
    if (n.IsNull()) {
      if (required) return Err(n, path, "expected a non-empty string, got nothing");
      out->clear();
      return Status::OK();
    }
    if (!n.IsScalar()) return Err(n, path, "expected a string, got " + Describe(n));
    if (required && n.Scalar().empty()) return Err(n, path, "expected a non-empty string");
    *out = n.Scalar();
    return Status::OK();
  }

 private:
  static std::string Num(double v) {
    char buf[32];
    std::snprintf(buf, sizeof(buf), "%g", v);
    return buf;
  }
  std::string file_;
  std::map<std::string, std::string> overridden_;
};

}  // namespace dg
