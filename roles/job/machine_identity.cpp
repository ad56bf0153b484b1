#include "roles/job/machine_identity.h"

#include <cctype>

namespace dg {
namespace {

// A decimal number >= 0 that fits an int; -1 otherwise.
int ParseIndex(const std::string& text) {
  if (text.empty() || text.size() > 9) return -1;
  for (char c : text)
    if (!std::isdigit(static_cast<unsigned char>(c))) return -1;
  return std::stoi(text);
}

std::string JoinNames(const std::vector<std::string>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out;
}

}  // namespace

const std::vector<std::string>& MachineIndexVariables() {
  static const std::vector<std::string> v{"SLURM_NODEID", "JOB_COMPLETION_INDEX", "GROUP_RANK", "RANK"};
  return v;
}

const std::vector<std::string>& ProcessIndexVariables() {
  static const std::vector<std::string> v{"SLURM_LOCALID", "LOCAL_RANK"};
  return v;
}

IndexChoice ChooseIndex(const std::string& flag_text, const std::vector<std::string>& variables,
                        const EnvLookup& env) {
  IndexChoice c;
  if (!flag_text.empty() && flag_text != "auto") {
    c.from.text = flag_text;
    c.value = ParseIndex(flag_text);
    return c;
  }
  for (const std::string& name : variables) {
    const char* value = env(name.c_str());
    if (!value || !*value) continue;
    c.from = {name, value};
    c.value = ParseIndex(c.from.text);
    return c;
  }
  c.from.text = "auto";  // and none of the variables is set
  return c;
}

Status CheckIndex(const IndexChoice& c, const std::string& flag, const std::vector<std::string>& variables,
                  int count, const std::string& count_note) {
  if (c.value >= 0 && c.value < count) return Status::OK();
  const std::string range = count > 0 ? " (0.." + std::to_string(count - 1) + ")" : "";
  if (c.from.variable.empty() && c.from.text == "auto")
    return Status::InvalidArgument(flag + " auto: none of " + JoinNames(variables) + " is set; give " + flag +
                                   " N" + range + " (" + count_note + ")");
  if (c.from.variable.empty()) {  // the flag said it
    if (c.value >= 0) return Status::InvalidArgument(flag + " " + c.from.text + ": " + count_note);
    return Status::InvalidArgument(flag + " " + c.from.text + ": expected a number" + range + " or auto");
  }
  const std::string said = flag + " auto: " + c.from.variable + "=" + c.from.text;
  if (c.value < 0) return Status::InvalidArgument(said + " is not a number" + range + " (" + count_note + ")");
  return Status::InvalidArgument(said + " is out of range" + range + ": " + count_note);
}

std::string DescribeIndex(const std::string& what, const IndexChoice& c) {
  if (c.from.variable.empty() || c.value < 0) return "";
  return what + " " + std::to_string(c.value) + " from " + c.from.variable + "=" + c.from.text;
}

}  // namespace dg
