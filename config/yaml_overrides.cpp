#include "config/yaml_overrides.h"

#include <cctype>
#include <charconv>
#include <cstdlib>
#include <vector>

namespace dg {

Status ApplyOverride(YAML::Node root, const std::string& text, std::map<std::string, std::string>* seen) {
  auto bad = [&](const std::string& why) {
    return Status::InvalidArgument("--set " + text + ": " + why +
                                   " (expected KEY=VALUE, e.g. train.epochs=3 or train.fanouts=[5,10])");
  };
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return bad("no '='");
  const std::string key = text.substr(0, eq), value_text = text.substr(eq + 1);

  // Tokens: names and [index] steps.
  struct Step {
    std::string name;
    int index = -1;
  };
  std::vector<Step> steps;
  size_t i = 0;
  while (i < key.size()) {
    if (key[i] == '.') {
      if (i == 0 || i + 1 == key.size() || key[i + 1] == '.' || key[i + 1] == '[')
        return bad("malformed key '" + key + "'");
      ++i;
      continue;
    }
    if (key[i] == '[') {
      size_t close = key.find(']', i);
      if (close == std::string::npos || steps.empty()) return bad("malformed index in '" + key + "'");
      int idx = -1;
      std::string digits = key.substr(i + 1, close - i - 1);
      auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), idx);
      if (ec != std::errc() || p != digits.data() + digits.size() || idx < 0 || digits.empty())
        return bad("index '" + digits + "' in '" + key + "' is not a non-negative integer");
      steps.push_back(Step{"", idx});
      i = close + 1;
      continue;
    }
    size_t end = key.find_first_of(".[", i);
    if (end == std::string::npos) end = key.size();
    steps.push_back(Step{key.substr(i, end - i), -1});
    i = end;
  }
  if (steps.empty() || steps[0].index >= 0) return bad("malformed key '" + key + "'");

  YAML::Node value;
  try {
    value = YAML::Load(value_text);
  } catch (const YAML::Exception&) {
    value = YAML::Node(value_text);
  }
  if (value_text.empty()) value = YAML::Node(std::string());

  YAML::Node cur = root;
  std::string walked;
  for (size_t s = 0; s < steps.size(); ++s) {
    const Step& st = steps[s];
    bool last = s + 1 == steps.size();
    if (st.index >= 0) {
      if (!cur.IsSequence()) return bad("'" + walked + "' is not a list");
      if (st.index >= static_cast<int>(cur.size()))
        return bad("'" + walked + "' has " + std::to_string(cur.size()) + " entries, no [" +
                   std::to_string(st.index) + "]");
      walked += "[" + std::to_string(st.index) + "]";
      if (last) {
        cur[st.index] = value;
      } else {
        YAML::Node next = cur[st.index];
        cur.reset(next);
      }
      continue;
    }
    if (cur.IsDefined() && !cur.IsNull() && !cur.IsMap())
      return bad("'" + walked + "' is not a map");
    walked += (walked.empty() ? "" : ".") + st.name;
    if (last) {
      cur[st.name] = value;
    } else {
      if (!cur[st.name] || cur[st.name].IsNull()) cur[st.name] = YAML::Node(YAML::NodeType::Map);
      YAML::Node next = cur[st.name];
      cur.reset(next);
    }
  }
  (*seen)[walked] = text;
  return Status::OK();
}

}  // namespace dg
